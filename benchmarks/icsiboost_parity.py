"""confboost's ``icsiboost`` command side by side with icsiboost itself, on raw text found here.

Builds BoosTexter stems from raw text that no one wrote for this (what the machine has):

``sections``
    Debian package descriptions (``apt-cache dumpavail``: package name and one-line
    description) labelled by section, six classes, 7,200 train / 1,800 test; ``#`` inside
    words (``PKCS#11``, ``C#``) as the text has them.
``sections-size``
    ``sections`` with the installed size as a continuous column of some 1,900 distinct
    values (both programs try every threshold between two of them).
``debtags``
    The same packages labelled with their twelve most frequent debtags, multi-label.
``copyright``
    ``/usr/share/doc/*/copyright`` (the first 40 lines, joined by a space: tabs, no-break
    spaces and doubled spaces as written), labelled by the licences they name, multi-label,
    with a ``.dev`` for ``--optimal-iterations``.
``sections-100x``
    ``sections`` 100 times as large (the 63k packages of the archive, repeated), for the
    memory figure.
``changelogs``, ``manpages``, ``pysource``
    With ``--doc-root``, ``--man-root``, ``--python-root``: raw text kept as written
    (``raw_text_corpora.py``: changelog entries by package section, man pages' roff source
    by section and language, multi-label, Python source by module), with its non-ASCII
    letters, ``#`` inside words, runs of spaces, tabs and carriage returns.

Commas, which separate fields, are written as ``;``. For each stem and flag set both programs
train (icsiboost with its command line, confboost with the same one through ``confboost
icsiboost``) and classify the test file with their own model; the table gives the rounds whose
printed line differs, the largest classify difference, whether the two ``.shyp`` files are
the same bytes, and the CPU seconds and peak memory (maximum resident set) of confboost's
training against icsiboost's (ratios; both measured in this run, one after the other).

Usage::

    python benchmarks/icsiboost_parity.py --icsiboost /path/to/icsiboost
    python benchmarks/icsiboost_parity.py --icsiboost ./icsiboost --only sections --rounds 20
    python benchmarks/icsiboost_parity.py --icsiboost ./icsiboost --large   # + sections-100x
    python benchmarks/icsiboost_parity.py --icsiboost ./icsiboost --src /other/checkout/src

icsiboost is not part of confboost: build it from github.com/benob/icsiboost
(``autoreconf -i && ./configure CFLAGS=-O3 && make``) and give its path (or ``$ICSIBOOST``).
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

#: Flag sets of ``icsiboost --help``, each run on each stem (``{c}``: a class of the stem).
FLAGS = [
    [],
    ["-W", "2", "-N", "ngram"],
    ["-W", "3", "-N", "ngram", "--cutoff", "2"],
    ["-W", "2", "-N", "sgram"],
    ["-W", "3", "-N", "sgram"],
    ["-W", "4", "-N", "sgram", "--cutoff", "3"],
    ["-W", "2", "-N", "fgram"],
    ["-W", "3", "-N", "fgram"],
    ["-W", "2", "-N", "ngram", "--drop", "(^|#)(the|and|of|for|a|to)(#|$)"],
    ["-W", "3", "-N", "sgram", "--drop", "#"],
    ["-W", "2", "-N", "ngram", "--no-unk-ngrams"],
    ["-W", "2", "-N", "ngram", "-E", "2"],
    ["-W", "2", "-N", "ngram", "--optimal-iterations"],
    ["-W", "2", "-N", "ngram", "--max-fmeasure", "{c}"],
    ["-W", "4", "-N", "sgram"],
    ["-W", "2", "-N", "sgram", "--posteriors"],
]

#: Flags given to ``classify`` only.
CLASSIFY_ONLY = ("--posteriors",)


def _clean(text):
    return text.replace(",", ";").replace("\r", " ").replace("\n", " ")


def _packages():
    """(name, description, installed size, section, tags) of every package of the archive."""
    output = subprocess.run(["apt-cache", "dumpavail"], capture_output=True, check=True).stdout
    packages = []
    for record in output.decode("utf-8", "replace").split("\n\n"):
        fields = {}
        last = None
        for line in record.split("\n"):
            if line[:1] in (" ", "\t") and last:
                fields[last] += line
            elif ":" in line:
                last, _, value = line.partition(":")
                fields[last] = value.strip(" ")
        if "Package" in fields and "Description" in fields:
            tags = [tag.strip() for tag in fields.get("Tag", "").split(",") if tag.strip()]
            packages.append((fields["Package"], fields["Description"],
                             fields.get("Installed-Size", "?") or "?",
                             fields.get("Section", "").split("/")[-1], tags))
    return packages


def _write_stem(folder, name, classes, columns, rows, splits):
    """STEM.names and the data files (``splits``: suffix -> row slice)."""
    stem = folder / name
    names = ", ".join(classes) + ".\n" + "".join(f"{c}: {kind}.\n" for c, kind in columns)
    (folder / f"{name}.names").write_text(names, encoding="utf-8")
    for suffix, part in splits.items():
        lines = [", ".join(fields) + ", " + " ".join(labels) + ".\n"
                 for fields, labels in rows[part]]
        (folder / f"{name}.{suffix}").write_text("".join(lines), encoding="utf-8")
    return stem


def raw_stems(folder, doc_root=None, man_root=None, python_roots=()):
    """The stems of ``raw_text_corpora.py`` whose roots are given; {name: (stem, a class)}."""
    import raw_text_corpora as corpora

    built = {}
    if doc_root:
        built["changelogs"] = corpora.changelog_rows(doc_root)
    if man_root:
        built["manpages"] = corpora.manpage_rows(man_root)
    if python_roots:
        built["pysource"] = corpora.python_rows(python_roots)
    stems = {}
    for name, (classes, found) in built.items():
        rows = np.empty(len(found), dtype=object)
        rows[:] = found
        rows = rows[np.random.default_rng(0).permutation(len(rows))]
        n = len(rows)
        stems[name] = (_write_stem(folder, name, classes, [("name", "text"), ("text", "text")],
                                   rows, {"data": slice(0, n * 3 // 5),
                                          "dev": slice(n * 3 // 5, n * 4 // 5),
                                          "test": slice(n * 4 // 5, n)}), classes[0])
        print(f"{name}: {n} rows, {len(classes)} classes; rows holding "
              f"{corpora.features(found)}", flush=True)
    return stems


def build_stems(folder, large=False):
    """The stems of the module docstring, in ``folder``; {name: (stem, a class name)}."""
    packages = _packages()
    rng = np.random.default_rng(0)
    stems = {}
    sections = ["libs", "libdevel", "python", "doc", "perl", "devel"]
    chosen = [p for p in packages if p[3] in sections]
    chosen = [chosen[i] for i in rng.permutation(len(chosen))[:9000]]
    rows = np.empty(len(chosen), dtype=object)
    rows[:] = [((_clean(p[0]), _clean(p[1])), [p[3]]) for p in chosen]
    columns = [("package", "text"), ("description", "text")]
    stems["sections"] = (_write_stem(folder, "sections", sections, columns, rows,
                                     {"data": slice(0, 7200), "test": slice(7200, 9000)}),
                         "python")
    sized = np.empty(len(chosen), dtype=object)
    sized[:] = [((_clean(p[0]), _clean(p[1]), p[2]), [p[3]]) for p in chosen]
    stems["sections-size"] = (_write_stem(folder, "sections-size", sections,
                                          columns + [("size", "continuous")], sized,
                                          {"data": slice(0, 7200), "test": slice(7200, 9000)}),
                              "python")
    counts = Counter(tag for p in chosen for tag in p[4])
    tags = [tag for tag, _ in counts.most_common(12)]
    labelled = [p for p in chosen if set(p[4]) & set(tags)]
    rows = np.empty(len(labelled), dtype=object)
    rows[:] = [((_clean(p[0]), _clean(p[1])), [t for t in tags if t in p[4]])
               for p in labelled]
    n = len(labelled)
    stems["debtags"] = (_write_stem(folder, "debtags", tags, columns, rows,
                                    {"data": slice(0, n * 4 // 5), "test": slice(n * 4 // 5, n)}),
                        tags[0])
    licences = {"GPL": r"\bGPL|General Public", "LGPL": r"LGPL|Lesser General",
                "BSD": r"\bBSD", "MIT": r"\bMIT\b|Expat", "Apache": r"Apache",
                "Artistic": r"Artistic", "public-domain": r"public.domain"}
    rows = []
    for path in sorted(Path("/usr/share/doc").glob("*/copyright")):
        raw = path.read_bytes().decode("utf-8", "replace")
        labels = [name for name, pattern in licences.items() if re.search(pattern, raw)]
        text = _clean(" ".join(raw.split("\n")[:40])).strip(" ")
        if labels and text and text != "?":
            rows.append(((text,), labels))
    array = np.empty(len(rows), dtype=object)
    array[:] = rows
    n = len(rows)
    stems["copyright"] = (_write_stem(folder, "copyright", list(licences), [("text", "text")],
                                      array, {"data": slice(0, n * 3 // 5),
                                              "dev": slice(n * 3 // 5, n * 4 // 5),
                                              "test": slice(n * 4 // 5, n)}), "GPL")
    if large:
        every = [p for p in packages if p[3] in sections]
        repeat = -(-720_000 // len(every))
        rows = np.empty(len(every) * repeat, dtype=object)
        rows[:] = [((_clean(p[0]), _clean(p[1])), [p[3]]) for p in every] * repeat
        stems["sections-100x"] = (_write_stem(folder, "sections-100x", sections, columns, rows,
                                              {"data": slice(0, 720_000),
                                               "test": slice(0, 1800)}), "python")
    return stems


#: A small launcher that runs a command and prints its rusage: started from this (large)
#: process, the command's own peak memory is not inflated by the fork of this one.
_LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
sys.stderr.write("\\nRUSAGE %r %r %r\\n" % (os.waitstatus_to_exitcode(status),
                                       usage.ru_utime + usage.ru_stime, usage.ru_maxrss))
"""


