"""Threads and start-up: the wait policy, the thread count, and a lazy ``import confboost``."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from confboost._threads import SMALL_WORK, YIELDING_WAIT, prefer_yielding_wait, wanted_threads

SRC = str(Path(__file__).resolve().parent.parent / "src")


def _python(code, **env):
    environ = {k: v for k, v in os.environ.items() if k not in YIELDING_WAIT}
    environ.update(env, PYTHONPATH=SRC)
    return subprocess.run([sys.executable, "-c", code], env=environ, check=True,
                          capture_output=True, text=True).stdout.strip()


def test_yielding_wait_fills_only_what_the_user_left_unset():
    environ = {"OMP_WAIT_POLICY": "ACTIVE"}
    added = prefer_yielding_wait(environ)
    assert environ == {"OMP_WAIT_POLICY": "ACTIVE", "KMP_BLOCKTIME": "0"}
    assert added == {"KMP_BLOCKTIME": "0"}
    assert prefer_yielding_wait(environ) == {}


@pytest.mark.parametrize("n_jobs, available, work, expected", [
    (None, 8, None, 8), (None, 8, SMALL_WORK - 1, 1), (None, 8, SMALL_WORK, 8),
    (1, 8, None, 1), (3, 2, None, 2), (-1, 8, None, 8), (-2, 8, None, 7), (-20, 8, None, 1),
])
def test_wanted_threads(n_jobs, available, work, expected):
    assert wanted_threads(n_jobs, available, work) == expected


def test_kernels_set_the_wait_policy_before_openmp_loads():
    code = ("import os, confboost.kernels.histogram; "
            "print(os.environ.get('OMP_WAIT_POLICY'), os.environ.get('KMP_BLOCKTIME'))")
    assert _python(code) == "PASSIVE 0"
    assert _python(code, OMP_WAIT_POLICY="ACTIVE") == "ACTIVE 0"


def test_import_confboost_loads_nothing_heavy():
    code = ("import sys, confboost; print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'numpy', 'numba', 'sklearn', 'scipy', 'pandas', 'matplotlib', 'dask'}))")
    assert _python(code) == "[]"
    assert _python("import confboost; print(confboost.BoostClassifier.__name__)") == \
        "BoostClassifier"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        import confboost

        confboost.nope  # noqa: B018


def test_serial_below_runs_small_calls_on_one_thread():
    import numba

    from confboost._threads import SERIAL_CELLS, serial_below

    threads = numba.get_num_threads()
    with serial_below(SERIAL_CELLS - 1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == threads
    with serial_below(SERIAL_CELLS):
        assert numba.get_num_threads() == threads
