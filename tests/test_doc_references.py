"""What the documentation names in backticks exists: every source, test or benchmark path
(``src/confboost/kernels/histogram.py``, ``kernels/histogram.py``, ``tests/...py``,
``benchmarks/...py``), every ``confboost.<dotted.name>`` and every ``<module path>.<name>``
(``kernels/term_masses.term_criteria``) of README.md and the Markdown pages of ``docs/``
(inline code in single backticks), and of the package's docstrings and comments (double
backticks, as reStructuredText writes code).

Modules and functions are renamed as the code moves on; a page that still names the old
path sends its reader nowhere, or to a deprecated one: the 0.1 module paths still import
(``confboost._legacy``, with a ``FutureWarning``) but a page names them only where it speaks
of 0.1. Fenced code blocks are left to ``test_readme.py``, which runs them.
"""

import importlib
import re
import warnings
from pathlib import Path

import pytest

from confboost._legacy import MOVED

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "confboost"
PAGES = [ROOT / "README.md",
         *sorted(p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts)]
#: The package's modules; ``_legacy.py`` names the 0.1 paths on purpose.
SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "_legacy.py")
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_CODE_RST = re.compile(r"``([^`\n]+)``")
#: The package's folders: a path that starts with one of them is under src/confboost.
_FOLDERS = tuple(sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name[0] != "_"))
_PATH = re.compile(r"(?<![\w./-])((?:src/)?(?:confboost/)?[\w/]+\.py)\b")
_DOTTED = re.compile(r"(?<![\w./-])(confboost(?:\.\w+)+)")
_MODULE_ATTRIBUTE = re.compile(r"(?<![\w./-])((?:src/)?(?:confboost/)?[\w/]+/\w+)\.(\w+)\b")
#: What follows a dot in a file name, not a module's attribute (``utils/string.c``).
_EXTENSIONS = {"py", "md", "c", "h", "png", "svg", "pdf", "json", "txt", "csv", "gz", "html",
               "data", "names", "dev", "test", "shyp", "checkpoint", "toml", "cfg", "yml"}


def _references():
    """(file:line, kind, text) of every checked name in the pages' and the docstrings'
    inline code."""
    out = []
    for page in PAGES:
        text = _FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), page.read_text("utf-8"))
        out += _named(page, text, _CODE)
    for source in SOURCES:
        out += _named(source, source.read_text("utf-8"), _CODE_RST)
    return out


def _named(path, text, code_pattern):
    """(file:line, kind, text) of the checked names in ``text``'s inline code."""
    out = []
    name = path.relative_to(ROOT).as_posix()
    lines = text.split("\n")
    for match in code_pattern.finditer(text):
        line = text.count("\n", 0, match.start())
        where = f"{name}:{line + 1}"
        if "0.1" in lines[line]:
            continue  # the line speaks of the old paths
        code = match.group(1)
        out += [(where, "path", found) for found in _PATH.findall(code)]
        out += [(where, "name", dotted) for dotted in _DOTTED.findall(code)]
        out += [(where, "module attribute", f"{module}.{attr}")
                for module, attr in _MODULE_ATTRIBUTE.findall(code)
                if attr not in _EXTENSIONS and _in_package(module)]
    return out


def _in_package(path):
    """Whether a page's path (without its ``.py``) lies under src/confboost."""
    target = _package_path(path + ".py")
    return target is not None and PACKAGE in target.parents


def _package_path(path):
    """The file a page's path names (None when the path is not the project's to check)."""
    path = path.removeprefix("src/")
    if path.startswith(("tests/", "benchmarks/", "docs/", "examples/")):
        return ROOT / path
    path = path.removeprefix("confboost/")
    if path.startswith(tuple(f"{folder}/" for folder in _FOLDERS)):
        return PACKAGE / path
    return None


def _moved(dotted):
    """The 0.1 module path ``dotted`` starts with and the path it became, or None."""
    parts = dotted.split(".")
    for cut in range(len(parts), 1, -1):
        old = ".".join(parts[:cut])
        if old in MOVED:
            return old, MOVED[old]
    return None


def _resolves(dotted):
    """Whether ``a.b.c`` imports as a module, or names an attribute of one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)  # the 0.1 paths still import
                obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for part in parts[cut:]:
                obj = getattr(obj, part)
        except AttributeError:
            return False
        return True
    return False


REFERENCES = _references()


def test_the_pages_and_docstrings_name_code():
    kinds = {kind for _, kind, _ in REFERENCES}
    assert {"path", "name", "module attribute"} <= kinds
    assert any(where.startswith("src/") for where, _, _ in REFERENCES)
    assert any(where.startswith("docs/") for where, _, _ in REFERENCES)


@pytest.mark.parametrize(("where", "kind", "text"), REFERENCES,
                         ids=[f"{w}-{t}" for w, _, t in REFERENCES])
def test_a_named_path_or_name_exists(where, kind, text):
    if kind == "path":
        target = _package_path(text)
        assert target is None or target.is_file(), f"{where} names {text}, which is missing"
        return
    if kind == "name":
        dotted = text
    else:
        module, attr = text.rsplit(".", 1)
        dotted = "confboost." + ".".join(
            module.removeprefix("src/").removeprefix("confboost/").split("/") + [attr])
    moved = _moved(dotted)
    assert moved is None, f"{where} names {text}: {moved[0]} moved to {moved[1]}"
    assert _resolves(dotted), f"{where} names {text}, which does not exist"