def measured(command, stdin=None, cwd=None, src=None):
    """Run ``command``; (stdout, stderr, returncode, CPU seconds, peak RSS in MB)."""
    environment = dict(os.environ, PYTHONPATH=str(src)) if src else None
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as source:
        result = subprocess.run([sys.executable, "-c", _LAUNCHER, *command], stdin=source,
                                capture_output=True, cwd=cwd, env=environment)
    err = result.stderr.decode("utf-8", "replace")
    err, _, tail = err.rpartition("\nRUSAGE ")
    code, cpu, rss = tail.split()
    return (result.stdout.decode("utf-8", "replace"), err, int(code), float(cpu),
            int(rss) / 1024)


def _scores(text):
    rows = [line.split() for line in text.splitlines() if line.strip()]
    return np.array(rows, dtype=float) if rows else np.empty((0, 0))


def compare(icsiboost, stem, flags, rounds, confboost, src=None):
    """One row of the table: both programs on one stem with one flag set."""
    folder = stem.parent
    name = stem.name
    base = ["-S", name, "-n", str(rounds), *flags]
    classify_only = [flag for flag in flags if flag in CLASSIFY_ONLY]
    base = [flag for flag in base if flag not in CLASSIFY_ONLY]
    theirs = measured([icsiboost, *base, "--model", f"{name}.icsi.shyp"], cwd=folder)
    ours = measured([*confboost, "icsiboost", *base, "--model", f"{name}.conf.shyp"],
                    cwd=folder, src=src)
    row = {"flags": shlex.join(flags) or "(defaults)", "status": (theirs[2], ours[2])}
    if theirs[2] != 0 or ours[2] != 0:
        row["error"] = (theirs[1].strip().splitlines() or [""])[-1][:80], \
            (ours[1].strip().splitlines() or [""])[-1][:80]
        return row
    lines = [[line for line in out.splitlines() if line.startswith(("rnd ", "OPTIMAL"))]
             for out in (theirs[0], ours[0])]
    row["rounds"] = max(len(lines[0]), len(lines[1]))
    row["differ"] = sum(a != b for a, b in zip(*lines, strict=False)) + abs(
        len(lines[0]) - len(lines[1]))
    row["same_shyp"] = ((folder / f"{name}.icsi.shyp").read_bytes()
                        == (folder / f"{name}.conf.shyp").read_bytes())
    test = folder / f"{name}.test"
    text_flags = [f for f in flags if f not in ("--optimal-iterations", *CLASSIFY_ONLY)]
    text_flags += classify_only
    text_flags = _without(text_flags, "--max-fmeasure")
    classified = [
        measured([icsiboost, "-S", name, "-C", *text_flags, "--model", f"{name}.icsi.shyp"],
                 test, folder),
        measured([*confboost, "icsiboost", "-S", name, "-C", *text_flags, "--model",
                  f"{name}.conf.shyp"], test, folder, src),
    ]
    a, b = _scores(classified[0][0]), _scores(classified[1][0])
    row["classify"] = (float(np.max(np.abs(a - b))) if a.shape == b.shape and a.size
                       else float("nan"))
    row["cpu"] = (theirs[3], ours[3])
    row["rss"] = (theirs[4], ours[4])
    row["classify_cost"] = ((classified[0][3], classified[0][4]),
                            (classified[1][3], classified[1][4]))
    return row


