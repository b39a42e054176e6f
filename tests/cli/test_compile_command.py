"""``confboost compile``: the fits it runs cover each default learner, and the command reports
them (``estimators/compile_kernels.py``); its worker processes save to numba's cache one at a
time."""

import fcntl

import numpy as np
import pytest

from confboost.cli.app import main
from confboost.estimators import compile_kernels as compiling
from confboost.training.params import default_learner


def test_the_fits_grow_every_default_learner():
    learners = set()
    for _, n_examples, n_features, n_classes, _ in compiling.FITS:
        X, y = compiling._data(n_examples, n_features, n_classes, np.float32)
        assert X.dtype == np.float32 and X.shape == (n_examples, n_features)
        assert np.array_equal(np.unique(y), np.arange(n_classes))
        labels = n_classes if n_classes > 2 else 1
        learners.add(default_learner("auto", n_examples, n_features, labels, "mh"))
    assert learners == {"tree", "label_trees", "stump"}


def test_the_command_runs_every_fit_on_one_thread_and_on_all(monkeypatch, capsys):
    fitted = []

    class Recorder:
        def __init__(self, n_jobs, **params):
            self.n_jobs, self.params = n_jobs, params

        def fit(self, X, y):
            fitted.append((self.n_jobs, X.shape, X.dtype, self.params))
            return self

        def predict_proba(self, X):
            return np.zeros((len(X), 2))

    monkeypatch.setattr("confboost.estimators.classifier.BoostClassifier", Recorder)
    assert main(["compile", "--processes", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(fitted) == len(out) - 1 == 2 * 2 * len(compiling.FITS)
    assert {n_jobs for n_jobs, *_ in fitted} == {1, -1}
    assert {dtype for _, _, dtype, _ in fitted} == {np.dtype(np.float32), np.dtype(np.float64)}
    assert out[0].startswith("trees, float64, one thread: ")
    assert out[-1].startswith("compiled the default fits' kernels in ")


def test_help():
    with pytest.raises(SystemExit) as stop:
        main(["compile", "--help"])
    assert stop.value.code == 0


def test_the_units_are_each_fit_on_one_thread_and_on_all():
    units = compiling.units()
    assert len(units) == len(set(units)) == 2 * len(compiling.FITS)
    assert units[:2] == [(compiling.FITS[0][0], 1), (compiling.FITS[0][0], -1)]


def test_processes_must_be_positive():
    with pytest.raises(ValueError, match="processes must be at least 1"):
        compiling.compile_kernels(processes=0)


def test_workers_can_lock_numbas_cache_saves():
    """numba's cache file class still has the ``save`` the workers wrap: a numba that moved
    it fails here, not by running ``confboost compile`` in one process without a word."""
    assert compiling._can_lock()


def test_a_workers_saves_hold_the_shared_lock(tmp_path, monkeypatch):
    from numba.core.caching import IndexDataCacheFile

    lock = tmp_path / "cache.lock"
    saved = []

    def save(self, key, data):
        with open(lock, "a") as other:  # another open file: flock refuses it while held
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        saved.append((self, key, data))
        return "saved"

    monkeypatch.setattr(IndexDataCacheFile, "save", save)  # restored after the test
    compiling._locked_cache_saves(str(lock))
    assert IndexDataCacheFile.save is not save
    assert IndexDataCacheFile.save("cache", "key", "data") == "saved"
    assert saved == [("cache", "key", "data")]
    with open(lock, "a") as free:  # released after the save
        fcntl.flock(free, fcntl.LOCK_EX | fcntl.LOCK_NB)


@pytest.mark.slow
def test_worker_processes_fill_an_empty_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # the spawned workers' cache
    reported = []
    compiling.compile_kernels(lambda *fit: reported.append(fit), processes=2)
    assert sorted((name, n_jobs) for name, n_jobs, _ in reported) == sorted(
        (f"{name}, {dtype}", n_jobs) for name, n_jobs in compiling.units()
        for dtype in ("float64", "float32"))
    assert any(tmp_path.rglob("*.nbi")) and any(tmp_path.rglob("*.nbc"))
