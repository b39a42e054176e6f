"""confboost's BoosTexter commands against icsiboost's own outputs, round by round.

For each stem of the reference outputs (``../shared/golden/icsiboost``, or
``$CONFBOOST_GOLDEN/icsiboost``; see its README), in a temporary folder (the reference files
are gunzipped there, never in place):

1. ``confboost train`` with icsiboost's command line; the rounds whose printed ``test=`` or
   ``train=`` differ from icsiboost's ``train.log`` are counted (and those whose ``wh-err`` /
   ``th-err`` differ, reported apart);
2. ``confboost classify < STEM.test`` with that model, against icsiboost's ``classify.out``:
   whether the gold columns agree, and the largest score difference;
3. the same with icsiboost's own model: ``confboost import-shyp`` of ``STEM.shyp`` then
   ``classify`` (and ``classify --posteriors`` where icsiboost's is there).

Usage::

    python benchmarks/icsiboost_compare.py                 # all stems, all rounds
    python benchmarks/icsiboost_compare.py --stems satimage --rounds 20
    python benchmarks/icsiboost_compare.py --src /other/checkout/src   # another confboost
    python benchmarks/icsiboost_compare.py --extra=--text=confboost     # confboost's tokenizer

``--src`` runs the commands of another checkout (``--src ../old-checkout/src``: its
figures beside this one's). ``--extra`` adds options to ``train`` and
``import-shyp``.
"""

import argparse
import gzip
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

#: stem -> (rounds icsiboost trained, the text options of its command line)
STEMS = {
    "satimage": (300, []),
    "reuters10": (100, ["-W", "2", "-N", "ngram"]),
    "reuters-raw": (100, ["-W", "2", "-N", "ngram"]),
}


def golden_dir():
    """The folder of icsiboost's reference outputs, or None where there is none."""
    env = os.environ.get("CONFBOOST_GOLDEN", "").strip()
    candidates = [Path(env)] if env else [ROOT.parent / "shared" / "golden",
                                          ROOT / "shared" / "golden"]
    for candidate in candidates:
        if (candidate / "icsiboost").is_dir():
            return candidate / "icsiboost"
    return None


def unpack(source, target):
    """Copy a stem's reference files into ``target``, gunzipped."""
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.iterdir()):
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as stream:
                (target / path.stem).write_bytes(stream.read())
        else:
            (target / path.name).write_bytes(path.read_bytes())


def confboost(src, arguments, stdin=None):
    """Run the ``confboost`` command of checkout ``src``; its stdout (raises on failure)."""
    environment = dict(os.environ, PYTHONPATH=str(src))
    command = [sys.executable, "-c", "import sys; from confboost.cli import main; "
               "sys.exit(main())", *arguments]
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as stream:
        result = subprocess.run(command, stdin=stream, capture_output=True, env=environment)
    if result.returncode != 0:
        raise RuntimeError(f"confboost {shlex.join(arguments)} failed:\n"
                           f"{result.stderr.decode()}")
    return result.stdout.decode(), result.stderr.decode()


def round_values(text):
    """{round: {name: printed value}} of ``rnd N: name= value ...`` lines."""
    rounds = {}
    for line in text.splitlines():
        if not line.startswith("rnd "):
            continue
        head, _, rest = line.partition(":")
        fields = rest.split()
        values = {fields[i].rstrip("="): fields[i + 1]
                  for i in range(0, len(fields) - 1) if fields[i].endswith("=")}
        rounds[int(head.split()[1])] = values
    return rounds


def compare_rounds(ours, theirs, rounds):
    """Rounds (1..rounds) whose test/train differ, and those whose wh-err/th-err differ."""
    errors, bounds = [], []
    for r in range(1, rounds + 1):
        a, b = ours.get(r, {}), theirs[r]
        if any(a.get(name) != b[name] for name in ("test", "train")):
            errors.append(r)
        if any(a.get(name) != b[name] for name in ("wh-err", "th-err")):
            bounds.append(r)
    return errors, bounds


def compare_classify(ours, theirs, k):
    """(gold columns equal, largest score difference) of two ``-C`` outputs."""
    a = np.array([line.split() for line in ours.splitlines()], dtype=np.float64)
    b = np.array([line.split() for line in theirs.splitlines()], dtype=np.float64)
    if a.shape[0] != b.shape[0]:
        return False, np.inf
    gold = a.shape[1] == 2 * k and np.array_equal(a[:, :k], b[:, :k])
    return gold, float(np.max(np.abs(a[:, -k:] - b[:, -k:])))


