"""Threads and start-up: the thread count, the TBB look-up, and a lazy ``import confboost``."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from confboost.utils.lazy_numba import TBB_LIBRARY
from confboost.utils.threads import SMALL_WORK, wanted_threads

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _python(code, **env):
    environ = dict(os.environ)
    environ.update(env, PYTHONPATH=SRC)
    return subprocess.run([sys.executable, "-c", code], env=environ, check=True,
                          capture_output=True, text=True).stdout.strip()


@pytest.mark.parametrize("n_jobs, available, work, expected", [
    (None, 8, None, 8), (None, 8, SMALL_WORK - 1, 1), (None, 8, SMALL_WORK, 8),
    (1, 8, None, 1), (3, 2, None, 2), (-1, 8, None, 8), (-2, 8, None, 7), (-20, 8, None, 1),
])
def test_wanted_threads(n_jobs, available, work, expected):
    assert wanted_threads(n_jobs, available, work) == expected


def test_tbb_is_looked_up_only_in_the_given_prefixes(tmp_path):
    # no library there: nothing loaded; a file that is no library: skipped, not raised
    code = ("from confboost.utils.lazy_numba import load_installed_tbb; "
            f"print(load_installed_tbb([{str(tmp_path)!r}]))")
    assert _python(code) == "None"
    name = TBB_LIBRARY.get(sys.platform)
    if name is None:
        pytest.skip("no pip TBB on this platform")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / name).write_bytes(b"not a shared library")
    assert _python(code) == "None"


def test_tbb_is_not_loaded_when_the_user_chose_another_layer():
    code = ("import sys; from confboost.utils.lazy_numba import load_installed_tbb; "
            "print(load_installed_tbb([sys.prefix]))")
    assert _python(code, NUMBA_THREADING_LAYER="omp") == "None"
    assert _python(code, NUMBA_THREADING_LAYER_PRIORITY="omp tbb workqueue") == "None"


def test_import_confboost_loads_nothing_heavy():
    code = ("import sys, confboost; print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'numpy', 'numba', 'sklearn', 'scipy', 'pandas', 'matplotlib', 'dask'}))")
    assert _python(code) == "[]"
    assert _python("import confboost; print(confboost.BoostClassifier.__name__)") == \
        "BoostClassifier"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        import confboost

        confboost.nope  # noqa: B018


def test_kernel_modules_load_numba_at_the_first_kernel_call():
    code = """
import pkgutil, sys, confboost.kernels, confboost.engine.learners, confboost.cli.app
for module in pkgutil.iter_modules(confboost.kernels.__path__):
    __import__("confboost.kernels." + module.name)
from confboost.cli.app import build_parser
build_parser()
print("numba" in sys.modules)
from confboost.kernels import stump_predict, histogram
import numpy as np
out = np.zeros((2, 1))
stump_predict.predict_stumps(np.ones((2, 1)), np.zeros(1, np.intp), np.zeros(1),
                             np.ones((1, 3, 1)), out)
import numba
from numba.core.registry import CPUDispatcher
print("numba" in sys.modules, isinstance(histogram.build_histogram, CPUDispatcher),
      stump_predict.prange is numba.prange, out.ravel().tolist())
"""
    assert _python(code).splitlines() == ["False", "True True True [1.0, 1.0]"]


def test_a_few_rows_score_the_same_without_numba():
    # the stumps' NumPy twin answers while numba is not loaded, the kernel once it is
    # compiled: the same scores, bit for bit
    code = """
import sys, numpy as np
from confboost import BoostClassifier
rng = np.random.default_rng(0)
X = rng.normal(size=(600, 5)); X[::7, 2] = np.nan
y = np.digitize(X[:, 0] + X[:, 1], [-0.5, 0.5])
booster = BoostClassifier(25, weak_learner="stump", calibration=None).fit(X, y)
import confboost.utils.lazy_numba as lazy, confboost.engine.learners.stump as stump
lazy._numba, numba = None, lazy._numba  # as in a process where no kernel has run yet
stump.predict_stumps, kernel = None, stump.predict_stumps  # the kernel must not run
numpy_scores = booster.decision_function(X[:40])
lazy._numba, stump.predict_stumps = numba, kernel
kernel(X[:1], np.zeros(1, np.intp), np.zeros(1), np.ones((1, 3, 3)), np.zeros((1, 3)))
print(lazy.kernel_ready(kernel), np.array_equal(numpy_scores, booster.decision_function(X[:40])),
      np.abs(numpy_scores).sum() > 0)
