"""What start-up leaves out and what it keeps: the ``confboost`` script's collector handling
(``cli.app.command_line``), which ``main`` never does, and the stumps' NumPy twin that
answers until the ``predict_stumps`` kernel is compiled (``lazy_numba.kernel_ready``)."""

import gc
import subprocess
import sys

import numpy as np
import pytest

from confboost.cli import main
from confboost.kernels.stump_predict import predict_stumps, predict_stumps_naive
from tests.helpers import child_env, write_stem


def _python(code, cwd):
    completed = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=child_env(),
                               capture_output=True, text=True, check=True)
    return completed.stdout.strip().splitlines()[-1]


def test_the_script_collects_again_once_numba_is_loaded(tmp_path):
    # the collector is off while the command imports, back on (with the loaded objects
    # frozen) once numba has loaded, and everything is frozen when the command ends
    write_stem(tmp_path)
    code = """
import gc, sys
from confboost.cli import command_line
from confboost.utils import lazy_numba
seen = []
lazy_numba.on_load(lambda numba: seen.append(gc.isenabled()))  # runs before the script's hook
sys.argv = ["confboost", "train", "-S", "t", "-n", "3"]
status = command_line()
print(status, seen, gc.isenabled(), gc.get_freeze_count() > 0)
"""
    assert _python(code, tmp_path) == "0 [False] True True"
    assert (tmp_path / "t.model.json").is_file()


def test_the_script_leaves_the_collector_as_it_found_it_when_off(tmp_path):
    code = """
import gc, sys
gc.disable()
from confboost.cli import command_line
sys.argv = ["confboost", "--version"]
try:
    command_line()
except SystemExit as stop:
    print(stop.code, gc.isenabled())
"""
    assert _python(code, tmp_path) == "0 False"


def test_main_leaves_the_collector_alone(tmp_path, capsys):
    stem = write_stem(tmp_path)
    frozen = gc.get_freeze_count()
    assert gc.isenabled()
    assert main(["train", "-S", str(stem), "-n", "3"]) == 0
    capsys.readouterr()
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_the_stumps_twin_adds_the_same_bits_as_the_kernel():
    # the twin sums each row's stumps from zero and adds the total once, as the kernel
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 6))
    X[::5, 3] = np.nan
    features = rng.integers(0, 6, size=40).astype(np.intp)
    thresholds = rng.normal(size=40)
    for k in (1, 3):
        values = rng.normal(size=(40, 3, k)) * 0.37
        start = rng.normal(size=(300, k))
        out = start.copy()
        predict_stumps(X, features, thresholds, values, out)
        assert np.array_equal(out, start + predict_stumps_naive(X, features, thresholds, values))


def test_kernel_ready_tells_a_compiled_kernel(tmp_path):
    code = """
import numpy as np
from confboost.kernels.stump_predict import predict_stumps
from confboost.utils.lazy_numba import kernel_ready, load_numba
before = kernel_ready(predict_stumps)
load_numba()
loaded = kernel_ready(predict_stumps)
predict_stumps(np.ones((2, 1)), np.zeros(1, np.intp), np.zeros(1), np.ones((1, 3, 1)),
               np.zeros((2, 1)))
print(before, loaded, kernel_ready(predict_stumps))
"""
    assert _python(code, tmp_path) == "False False True"


def test_serial_builds_give_the_parallel_builds_bits(tmp_path):
    # n_jobs=1 runs the parallel kernels' serial builds, n_jobs=2 their parallel builds
    # (no cells for the stump round's NumPy twins: every call goes to a kernel)
    code = """
import numpy as np
from confboost import BoostClassifier
from confboost.engine.schemes import mh
from confboost.engine.learners import stump
from confboost.utils import lazy_numba
lazy_numba.TWIN_CELLS = 0
rng = np.random.default_rng(5)
X = rng.normal(size=(3000, 8))
X[::9, 1] = np.nan
same = []
for y in (X[:, 0] + X[:, 2] > 0, np.digitize(X[:, 0] - X[:, 3], [-0.6, 0.6])):
    for learner in ("stump", "tree"):
        fits = [BoostClassifier(8, weak_learner=learner, n_jobs=n, calibration=None,
                                random_state=0).fit(X, y) for n in (1, 2)]
        same.append(np.array_equal(fits[0].decision_function(X), fits[1].decision_function(X))
                    and np.array_equal(fits[0].history_["z"], fits[1].history_["z"]))
kernel = stump.build_histogram_binary  # as the learner holds it: its LazyKernel
print(same, bool(kernel._serial.overloads and kernel._dispatcher.overloads))
"""
    assert _python(code, tmp_path) == "[True, True, True, True] True"