def _without(flags, flag):
    if flag in flags:
        at = flags.index(flag)
        return flags[:at] + flags[at + 2:]
    return flags


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--icsiboost", default=os.environ.get("ICSIBOOST", "icsiboost"),
                        help="icsiboost's executable (default: $ICSIBOOST, else on PATH)")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--only", nargs="*", help="stems to run (default: all but the large)")
    parser.add_argument("--flags", type=int, nargs="*", help="indices into FLAGS")
    parser.add_argument("--large", action="store_true",
                        help="also sections-100x (the memory figure; defaults flags only)")
    parser.add_argument("--large-rounds", type=int, default=10)
    parser.add_argument("--keep", help="build the stems in this folder and keep them")
    parser.add_argument("--src", help="run the confboost of another checkout's src folder "
                                      "(the figures before a change)")
    parser.add_argument("--doc-root", help="build changelogs from DOC_ROOT/*/changelog.Debian.gz")
    parser.add_argument("--man-root", help="build manpages from MAN_ROOT/[lang/]manN/*.gz")
    parser.add_argument("--python-root", nargs="*", default=(),
                        help="build pysource from the .py files under these folders")
    parser.add_argument("--no-archive", action="store_true",
                        help="skip the stems built from the package archive")
    arguments = parser.parse_args(argv)
    confboost = [sys.executable, "-m", "confboost.cli"]
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(arguments.keep or scratch)
        folder.mkdir(parents=True, exist_ok=True)
        stems = {} if arguments.no_archive else build_stems(folder, arguments.large)
        stems.update(raw_stems(folder, arguments.doc_root, arguments.man_root,
                               arguments.python_root))
        print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}; "
              f"icsiboost: {arguments.icsiboost}; rounds: {arguments.rounds}", flush=True)
        print("| corpus | flags | rounds differing | max classify difference | .shyp "
              "byte-identical | train CPU s (icsiboost / confboost) | train peak MB "
              "(icsiboost / confboost, ratio) |")
        print("|---|---|---|---|---|---|---|")
        for name, (stem, a_class) in stems.items():
            if arguments.only and name not in arguments.only:
                continue
            if name == "sections-100x":
                flag_sets, rounds = [[], ["-W", "2", "-N", "sgram"]], arguments.large_rounds
            else:
                chosen = arguments.flags if arguments.flags is not None else range(len(FLAGS))
                flag_sets, rounds = [FLAGS[i] for i in chosen], arguments.rounds
            for flags in flag_sets:
                flags = [flag.replace("{c}", a_class) for flag in flags]
                started = time.perf_counter()
                row = compare(arguments.icsiboost, stem, flags, rounds, confboost,
                              arguments.src)
                if "error" in row:
                    print(f"| {name} | `{row['flags']}` | exit {row['status']} | "
                          f"{row['error']} | | | |", flush=True)
                    continue
                print(f"| {name} | `{row['flags']}` | {row['differ']} of {row['rounds']} | "
                      f"{row['classify']:.1e} | {'yes' if row['same_shyp'] else 'no'} | "
                      f"{row['cpu'][0]:.2f} / {row['cpu'][1]:.2f} | "
                      f"{row['rss'][0]:.0f} / {row['rss'][1]:.0f} "
                      f"({row['rss'][1] / row['rss'][0]:.2f}x) |", flush=True)
                print(f"<!-- {name} {row['flags']}: load {os.getloadavg()[0]:.2f}; classify "
                      f"CPU/MB icsiboost "
                      f"{row['classify_cost'][0][0]:.2f}/{row['classify_cost'][0][1]:.0f}, "
                      f"confboost {row['classify_cost'][1][0]:.2f}/"
                      f"{row['classify_cost'][1][1]:.0f}; "
                      f"{time.perf_counter() - started:.0f} s -->", flush=True)


if __name__ == "__main__":
    main()
