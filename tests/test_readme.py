"""Every ``python`` code block of README.md runs as written.

Each block runs alone, in a fresh namespace, in a temporary working folder, with the
network refused.  A block that loads or fetches a data set this machine does not have (a
large set neither in the data folder nor in the cache) is skipped, naming the set.
"""

import re
import sys
import urllib.request
from pathlib import Path

import pytest

from confboost.datasets import DATASETS, available

README = Path(__file__).resolve().parents[1] / "README.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
_DATA = re.compile(r"\b(?:load|fetch)\(\s*[\"']([\w.-]+)[\"']")


def _blocks():
    text = README.read_text(encoding="utf-8")
    out = []
    for match in _BLOCK.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        heading = re.findall(r"^#+ (.+)$", text[: match.start()], re.M)
        section = heading[-1] if heading else "top"
        out.append(pytest.param(match.group(1), line, id=f"line{line}-{section[:30]}"))
    return out


def test_the_readme_has_python_examples():
    assert len(_blocks()) >= 5


@pytest.mark.parametrize(("code", "line"), _blocks())
def test_readme_example_runs(code, line, tmp_path, monkeypatch):
    needed = {n for n in _DATA.findall(code) if n in DATASETS or n == "reuters21578"}
    missing = sorted(needed - set(available()))
    if missing:
        pytest.skip(
            f"README.md line {line} needs {', '.join(missing)}, not on this machine "
            f"(confboost.datasets.fetch({missing[0]!r}) downloads it)"
        )

    def refuse(url, *args, **kwargs):
        raise AssertionError(f"README.md line {line} reached the network: {url}")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setenv("MPLBACKEND", "Agg")  # plots draw off-screen
    monkeypatch.chdir(tmp_path)
    try:
        exec(compile(code, f"README.md:{line}", "exec"), {"__name__": "__readme__"})
    finally:
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")
