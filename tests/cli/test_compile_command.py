"""``confboost compile``: the fits it runs cover each default learner, and the command reports
them (``estimators/compile_kernels.py``)."""

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
    assert main(["compile"]) == 0
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
