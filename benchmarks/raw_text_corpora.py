"""Raw-text corpora for ``icsiboost_parity.py``, from text found on the machine, kept as written.

Each builder takes the root folder to read (none is assumed) and returns rows
``((field, ...), labels)``: the text is what the files hold, cut to a few lines joined by one
space, with only the two bytes the BoosTexter format cannot carry inside a field changed
(``,`` becomes ``;`` and a line break a space; a carriage return inside a line is kept). So
the texts keep their non-ASCII letters, ``#`` inside words, runs of spaces (indentation,
two spaces after a full stop), tabs and stray carriage returns, which is what icsiboost's
tokeniser sees byte for byte.

``changelog_rows(doc_root)``
    Debian changelog entries (``DOC_ROOT/*/changelog.Debian.gz``: the lines of one version,
    its ``  * `` items and its `` -- Name <mail>  date`` trailer), labelled by the
    package's section (``dpkg-query``), single-label.
``manpage_rows(man_root)``
    The first lines of roff source of man pages (``MAN_ROOT/[lang/]manN/*.gz``), each
    labelled with its section and its language (``en`` for the untranslated ones),
    multi-label.
``python_rows(roots)``
    The first lines of each function and class of the Python files under the roots (the
    source as written: indentation, comments after ``#``), labelled by the top-level module
    or package, single-label.

``features(rows)`` counts the rows holding each kind of byte the corpora are meant to carry.
"""

import ast
import gzip
import re
import subprocess
from collections import Counter
from pathlib import Path

#: Rows kept per corpus at most (the first, in a fixed order of files).
MAX_ROWS = 9000


def _field(text):
    """``text`` as one BoosTexter field: ``,`` and line breaks replaced, nothing else."""
    return text.replace(",", ";").replace("\n", " ").strip(" ")


def _keep(text):
    """Whether a field can be written as it is: not empty, not missing, not read back as a
    comment, and not ending in a carriage return (the reader drops one at a line's end)."""
    return bool(text) and text not in ("?",) and not text.startswith("|") and not text.endswith(
        "\r")


def _sections():
    """Each installed package's section (``dpkg-query``), or {} where there is none."""
    try:
        output = subprocess.run(["dpkg-query", "-W", "-f", "${Package}\t${Section}\n"],
                                capture_output=True, check=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    return dict(line.split("\t", 1) for line in output.splitlines() if "\t" in line)


def changelog_rows(doc_root, per_package=4, n_classes=6):
    """Changelog entries labelled by their package's section (the ``n_classes`` commonest)."""
    sections = _sections()
    entries = []
    for path in sorted(Path(doc_root).glob("*/changelog.Debian.gz")):
        package = path.parent.name
        section = sections.get(package, "").split("/")[-1]
        if not section:
            continue
        try:
            text = gzip.decompress(path.read_bytes()).decode("utf-8")
        except (OSError, UnicodeDecodeError, EOFError):
            continue  # not UTF-8: icsiboost reads it, confboost refuses it (documented)
        for entry in re.split(r"\n(?=\S)", text)[:per_package]:
            lines = entry.split("\n")
            body = _field(" ".join(line for line in lines[1:] if line.strip()))
            if _keep(body):
                entries.append(((_field(package), body), section))
    common = [section for section, _ in Counter(s for _, s in entries).most_common(n_classes)]
    rows = [(fields, [section]) for fields, section in entries if section in common]
    return common, rows[:MAX_ROWS]


def manpage_rows(man_root, n_lines=25, n_sections=6):
    """Man pages' first roff lines labelled with their section and language."""
    found = []
    for path in sorted(Path(man_root).glob("**/man*/*.gz")):
        folder = path.parent
        section = folder.name[3:]
        language = folder.parent.name if folder.parent != Path(man_root) else "en"
        try:
            text = gzip.decompress(path.read_bytes()).decode("utf-8")
        except (OSError, UnicodeDecodeError, EOFError):
            continue
        body = _field(" ".join(text.split("\n")[:n_lines]))
        name = _field(path.name.removesuffix(".gz"))
        if _keep(body) and _keep(name):
            found.append(((name, body), section, language))
    sections = [s for s, _ in Counter(s for _, s, _ in found).most_common(n_sections)]
    languages = [lang for lang, n in Counter(lang for _, _, lang in found).most_common(6)
                 if n >= 20]
    classes = sections + [lang for lang in languages if lang not in sections]
    rows = [(fields, [c for c in classes if c in (section, language)])
            for fields, section, language in found]
    rows = [(fields, labels) for fields, labels in rows if labels]
    step = max(1, len(rows) // MAX_ROWS + (len(rows) % MAX_ROWS > 0))
    return classes, rows[::step]


def python_rows(roots, n_lines=12, n_classes=8):
    """The first source lines of each function and class, labelled by top-level module."""
    found = []
    for root in roots:
        root = Path(root)
        for path in sorted(root.rglob("*.py")):
            try:
                raw = path.read_bytes().decode("utf-8")
                tree = ast.parse(raw)
            except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
                continue
            lines = raw.split("\n")
            module = path.relative_to(root).parts[0].removesuffix(".py")
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    start = node.lineno - 1
                    body = _field(" ".join(lines[start + 1:start + n_lines]))
                    if _keep(body) and _keep(node.name):
                        found.append(((node.name, body), module))
    common = [m for m, _ in Counter(m for _, m in found).most_common(n_classes)]
    rows = [(fields, [module]) for fields, module in found if module in common]
    step = max(1, len(rows) // MAX_ROWS + (len(rows) % MAX_ROWS > 0))
    return common, rows[::step]


#: What ``features`` counts: the name and the test on a row's text.
FEATURES = {
    "non-ASCII": lambda text: any(ord(c) > 127 for c in text),
    "# in a word": lambda text: re.search(r"\S#|#\S", text) is not None,
    "doubled spaces": lambda text: "  " in text,
    "tab": lambda text: "\t" in text,
    "CR": lambda text: "\r" in text,
    "no-break space": lambda text: "\u00a0" in text,
}


def features(rows):
    """How many rows hold each of ``FEATURES`` in some field."""
    return {name: sum(any(test(field) for field in fields) for fields, _ in rows)
            for name, test in FEATURES.items()}
