"""Using confboost leaves the process as it found it: environment, warning filters, other
libraries' thread limits, numba's thread count; and its kernels run on the threading layer
meant for them (TBB when the ``tbb`` package is installed).

Each check runs in a fresh interpreter: OpenMP reads its settings and numba picks its
threading layer once per process, so only a process in which nothing else ran first shows
what confboost itself does.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")

#: Runs in the child: the process's shared state before and after confboost fits and
#: predicts with stumps and trees, n_jobs default and 2, binary and multiclass.
STATE_SCRIPT = """
import json, os, sys, warnings
import numpy as np
import sklearn  # imported first: its own settings at import are not confboost's
from threadpoolctl import threadpool_info

def state():
    pools = sorted((p["filepath"], p["num_threads"]) for p in threadpool_info())
    return {"environ": dict(os.environ), "filters": [repr(f) for f in warnings.filters],
            "pools": pools}

before = state()
import numba
threads = numba.config.NUMBA_NUM_THREADS  # read without starting numba's threads
from confboost import BoostClassifier
rng = np.random.default_rng(0)
X = rng.normal(size=(3000, 6))
for y in (X[:, 0] > 0, np.digitize(X[:, 1], [-0.5, 0.5])):
    for params in ({"weak_learner": "stump"}, {"weak_learner": "tree", "max_leaves": 4}):
        for n_jobs in (None, 2):
            clf = BoostClassifier(6, n_jobs=n_jobs, **params).fit(X, y)
            clf.predict(X); clf.predict_proba(X)
after = state()
new_pools = [p for p in after["pools"] if p[0] not in {q[0] for q in before["pools"]}]
after["pools"] = [p for p in after["pools"] if p not in new_pools]
print(json.dumps({"before": before, "after": after, "new_pools": new_pools,
                  "threads": [threads, numba.get_num_threads()],
                  "layer": numba.threading_layer()}))
"""


def _run(script, **env):
    environ = {**os.environ, "PYTHONPATH": SRC, **env}
    out = subprocess.run([sys.executable, "-c", script], env=environ, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def fitted_state():
    pytest.importorskip("threadpoolctl")
    return _run(STATE_SCRIPT)


def test_fits_leave_the_environment_as_it_was(fitted_state):
    before, after = fitted_state["before"]["environ"], fitted_state["after"]["environ"]
    changed = {name for name in before.keys() | after.keys()
               if before.get(name) != after.get(name)}
    assert changed == set()


def test_fits_leave_the_warning_filters_as_they_were(fitted_state):
    assert fitted_state["after"]["filters"] == fitted_state["before"]["filters"]


def test_fits_leave_other_libraries_thread_limits_as_they_were(fitted_state):
    assert fitted_state["after"]["pools"] == fitted_state["before"]["pools"]
    # a runtime the fits loaded (OpenMP, when numba runs on it) keeps its default count
    for _, count in fitted_state["new_pools"]:
        assert count == os.cpu_count() or count == fitted_state["threads"][0]


def test_fits_restore_numba_s_thread_count(fitted_state):
    configured, now = fitted_state["threads"]
    assert now == configured


def test_fits_restore_a_thread_count_the_user_set():
    script = ("import json, numba, numpy as np\n"
              "from confboost import BoostClassifier\n"
              "import confboost.kernels\n"
              "numba.set_num_threads(1)\n"
              "X = np.random.default_rng(0).normal(size=(3000, 6))\n"
              "for n_jobs in (None, 2):\n"
              "    BoostClassifier(4, n_jobs=n_jobs, weak_learner='tree').fit(X, X[:, 0] > 0)\n"
              "print(json.dumps(numba.get_num_threads()))")
    assert _run(script) == 1


def _tbb_installed():
    from confboost.utils.lazy_numba import TBB_LIBRARY

    name = TBB_LIBRARY.get(sys.platform)
    return name is not None and (Path(sys.prefix) / "lib" / name).is_file()


@pytest.mark.skipif(not _tbb_installed(), reason="the tbb package is not installed here")
def test_kernels_run_on_tbb_when_it_is_installed(fitted_state):
    assert fitted_state["layer"] == "tbb"


def test_a_layer_the_user_chose_is_kept():
    script = STATE_SCRIPT.replace("import sklearn", "import sklearn, threadpoolctl")
    assert _run(script, NUMBA_THREADING_LAYER="workqueue")["layer"] == "workqueue"
