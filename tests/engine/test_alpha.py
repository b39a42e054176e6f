"""α by every method of §3, checked against closed forms and Theorem 2."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from confboost import BoostClassifier
from confboost.engine.alpha import block_margins, choose_alpha, exact_alpha, z_of_alpha
from confboost.engine.confidence import block_confidences
from confboost.kernels.criterion_numpy import ABSTAIN, DISCRETE, REAL


def _z_prime(alpha, mass, margins):
    return -np.sum(mass * margins * np.exp(-alpha * margins))


def test_exact_alpha_zeroes_the_derivative(rng):
    for _ in range(20):
        mass = rng.random(30)
        mass /= mass.sum()
        margins = rng.normal(size=30) * 2
        alpha, capped = exact_alpha(mass, margins, 1e-4)
        assert not capped
        assert abs(_z_prime(alpha, mass, margins)) < 1e-9
        # it is the minimum: a step either way only raises Z
        z = z_of_alpha(alpha, mass, margins)
        assert z <= z_of_alpha(alpha + 1e-3, mass, margins)
        assert z <= z_of_alpha(alpha - 1e-3, mass, margins)


def test_exact_alpha_equals_closed_form_for_discrete_and_abstaining(rng):
    """§3.1/§3.3: for h in {-1,0,+1}, α = ½ ln(W+/W-)."""
    margins = np.array([1.0, -1.0, 0.0, 1.0, -1.0])
    mass = rng.random(5)
    w_plus = mass[margins > 0].sum()
    w_minus = mass[margins < 0].sum()
    alpha, _ = exact_alpha(mass, margins, 1e-9)
    assert alpha == pytest.approx(0.5 * np.log(w_plus / w_minus), rel=1e-9)
    w_zero = mass[margins == 0].sum()
    assert z_of_alpha(alpha, mass, margins) == pytest.approx(
        w_zero + 2 * np.sqrt(w_plus * w_minus), rel=1e-9)


def test_one_signed_margins_are_capped_and_reported():
    alpha, capped = exact_alpha(np.array([0.5, 0.5]), np.array([1.0, 2.0]), 1e-3)
    assert capped and alpha == pytest.approx(0.5 * np.log1p(1e3) / 2.0)
    alpha, capped = exact_alpha(np.array([0.5, 0.5]), np.array([-1.0, 0.0]), 1e-3)
    assert capped and alpha < 0


@pytest.mark.parametrize("mode", [REAL, DISCRETE, ABSTAIN])
def test_exact_never_worse_than_freund_schapire(rng, mode):
    for _ in range(30):
        pos = rng.random((3, 2))
        neg = rng.random((3, 2))
        total = pos.sum() + neg.sum()
        pos, neg = pos / total, neg / total
        values = block_confidences(pos, neg, np.array([False, False, True]), mode, 1e-3)
        mass, margins = block_margins(pos, neg, values)
        exact, _ = choose_alpha("exact", mode, pos, neg, values, 1e-3)
        freund, _ = choose_alpha("freund-schapire", mode, pos, neg, values, 1e-3)
        assert z_of_alpha(exact, mass, margins) <= z_of_alpha(freund, mass, margins) + 1e-12


def test_freund_schapire_conservative_abstaining_variant():
    pos = np.array([[0.3], [0.1], [0.1]])
    neg = np.array([[0.1], [0.2], [0.2]])
    values = np.array([[1.0], [-1.0], [0.0]])  # block 2 abstains
    alpha, _ = choose_alpha("freund-schapire", ABSTAIN, pos, neg, values, 0.0)
    agree, disagree, abstained = 0.3 + 0.2, 0.1 + 0.1, 0.3
    assert alpha == pytest.approx(0.5 * np.log((agree + abstained / 2)
                                               / (disagree + abstained / 2)))
    exact, _ = choose_alpha("auto", ABSTAIN, pos, neg, values, 0.0)
    assert exact == pytest.approx(0.5 * np.log(agree / disagree))


@pytest.mark.parametrize("confidence", ["real", "discrete", "abstain"])
def test_theorem_2_after_exact_alpha(confidence):
    """With exact α, Z'(α_t) = 0, so h_t is uncorrelated with the labels under D_{t+1}."""
    from confboost.data.dataset import Dataset
    from confboost.engine.confidence import default_smoothing
    from confboost.engine.learners import StumpLearner
    from confboost.engine.schemes.mh import MHScheme
    from confboost.kernels.criterion_numpy import mode_code

    X, y = load_breast_cancer(return_X_y=True)
    X = X.copy()
    X[::13, 3] = np.nan
    signs = np.where(y == 1, 1, -1).astype(np.int8)[:, None]
    dataset = Dataset.from_array(X, 255)
    mode = mode_code(confidence)
    smoothing = default_smoothing(np.ones(len(y)), 1)
    scheme = MHScheme(signs, np.ones(len(y)), single_label=False)
    learner = StumpLearner(mode, smoothing)
    for _ in range(10):
        fit = learner.fit(dataset, scheme.learner_weights, scheme.labels)
        alpha, capped = scheme.choose_alpha(fit, "exact", mode, smoothing)
        assert not capped
        scheme.update(fit, alpha)
        h = fit.hypothesis.values[fit.train_blocks]
        correlation = float(np.sum(scheme.weights * signs * h))
        assert abs(correlation) < 1e-9


def test_alpha_methods_change_the_model_and_bounds_hold():
    X, y = load_breast_cancer(return_X_y=True)
    finals = {}
    for method in ("auto", "exact", "freund-schapire"):
        clf = BoostClassifier(30, alpha=method).fit(X, y)
        assert np.all(clf.history_["train_loss"] <= clf.history_["bound"])
        finals[method] = clf.history_["bound"][-1]
    # the exact α minimises every Z_t, so its bound falls at least as fast as α = 1's
    assert finals["exact"] <= finals["auto"] * (1 + 1e-9)
