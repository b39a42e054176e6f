"""Any finite input trains correctly, and the model is the same for every n_jobs."""

import json

import numba
import numpy as np
import pytest
import scipy.sparse

import confboost
from confboost import BoostClassifier
from confboost.data.bin_mapper import BinMapper
from confboost.formats.model_json import model_document


def test_huge_values_are_separated_by_a_finite_threshold(tmp_path):
    # values near the top of float64: the naive midpoint (a + b) / 2 overflows to inf
    X = np.array([[-1.7e308], [-1.6e308], [1.6e308], [1.7e308]])
    y = np.array([0, 0, 1, 1])
    thresholds = BinMapper().fit(X).thresholds_[0]
    assert np.isfinite(thresholds).all()
    assert (np.diff(thresholds) > 0).all() and thresholds[1] == 0.0
    clf = BoostClassifier(1).fit(X, y)
    assert clf.score(X, y) == 1.0
    stump = clf.model_.hypotheses[0]
    assert np.isfinite(stump.threshold)
    clf.save(tmp_path / "m.json")
    assert confboost.load(tmp_path / "m.json").score(X, y) == 1.0


@pytest.mark.parametrize("confidence", ["real", "discrete"])
def test_weights_whose_sum_overflows_train_as_their_distribution(confidence):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    weight = rng.uniform(0.5, 1.5, size=40)
    huge = BoostClassifier(5, confidence=confidence).fit(X, y, sample_weight=weight * 1e307)
    plain = BoostClassifier(5, confidence=confidence).fit(X, y, sample_weight=weight)
    assert np.isfinite(huge.history_["z"]).all() and np.isfinite(huge.model_.alphas).all()
    np.testing.assert_allclose(huge.decision_function(X), plain.decision_function(X),
                               rtol=1e-9, atol=1e-12)


def test_sparse_duplicates_are_summed_as_scipy_does():
    # row 0 holds (0, 0) twice: 0.4 + 0.4 = 0.8, the value toarray() and predict see
    data = np.array([0.4, 0.4, 0.2, 0.9, 0.1])
    columns = np.zeros(5, dtype=np.int32)
    X = scipy.sparse.csr_matrix((data, columns, np.array([0, 2, 3, 4, 5])), shape=(4, 1))
    assert not X.has_canonical_format
    y = np.array([1, 0, 1, 0])
    sparse = BoostClassifier(3).fit(X, y)
    dense = BoostClassifier(3).fit(X.toarray(), y)
    assert X.data.size == 5  # the caller's matrix is left as it was
    np.testing.assert_array_equal(sparse.decision_function(X), dense.decision_function(X))
    assert sparse.score(X, y) == 1.0


def _fits(y3, Y):
    for scheme in ("mh", "mr", "mo"):
        for target in ((y3, Y) if scheme != "mo" else (y3,)):
            yield scheme, target, "stump"
    yield "mr", Y, "tree"
    yield "mh", y3, "hamming_tree"


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="one thread only")
def test_the_model_is_bit_identical_for_every_n_jobs(monkeypatch):
    # 2100 rows: three chunks of every reduction over the examples (kernels/update.py);
    # MH's small updates would run on one thread whatever n_jobs: here they use n_jobs
    from contextlib import nullcontext

    monkeypatch.setattr("confboost.engine.schemes.mh.serial_below", lambda cells: nullcontext())
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2100, 4))
    y3 = np.digitize(X[:, 0] + 0.3 * rng.normal(size=2100), [-0.5, 0.5])
    Y = np.column_stack([y3 == 0, X[:, 1] > 0, X[:, 2] > 0.3]).astype(int)
    for scheme, target, learner in _fits(y3, Y):
        documents = []
        for n_jobs in (1, 2):
            clf = BoostClassifier(5, scheme=scheme, weak_learner=learner, max_leaves=4,
                                  n_jobs=n_jobs, random_state=0).fit(X, target)
            document = model_document(clf)
            document["params"].pop("n_jobs")
            documents.append(json.dumps(document, sort_keys=True))
        assert documents[0] == documents[1], (scheme, target.ndim, learner)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="one thread only")
def test_update_kernels_reduce_in_the_same_order_on_any_thread_count():
    from confboost.kernels.weight_update import (
        apply_partition,
        pair_learner_weights,
        update_pair_weights,
    )

    rng = np.random.default_rng(1)
    n, k = 5000, 3
    signs = np.where(rng.random((n, k)) < 0.4, 1, -1).astype(np.int8)
    blocks = rng.integers(0, 3, n).astype(np.uint8)
    values = rng.normal(size=(3, k))
    weights = rng.random((n, k))
    results = []
    previous = numba.get_num_threads()
    try:
        for threads in (1, 2):
            numba.set_num_threads(threads)
            w, scores = weights.copy(), np.zeros((n, k))
            factors = np.exp(np.stack([-values, values], axis=-1))
            total, loss = apply_partition(w, (signs < 0).astype(np.uint8), blocks, values,
                                          factors, scores, 0, np.full((n, k), 1.0 / (n * k)))
            v, d = weights.copy(), np.empty((n, k))
            z = update_pair_weights(v, signs, blocks, values, 0.7, np.zeros((n, k)))
            results.append((total, loss, z, pair_learner_weights(v, signs, d), w, v, d))
    finally:
        numba.set_num_threads(previous)
    for one, two in zip(*results, strict=True):
        assert np.array_equal(one, two)