@pytest.mark.parametrize("first", [2, 1])
def test_one_thread_runs_the_build_the_process_has_made(tmp_path, first):
    # outside serial_kernels, a call on one thread runs the parallel build once it has run
    # in the process, else the serial one: a one-thread probe makes no second build
    code = f"""
import numba
import numpy as np
from confboost.kernels import tree_nodes
from confboost.utils.lazy_numba import kernel_ready, load_numba
kernel = tree_nodes.range_blocks  # its LazyKernel: held before numba loaded
load_numba()
rows, starts = np.arange(5, dtype=np.intp)[::-1].copy(), np.array([0, 2, 5], dtype=np.intp)
values = np.array([1, 2], dtype=np.uint8)
seen = [] if numba.config.NUMBA_NUM_THREADS > 1 else "one thread only"
for threads in ({first}, 1, 2) if seen == [] else ():
    numba.set_num_threads(threads)
    out = np.zeros(5, dtype=np.uint8)
    kernel(rows, starts, values, out)
    seen.append((out.tolist() == [2, 2, 2, 1, 1], kernel_ready(kernel),
                 kernel._serial is not None and bool(kernel._serial.overloads)))
print(seen)
"""
    seen = _python(code, tmp_path)
    if seen == "one thread only":
        pytest.skip(seen)
    assert seen == str([(True, True, first == 1)] * 3)


def test_resolved_is_the_build_a_call_would_run(tmp_path):
    # ``resolved`` makes the choice of ``LazyKernel.__call__`` once: the serial build inside
    # serial_kernels and on one thread before the parallel build ran, else the dispatcher;
    # a plain function is itself
    code = """
import numba
import numpy as np
from confboost.kernels import tree_nodes
from confboost.utils.lazy_numba import load_numba, resolved, serial_kernels
kernel = tree_nodes.range_blocks  # its LazyKernel: held before numba loaded
load_numba()
rows, starts = np.arange(5, dtype=np.intp)[::-1].copy(), np.array([0, 2, 5], dtype=np.intp)
values = np.array([1, 2], dtype=np.uint8)
seen = [resolved(len) is len]
with serial_kernels():
    seen.append(resolved(kernel) is kernel._serial)
numba.set_num_threads(1)
seen.append(resolved(kernel) is kernel._serial)
if numba.config.NUMBA_NUM_THREADS > 1:
    numba.set_num_threads(2)
    build = resolved(kernel)
    out = np.zeros(5, dtype=np.uint8)
    build(rows, starts, values, out)
    numba.set_num_threads(1)  # the parallel build has run: a call on one thread runs it too
    seen += [build is kernel._dispatcher, resolved(kernel) is kernel._dispatcher,
             out.tolist() == [2, 2, 2, 1, 1]]
print(seen)
"""
    seen = _python(code, tmp_path)
    assert seen in (str([True] * 3), str([True] * 6))


def test_the_weight_updates_serial_build_gives_its_parallel_builds_bits(tmp_path):
    # sums of many fixed chunks, each build on the same inputs; in a fresh process, where
    # the scheme holds the kernel as it was before numba loaded (its LazyKernel)
    code = """
import numpy as np
from confboost.engine.schemes import mh
from confboost.kernels.weight_update import LOSS_ARGMAX, LOSS_PAIRS
rng = np.random.default_rng(11)
n, k = 70_000, 3
blocks = rng.integers(0, 3, size=n).astype(np.uint8)
sign_index = rng.integers(0, 2, size=(n, k)).astype(np.uint8)
steps = rng.normal(size=(3, k))
factors = np.exp(rng.normal(size=(3, k, 2)) * 0.3)
start_weights = rng.random((n, k)) / (n * k)
start_scores = rng.normal(size=(n, k))
loss_weights = rng.random((n, k))
results = []
for build in (mh.apply_partition.serial, mh.apply_partition.dispatcher):
    for loss_kind in (LOSS_PAIRS, LOSS_ARGMAX):
        weights, scores = start_weights.copy(), start_scores.copy()
        sums = build(weights, sign_index, blocks, steps, factors, scores, loss_kind,
                     loss_weights)
        results.append((sums, weights, scores))
print([s[0] == p[0] and np.array_equal(s[1], p[1]) and np.array_equal(s[2], p[2])
       for s, p in zip(results[:2], results[2:])], results[0][0][1] > 0)
"""
    assert _python(code, tmp_path) == "[True, True] True"


