"""Every ``python`` code block of README.md and of the documentation's Markdown pages
(``docs/**/*.md``, the user guide) runs as written, and the README's links lead to files.

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

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
_DATA = re.compile(r"\b(?:load|fetch)\(\s*[\"']([\w.-]+)[\"']")


def _blocks(pages=PAGES):
    out = []
    for page in pages:
        if "_build" in page.parts:
            continue
        text = page.read_text(encoding="utf-8")
        name = page.relative_to(ROOT).as_posix()
        for match in _BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            heading = re.findall(r"^#+ (.+)$", text[: match.start()], re.M)
            section = heading[-1] if heading else "top"
            out.append(pytest.param(match.group(1), f"{name}:{line}",
                                    id=f"{name}:{line}-{section[:30]}"))
    return out


def test_the_readme_has_a_python_example():
    assert len(_blocks([README])) >= 1


def test_the_guide_has_python_examples():
    assert len(_blocks()) - len(_blocks([README])) >= 10


def test_readme_links_lead_to_files():
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#:]+)\)", text)
    assert targets
    for target in targets:
        assert (ROOT / target).exists(), f"README.md links to {target}, which is missing"


@pytest.mark.parametrize(("code", "line"), _blocks())
def test_readme_example_runs(code, line, tmp_path, monkeypatch):
    needed = {n for n in _DATA.findall(code) if n in DATASETS or n == "reuters21578"}
    missing = sorted(needed - set(available()))
    if missing:
        pytest.skip(
            f"{line} needs {', '.join(missing)}, not on this machine "
            f"(confboost.datasets.fetch({missing[0]!r}) downloads it)"
        )

    def refuse(url, *args, **kwargs):
        raise AssertionError(f"{line} reached the network: {url}")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setenv("MPLBACKEND", "Agg")  # plots draw off-screen
    monkeypatch.chdir(tmp_path)
    try:
        exec(compile(code, line, "exec"), {"__name__": "__readme__"})
    finally:
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")