"""
    assert _python(code) == "True True True"


def test_serial_below_runs_small_calls_on_one_thread():
    from confboost.utils.lazy_numba import load_numba
    from confboost.utils.threads import SERIAL_CELLS, serial_below

    numba = load_numba()
    threads = numba.get_num_threads()
    with serial_below(SERIAL_CELLS - 1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == threads
    with serial_below(SERIAL_CELLS):
        assert numba.get_num_threads() == threads


def test_one_thread_applies_when_the_first_kernel_loads_numba():
    # numba not loaded when the blocks start: the first kernel inside loads it on one
    # thread, and the count numba starts with is back when the block ends
    code = """
import sys, numpy as np
from confboost.utils.threads import numba_threads, serial_below
from confboost.kernels.stump_predict import predict_stumps
counts = []
def run():
    out = np.zeros((3, 1))
    predict_stumps(np.ones((3, 1)), np.zeros(1, np.intp), np.zeros(1), np.ones((1, 3, 1)), out)
    counts.append(sys.modules["numba"].get_num_threads())
with numba_threads(None, work=10):
    assert "numba" not in sys.modules
    run()
counts.append(sys.modules["numba"].get_num_threads())
print(counts, sys.modules["numba"].config.NUMBA_NUM_THREADS)
"""
    counts, default = _python(code).rsplit(" ", 1)
    assert counts == f"[1, {default}]"
    code = code.replace("numba_threads(None, work=10)", "serial_below(10)")
    counts, default = _python(code).rsplit(" ", 1)
    assert counts == f"[1, {default}]"


class _Rounds:
    """A clock whose rounds take ``cost(threads)`` seconds, for a ``ThreadTuner``."""

    def __init__(self, cost):
        self.cost = cost
        self.now = 0.0
        self.tuner = None

    def clock(self):
        return self.now

    def run(self, rounds, start=0):
        """Call the tuner after each of ``rounds`` rounds; the thread counts they ran with."""
        used = []
        for round_index in range(start, start + rounds):
            used.append(self.tuner.threads)
            self.now += self.cost(self.tuner.threads)
            self.tuner(round_index, {})
        return used


def _tuner(cost, threads=8, adaptive=True):
    from confboost.utils.threads import ThreadTuner

    rounds = _Rounds(cost)
    applied = []
    rounds.tuner = ThreadTuner(threads, applied.append, adaptive=adaptive, clock=rounds.clock)
    return rounds, applied


def test_tuner_keeps_all_threads_when_they_are_faster():
    rounds, applied = _tuner(lambda threads: 1.0 / threads)
    used = rounds.run(12)
    # round 0 starts the clock; then the count behind in time runs, until each has had 3
    # rounds (8 threads, twice as fast, runs more of them); then 8 is kept
    assert used == [8, 8, 8, 4, 8, 4, 8, 8, 4, 8, 8, 8]
    assert rounds.tuner.choices == [8]
    assert applied[-1] == 8


def test_tuner_halves_while_fewer_threads_are_no_slower():
    # two free cores: 2 threads halve a round, every thread beyond costs a straggler's wait
    rounds, applied = _tuner(lambda threads: 1e-3 / threads + (5e-4 * threads if threads > 2
                                                               else 0.0))
    rounds.run(400)
    assert rounds.tuner.choices == [2]  # 8 -> 4 -> 2, then 2 beats 1
    assert rounds.tuner.threads == 2 and applied[-1] == 2


def test_tuner_prefers_fewer_threads_unless_more_gain_five_percent():
    rounds, _ = _tuner(lambda threads: 1.0 - 0.01 * threads, threads=2)
    rounds.run(10)
    assert rounds.tuner.choices == [1]
    rounds, _ = _tuner(lambda threads: 1.0 - 0.1 * threads, threads=2)
    rounds.run(10)
    assert rounds.tuner.choices == [2]


def test_tuner_probes_again_and_follows_the_load():
    load = {"busy": True}
    rounds, _ = _tuner(lambda threads: 0.01 * (threads if load["busy"] else 1.0 / threads),
                       threads=4)
    rounds.run(20)
    assert rounds.tuner.choices == [1] and rounds.tuner.threads == 1
    load["busy"] = False
    rounds.run(200, start=20)  # 1 s after settling, the tuner probes from 4 threads again
    assert rounds.tuner.choices[-1] == 4 and rounds.tuner.threads == 4


def test_probes_of_long_rounds_wait_period_rounds():
    # rounds of 0.4 s (a tree per class on 784 features): FIRST_PERIOD's second would
    # bring a probe every few rounds, each running PROBE_ROUNDS rounds on one thread; the
    # next probe waits PERIOD_ROUNDS rounds of the count settled on
    from confboost.utils.threads import ThreadTuner

    rounds, _ = _tuner(lambda threads: 0.4 if threads == 2 else 0.7, threads=2)
    used = rounds.run(130)
    assert rounds.tuner.choices == [2, 2]
    assert used.count(1) == 2 * ThreadTuner.PROBE_ROUNDS
    ones = [index for index, count in enumerate(used) if count == 1]
    assert max(b - a for a, b in zip(ones, ones[1:], strict=False)) > ThreadTuner.PERIOD_ROUNDS
    # settled on one thread (a busy machine), it probes on the period of seconds: a load
    # that has passed gives the threads back within a few rounds
    rounds, _ = _tuner(lambda threads: 0.7 if threads == 2 else 0.4, threads=2)
    used = rounds.run(40)
    assert rounds.tuner.choices[0] == 1 and len(rounds.tuner.choices) >= 3


def test_tuner_ignores_the_first_round_of_a_run_and_stays_inert_when_told():
    rounds, applied = _tuner(lambda threads: 1.0 / threads)
    rounds.run(1)
    rounds.run(1, start=5)  # not the round after the previous call: a new clock start
    rounds.run(1)  # round 0 of the next run
    assert rounds.tuner._pair is None and applied == []
    for adaptive, threads in ((False, 8), (True, 1)):
        rounds, applied = _tuner(lambda threads: 1.0, threads=threads, adaptive=adaptive)
        assert rounds.run(20) == [threads] * 20 and applied == []


@pytest.mark.skipif(__import__("numba").config.NUMBA_NUM_THREADS < 2, reason="one thread only")
def test_a_tuned_fit_is_the_model_of_one_thread(monkeypatch):
    # the tuner switches threads between rounds; the model must not notice
    import json

    import numpy as np

    from confboost import BoostClassifier
    from confboost.formats.model_json import model_document
    from confboost.utils.threads import ThreadTuner

    monkeypatch.setattr(ThreadTuner, "PROBE_ROUNDS", 1)
    monkeypatch.setattr(ThreadTuner, "FIRST_PERIOD", 0.0)  # probe again at once, every time
    monkeypatch.setattr("confboost.utils.threads.SMALL_WORK", 0)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2100, 4))
    y = np.digitize(X[:, 0] + 0.3 * rng.normal(size=2100), [-0.5, 0.5])
    documents, switches = [], []
    original = ThreadTuner._use
    monkeypatch.setattr(ThreadTuner, "_use", lambda self, count: (
        switches.append(count), original(self, count)))
    for n_jobs in (None, 1):
        clf = BoostClassifier(12, weak_learner="tree", max_leaves=4, calibration=None,
                              n_jobs=n_jobs).fit(X, y)
        document = model_document(clf)
        document["params"].pop("n_jobs")
        documents.append(json.dumps(document, sort_keys=True))
    assert 1 in switches and 2 in switches  # it ran rounds on both counts
    assert documents[0] == documents[1]


def test_tuner_drops_slower_threads_after_a_few_rounds():
    # a busy machine: rounds far shorter than PROBE_SECONDS, more threads slower; the
    # tuner must not spend PROBE_SECONDS on each count before dropping them
    rounds, _ = _tuner(lambda threads: 1e-4 * threads)
    used = rounds.run(40)
    assert rounds.tuner.choices == [1]
    # 8 vs 4, 4 vs 2, 2 vs 1 with 3 rounds of each: settled within 30 rounds, where
    # PROBE_SECONDS of each would take hundreds
    assert used[29:] == [1] * 11


def _remembering_tuner(cost, key, memory, threads=2):
    from confboost.utils.threads import ThreadTuner

    rounds = _Rounds(cost)
    rounds.tuner = ThreadTuner(threads, lambda count: None, clock=rounds.clock, key=key,
                               memory=memory)
    return rounds


def test_a_tuner_starts_where_the_last_one_on_the_same_work_settled():
    from confboost.utils.threads import TunerMemory

    memory = TunerMemory()
    first = _remembering_tuner(lambda threads: 0.01 * threads, "work", memory)
    first.run(20)
    assert first.tuner.choices == [1]
    # the next fit of the same work runs on 1 thread after its first round (which loads
    # and builds the run), without a probe, until the schedule left says to probe again
    second = _remembering_tuner(lambda threads: 0.01 * threads, "work", memory)
    second.now = first.now
    assert second.tuner.threads == 2  # nothing changes before the first round's call
    assert second.run(20) == [2] + [1] * 19 and second.tuner.choices == []
    # other work, or no key: a probe from the ceiling
    for key, memory_used in (("other work", memory), (None, memory)):
        other = _remembering_tuner(lambda threads: 0.01 * threads, key, memory_used)
        other.now = first.now
        assert other.run(20)[:2] == [2, 2] and other.tuner.choices == [1]


def test_probes_grow_rarer_whatever_they_choose():
    from confboost.utils.threads import ThreadTuner, TunerMemory

    # a busy machine where the choice is a coin toss: every probe doubles the wait for the
    # next, up to MAX_PERIOD, shared by the fits of the same work
    memory, flip = TunerMemory(), {"round": 0}

    def cost(threads):
        flip["round"] += 1
        return 0.01 * (threads if (flip["round"] // 50) % 2 else 1.0 / threads)

    probes = []
    for _ in range(5):
        rounds = _remembering_tuner(cost, "work", memory)
        rounds.now = probes[-1][1] if probes else 0.0
        rounds.run(2000)
        probes.append((len(rounds.tuner.choices), rounds.now))
    assert memory.get((2, "work"))[1] == ThreadTuner.MAX_PERIOD
    # over 100 s of rounds: probes at about 0, 1, 3, 7, 15, 31, 63, 123 s, not one a second
    assert probes[-1][1] > 100 and sum(count for count, _ in probes) <= 9


def test_tuner_memory_keeps_the_most_recent_works():
    from confboost.utils.threads import TunerMemory

    memory = TunerMemory()
    for key in range(TunerMemory.SIZE + 1):
        memory.put(key, 1, 1.0, 0.0)
    assert memory.get(0) is None and memory.get(TunerMemory.SIZE) == (1, 1.0, 0.0)
    memory.clear()
    assert memory.get(TunerMemory.SIZE) is None


@pytest.mark.skipif(__import__("numba").config.NUMBA_NUM_THREADS < 2, reason="one thread only")
def test_two_fits_of_the_same_data_run_on_the_same_threads(monkeypatch):
    import numpy as np

    from confboost import BoostClassifier
    from confboost.utils import threads

    monkeypatch.setattr(threads, "MEMORY", threads.TunerMemory())
    monkeypatch.setattr(threads, "SMALL_WORK", 0)
    monkeypatch.setattr(threads.ThreadTuner, "PROBE_ROUNDS", 1)
    monkeypatch.setattr(threads.ThreadTuner, "PROBE_SECONDS", 0.0)
    monkeypatch.setattr(threads.ThreadTuner, "FIRST_PERIOD", 1e9)  # no second probe
    tuners, used = [], []
    original_init, original_call = threads.ThreadTuner.__init__, threads.ThreadTuner.__call__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        tuners.append(self)
        used.append([])

    def call(self, round_index, record=None):  # the count the next round runs with
        stop = original_call(self, round_index, record)
        if self is tuners[-1]:
            used[-1].append(self.threads)
        return stop

    monkeypatch.setattr(threads.ThreadTuner, "__init__", init)
    monkeypatch.setattr(threads.ThreadTuner, "__call__", call)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 4))
    y = X[:, 0] + 0.3 * rng.normal(size=3000) > 0
    for calibration in ("temperature", None, "temperature"):
        BoostClassifier(30, weak_learner="tree", max_leaves=4, calibration=calibration
                        ).fit(X, y)
    first = tuners[0]
    assert len(first.choices) == 1 and len(tuners) == 3
    for tuner, counts in zip(tuners[1:], used[1:], strict=True):
        assert tuner.choices == [] and set(counts) == {first.choices[0]}


@pytest.mark.parametrize("warm_start", [False, True])
def test_n_jobs_one_holds_for_the_calibration_too(monkeypatch, warm_start):
    # the fit's last stage (the calibrator, fitted on the scores of the held-out rows or
    # carried from the short runs) runs inside the fit's thread count, not numba's default
    import numpy as np

    from confboost import BoostClassifier
    from confboost.training.fit_runs import Fit
    from confboost.utils.lazy_numba import load_numba
    from confboost.utils.threads import kernel_threads

    numba = load_numba()
    previous = numba.get_num_threads()
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)  # a notebook's default
    seen = []
    original = Fit.result
    monkeypatch.setattr(Fit, "result", lambda self, state: (
        seen.append(kernel_threads()), original(self, state))[1])
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 5))
    y = (X[:, 0] + 0.5 * rng.normal(size=600) > 0).astype(int)
    try:
        clf = BoostClassifier(8, weak_learner="tree", max_leaves=4, n_jobs=1,
                              warm_start=warm_start).fit(X, y)
        if warm_start:
            clf.set_params(n_estimators=12).fit(X, y)
        assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS  # restored after
    finally:
        numba.set_num_threads(previous)
    assert seen == [1] * (2 if warm_start else 1)