def run_stem(name, source, work, src, rounds, extra):
    full_rounds, options = STEMS[name]
    rounds = rounds or full_rounds
    unpack(source, work)
    stem = str(work / name)
    k = len(next(line for line in (work / f"{name}.names").read_text().splitlines()
                  if line.strip() and not line.startswith("|")).split(","))
    start = time.perf_counter()
    out, _ = confboost(src, ["train", "-S", stem, "-n", str(rounds), *options, *extra])
    seconds = time.perf_counter() - start
    theirs = round_values((work / "train.log").read_text())
    ours = round_values(out)
    errors, bounds = compare_rounds(ours, theirs, rounds)
    report = {"rounds": rounds, "seconds": seconds, "errors": errors, "bounds": bounds,
              "last": {name: (ours[rounds][name], theirs[rounds][name])
                       for name in ("test", "train")}}
    reference = (work / "classify.out").read_text()
    if rounds == full_rounds:
        out, _ = confboost(src, ["classify", "-S", stem], stdin=work / f"{name}.test")
        report["own"] = compare_classify(out, reference, k)
    confboost(src, ["import-shyp", "-S", stem, "--shyp", f"{stem}.shyp", "-o",
                    f"{stem}.imported.json", *options, *extra])
    out, err = confboost(src, ["classify", "-S", stem, "-m", f"{stem}.imported.json"],
                         stdin=work / f"{name}.test")
    report["imported"] = compare_classify(out, reference, k)
    if (work / "classify_posteriors.out").exists():
        out, _ = confboost(src, ["classify", "-S", stem, "-m", f"{stem}.imported.json",
                                 "--posteriors"], stdin=work / f"{name}.test")
        report["posteriors"] = compare_classify(
            out, (work / "classify_posteriors.out").read_text(), k)
    report["warnings"] = [line for line in err.splitlines() if "warning" in line.lower()]
    return report


def _rounds_text(rounds):
    if not rounds:
        return "0"
    shown = ", ".join(map(str, rounds[:8])) + (", ..." if len(rounds) > 8 else "")
    return f"{len(rounds)} ({shown})"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stems", default=",".join(STEMS),
                        help="comma-separated stems (default: all)")
    parser.add_argument("--rounds", type=int, default=None,
                        help="rounds to train (default: as many as icsiboost; the classify "
                             "comparison of the trained model needs them all)")
    parser.add_argument("--src", default=str(ROOT / "src"),
                        help="the src folder of the confboost to run (default: this checkout)")
    parser.add_argument("--extra", default="",
                        help="extra options for train and import-shyp (shell-quoted)")
    arguments = parser.parse_args(argv)
    golden = golden_dir()
    if golden is None:
        print("no icsiboost reference outputs: set CONFBOOST_GOLDEN (the folder holding "
              "icsiboost/) or put them in ../shared/golden")
        return 1
    extra = shlex.split(arguments.extra)
    print(f"confboost from {arguments.src}; references {golden}; extra options {extra}")
    with tempfile.TemporaryDirectory() as directory:
        for name in arguments.stems.split(","):
            report = run_stem(name, golden / name, Path(directory) / name, arguments.src,
                              arguments.rounds, extra)
            print(f"{name}: {report['rounds']} rounds in {report['seconds']:.1f} s")
            print(f"  rounds whose test/train error differ: {_rounds_text(report['errors'])}")
            print(f"  rounds whose wh-err/th-err differ:    {_rounds_text(report['bounds'])}")
            print("  last round, confboost / icsiboost: " + ", ".join(
                f"{name} {a} / {b}" for name, (a, b) in report["last"].items()))
            if "own" in report:
                gold, diff = report["own"]
                print(f"  classify, confboost's model: gold columns "
                      f"{'equal' if gold else 'DIFFER'}, largest score difference {diff:.3g}")
            gold, diff = report["imported"]
            print(f"  classify, icsiboost's model (import-shyp): gold columns "
                  f"{'equal' if gold else 'DIFFER'}, largest score difference {diff:.3g}")
            if "posteriors" in report:
                gold, diff = report["posteriors"]
                print(f"  classify --posteriors, icsiboost's model: gold columns "
                      f"{'equal' if gold else 'DIFFER'}, largest difference {diff:.3g}")
            for line in report["warnings"]:
                print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
