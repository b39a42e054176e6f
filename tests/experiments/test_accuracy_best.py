"""benchmarks/accuracy_best.py's scoring: per-example losses, the paired difference, and the
early-stopping callback's test loss at the validation-chosen round."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from confboost import BoostClassifier
from confboost.evaluation.metrics import hamming_loss

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "accuracy_best.py"
_SPEC = importlib.util.spec_from_file_location("accuracy_best", _PATH)
accuracy_best = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(accuracy_best)


def test_example_losses_average_to_the_error_and_the_hamming_loss():
    rng = np.random.default_rng(0)
    Y = rng.integers(0, 2, size=(30, 4))
    scores = rng.normal(size=(30, 4))
    per_example = accuracy_best.example_losses(Y, scores, None)
    assert per_example.shape == (30,)
    assert per_example.mean() == pytest.approx(hamming_loss(Y, (scores > 0).astype(int)))
    classes = np.array([3, 5, 7, 9])
    y = classes[rng.integers(0, 4, size=30)]
    errors = accuracy_best.example_losses(y, scores, classes)
    assert np.array_equal(errors, (classes[np.argmax(scores, axis=1)] != y).astype(float))


def test_paired_difference_is_the_mean_and_standard_error_of_the_differences():
    first = np.array([0.0, 1.0, 1.0, 0.5])
    second = np.array([0.0, 0.0, 1.0, 0.0])
    mean, error = accuracy_best.paired_difference(first, second)
    # differences 0, 1, 0, 0.5: mean 3/8, sample variance (Σ d² - 4 mean²)/3 = (1.25 - 9/16)/3
    assert mean == pytest.approx(0.375)
    assert error == pytest.approx(np.sqrt((1.25 - 9 / 16) / 3 / 4))


@pytest.mark.parametrize("multilabel", [False, True])
def test_the_callback_scores_the_model_cut_at_its_best_validation_round(multilabel, capsys):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(160, 4))
    Y = np.column_stack([X[:, 0] + 0.8 * rng.normal(size=160) > 0,
                         X[:, 1] - X[:, 2] + 0.8 * rng.normal(size=160) > 0]).astype(int)
    y = Y if multilabel else Y[:, 0] + 2 * Y[:, 1]
    fit, valid, test = slice(0, 80), slice(80, 120), slice(120, 160)
    data = (X[fit], y[fit], X[valid], y[valid], X[test], y[test])
    params = {"weak_learner": "tree", "max_leaves": 4, "learning_rate": 0.3}
    valid_loss, best, test_loss, _, test_losses = accuracy_best.run_confboost(
        params, data, 40, 40, 20)  # patience 40: every round is seen; progress every 20
    assert capsys.readouterr().err.count("  round ") == 2
    model = BoostClassifier(40, n_jobs=1, **{**accuracy_best.BASE, **params}).fit(X[fit],
                                                                                 y[fit])
    classes = None if multilabel else model.classes_
    staged = [accuracy_best.loss(y[valid], f, classes)
              for f in model.staged_decision_function(X[valid])]
    assert valid_loss == pytest.approx(min(staged))
    assert best == int(np.argmin(staged)) + 1  # the first round of least validation loss
    f_best = list(model.staged_decision_function(X[test]))[best - 1]
    expected = accuracy_best.example_losses(y[test], f_best, classes)
    assert np.allclose(test_losses, expected)
    assert test_loss == pytest.approx(expected.mean())
