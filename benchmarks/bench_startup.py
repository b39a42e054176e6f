"""Start-up, in fresh processes: ``import confboost``, import plus first tiny fits from the numba
cache (warm) and with an empty cache (the first run's compile time), and the command lines
``confboost train -S satimage -n 100`` and ``confboost classify`` of 40 lines with the model
it wrote, from a warm cache.

Wall seconds are medians of ``REPEATS`` fresh processes; CPU seconds (user + system, of the
child) say what the process cost when the machine is busy and wall time is not its own; the
peak resident memory is the child's own (``os.wait4``).
The satimage files are icsiboost's (``GOLDEN/satimage``, gunzipped into a temporary folder;
``GOLDEN`` is ``$CONFBOOST_GOLDEN/icsiboost``, else ``../shared/golden/icsiboost`` beside the
checkout); without them that row is left out. The command fits a ``Booster``: it imports
no scikit-learn.
"""

import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common

# as tests/cli/test_icsiboost.py: $CONFBOOST_GOLDEN is the folder that holds icsiboost/
GOLDEN = Path(os.environ.get("CONFBOOST_GOLDEN", common.ROOT.parent / "shared" / "golden")
              ) / "icsiboost"

SNIPPET = ("import time; t = time.perf_counter(); import numpy as np; from confboost import "
           "BoostClassifier; X = np.random.default_rng(0).normal(size=(500, 5)); "
           "c = BoostClassifier(5).fit(X, X[:, 0] > 0); c.predict(X); "
           "BoostClassifier(5).fit(X, (X[:, 0] > 0) + (X[:, 1] > 0)); "
           "print(time.perf_counter() - t)")
IMPORT = "import time; t = time.perf_counter(); import confboost; print(time.perf_counter() - t)"


def _env():
    return {"PYTHONPATH": str(common.ROOT / "src"), "PATH": "/usr/bin:/bin"}


def _timed(command, cwd=None, memory=False):
    """(stdout, wall seconds, CPU seconds) of one child process, and its peak resident MB
    when ``memory``."""
    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        child = subprocess.Popen(command, env=_env(), cwd=cwd, stdout=out,
                                 stderr=subprocess.DEVNULL, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            raise subprocess.CalledProcessError(child.returncode, command)
        out.seek(0)
        result = (out.read(), wall, usage.ru_utime + usage.ru_stime)
    return (*result, usage.ru_maxrss / 1024) if memory else result


def _fresh(snippet=SNIPPET):
    out, wall, cpu = _timed([sys.executable, "-c", snippet])
    return float(out.strip()), wall, cpu


def clear_cache():
    for cache in (common.ROOT / "src" / "confboost").rglob("__pycache__"):
        for path in cache.glob("*.nb[ic]"):
            path.unlink()


def _median(values):
    return sorted(values)[len(values) // 2]


def train_satimage(rounds=100):
    """Median (wall, CPU) seconds of ``confboost train -S satimage -n rounds``, warm cache,
    and median (wall s, CPU s, peak MB) of ``confboost classify`` on 40 test lines with the
    model it wrote."""
    source = GOLDEN / "satimage"
    if not (source / "satimage.names").exists():
        return None
    with tempfile.TemporaryDirectory() as folder:
        for name in ("satimage.names", "satimage.data.gz", "satimage.test.gz"):
            target = Path(folder) / name.removesuffix(".gz")
            if name.endswith(".gz"):
                with gzip.open(source / name, "rb") as raw:
                    target.write_bytes(raw.read())
            else:
                shutil.copy(source / name, target)
        command = [sys.executable, "-m", "confboost.cli", "train", "-S", "satimage",
                   "-n", str(rounds)]
        _timed(command, folder)  # the kernels this command uses, into the cache
        runs = [_timed(command, folder)[1:] for _ in range(common.REPEATS)]
        lines = (Path(folder) / "satimage.test").read_text().splitlines(keepends=True)
        (Path(folder) / "forty.data").write_text("".join(lines[:40]))
        classify = [sys.executable, "-m", "confboost.cli", "classify", "-S", "satimage",
                    "-i", "forty.data"]
        _timed(classify, folder)
        scored = [_timed(classify, folder, memory=True)[1:] for _ in range(common.REPEATS)]
    return ((_median([r[0] for r in runs]), _median([r[1] for r in runs])),
            tuple(_median([r[i] for r in scored]) for i in range(3)))


def run(cold=True):
    result = {}
    if cold:
        clear_cache()
        result["cold_in_process"], result["cold_process"], _ = _fresh()
    _fresh()
    runs = [_fresh() for _ in range(common.REPEATS)]
    result["warm_in_process"] = _median([r[0] for r in runs])
    result["warm_process"] = _median([r[1] for r in runs])
    result["warm_cpu"] = _median([r[2] for r in runs])
    imports = [_fresh(IMPORT) for _ in range(common.REPEATS)]
    result["import"] = _median([r[0] for r in imports])
    result["train_satimage_100"], result["classify_40"] = train_satimage() or (None, None)
    result["load"] = os.getloadavg()[0]
    return result


if __name__ == "__main__":
    print(run(cold="--cold" in sys.argv))