def test_a_small_fit_bins_and_covers_with_the_twins_and_the_same_model(tmp_path):
    # a small fit takes the codes and the covers from the kernels' NumPy twins
    # (``lazy_numba.prefer_twin``), leaving those kernels uncompiled; once the kernels have
    # run in the process, the same fit goes through them, to the same model
    code = """
import numpy as np
from confboost import BoostClassifier
from confboost.data import bin_mapper
from confboost.explain import contributions
from confboost.utils.lazy_numba import kernel_ready
rng = np.random.default_rng(3)
X = rng.normal(size=(400, 5)).astype(np.float32)
X[::7, 2] = np.nan
y = np.digitize(X[:, 0] + X[:, 1], [-0.5, 0.5])
w = rng.random(400) + 0.5
def fit():
    model = BoostClassifier(6, calibration=None, random_state=0).fit(X, y, sample_weight=w)
    return model.decision_function(X), [h.cover for h in model.model_.hypotheses]
twins = fit()
untouched = not kernel_ready(bin_mapper.transform_codes) and not kernel_ready(
    contributions.block_cover)
bin_mapper.transform_codes(np.zeros((1, 1)), np.full((1, 256), np.inf), 255,
                           np.empty((1, 1), np.uint8))
contributions.block_cover(np.zeros(1, np.uint8), np.ones(1), False, np.empty(1))
kernels = fit()
print(untouched, kernel_ready(bin_mapper.transform_codes), np.array_equal(twins[0], kernels[0])
      and all(np.array_equal(a, b) for a, b in zip(twins[1], kernels[1], strict=True)))
"""
    assert _python(code, tmp_path) == "True True True"


def test_a_small_stump_fit_loads_no_numba_and_gives_the_kernels_model(tmp_path):
    # the stump round's twins (``kernels/stump_twins.py``) answer a small fit without
    # numba; with no cells left for the twins the same fits run the kernels, to the same
    # models (binary and 3 classes, a confidence mode of each kind, weights, missing values)
    code = """
import sys
import numpy as np
from confboost import BoostClassifier
from confboost.utils import lazy_numba
rng = np.random.default_rng(4)
X = rng.normal(size=(600, 5))
X[::7, 2] = np.nan
w = rng.random(600) + 0.5
def fits():
    out = []
    for y in (X[:, 0] > 0, np.digitize(X[:, 0] + X[:, 1], [-0.5, 0.5])):
        for confidence in ("real", "discrete", "abstain"):
            model = BoostClassifier(8, confidence=confidence, random_state=0).fit(
                X, y, sample_weight=w)
            out.append(model.decision_function(X))
    return out
twins = fits()
loaded = "numba" in sys.modules
lazy_numba.TWIN_CELLS = 0
kernels = fits()
print(loaded, lazy_numba.numba_loaded(),
      all(np.array_equal(a, b) for a, b in zip(twins, kernels, strict=True)))
"""
    assert _python(code, tmp_path) == "False True True"


def test_a_small_numeric_fit_imports_no_more_than_scikit_learns_base(tmp_path):
    # scikit-learn's estimator base brings SciPy and pandas with it (``sklearn.utils.fixes``):
    # the first fits, a prediction and probabilities add none of their modules, and none of
    # numba, Dask, matplotlib, scikit-learn's model selection and metrics, or confboost's
    # commands, Dask layer, plots and data sets (any of them another library's import
    # brought already is not confboost's)
    code = """
import sys
import numpy as np
import sklearn.base
def heavy():
    return {m for m in sys.modules if m.split(".")[0] in ("scipy", "pandas", "pyarrow")}
floor, before = heavy(), set(sys.modules)
from confboost import BoostClassifier
X = np.random.default_rng(0).normal(size=(500, 5))
y = (X[:, 0] > 0).astype(int)
BoostClassifier(5).fit(X, y).predict_proba(X)
BoostClassifier(5).fit(X, y + (X[:, 1] > 0)).predict(X)
never = ("numba", "llvmlite", "dask", "distributed", "matplotlib", "sklearn.model_selection",
         "sklearn.metrics", "statistics", "confboost.cli", "confboost.dask", "confboost.plot",
         "confboost.datasets", "confboost.experiments")
print(sorted(heavy() - floor), [name for name in never
                                 if name in sys.modules and name not in before])
"""
    assert _python(code, tmp_path) == "[] []"


def test_kernels_compiled_counts_what_numba_compiled(tmp_path):
    code = """
import sys
import numpy as np
from confboost.utils.lazy_numba import kernels_compiled, njit
before = kernels_compiled()
@njit()
def add_one(x):
    return x + 1
loaded = "numba" in sys.modules
add_one(1.0)
once = kernels_compiled()
add_one(2.0)
add_one(np.float32(1.0))
print(before, loaded, once, kernels_compiled())
"""
    # nothing compiled and numba not imported before the first call; then one build a
    # signature
    assert _python(code, tmp_path) == "0 False 1 2"
