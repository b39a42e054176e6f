"""The stump round's NumPy twins give their kernels' results to the bit (``array_equal``, and
``==`` on the sums), on weights of many magnitudes, missing values, ties and every mode."""

from types import SimpleNamespace

import numpy as np
import pytest

from confboost.engine.learners.stump import MASS_MIN_LABELS, StumpLearner
from confboost.kernels.histogram import build_histogram, build_histogram_binary
from confboost.kernels.stump_split import best_stump, best_thresholds
from confboost.kernels.stump_twins import (
    apply_partition_twin,
    best_stump_twin,
    best_thresholds_twin,
    histogram_twin,
    stump_blocks_twin,
)
from confboost.kernels.weight_update import (
    LOSS_ARGMAX,
    LOSS_PAIRS,
    REDUCTION_CHUNK,
    apply_partition,
    stump_blocks,
)
from confboost.utils.dtypes import ABSTAIN, DISCRETE, MISSING_BIN, REAL, REAL_ABSTAIN
from confboost.utils.lazy_numba import load_numba


def _codes(rng, n_features, n_samples, n_bins):
    codes = rng.integers(0, n_bins, size=(n_features, n_samples)).astype(np.uint8)
    codes[:, ::9] = MISSING_BIN
    return codes


def _weights(rng, shape):
    # magnitudes over twelve decades: a different order of adds would change the bits
    return rng.random(shape) * 10.0 ** rng.integers(-12, 0, size=shape)


@pytest.mark.parametrize("k", [1, 3])
def test_the_histogram_twin_sums_as_the_kernels(k):
    rng = np.random.default_rng(k)
    codes = _codes(rng, 7, 3000, 40)
    weights = _weights(rng, (3000, k))
    sign_index = rng.integers(0, 2, size=(3000, k)).astype(np.uint8)
    hist = np.full((7, 256, k, 2), np.nan)
    twin = np.full((7, 256, k, 2), np.nan)
    if k == 1:
        build_histogram_binary(codes, weights[:, 0], sign_index[:, 0], hist)
    else:
        build_histogram(codes, weights, sign_index, hist)
    histogram_twin(codes, weights, sign_index, twin)
    assert np.array_equal(hist, twin) and hist[:, MISSING_BIN].sum() > 0


@pytest.mark.parametrize("k", [MASS_MIN_LABELS, 11])
def test_the_stump_histogram_of_many_labels_sums_as_the_kernel(k):
    """From ``MASS_MIN_LABELS`` labels on the stump learner fills its histogram on one
    thread from each example's interleaved masses, on more from weights and signs: the
    same bits as ``build_histogram`` and the twin either way (enough cells that the learner
    runs a kernel, not the twin)."""
    numba = load_numba()
    rng = np.random.default_rng(30 + k)
    codes = _codes(rng, 6, 24_000, 200)
    weights = _weights(rng, (24_000, k))
    sign_index = rng.integers(0, 2, size=(24_000, k)).astype(np.uint8)
    assert codes.size * k > 1 << 20
    kernel = np.full((6, 256, k, 2), np.nan)
    twin = np.full((6, 256, k, 2), np.nan)
    build_histogram(codes, weights, sign_index, kernel)
    histogram_twin(codes, weights, sign_index, twin)
    threads = numba.get_num_threads()
    for n_threads in {1, threads}:
        numba.set_num_threads(n_threads)
        try:
            learner_hist = StumpLearner.histogram(SimpleNamespace(codes=codes), weights,
                                                  SimpleNamespace(sign_index=sign_index))
        finally:
            numba.set_num_threads(threads)
        assert np.array_equal(learner_hist, kernel) and np.array_equal(learner_hist, twin)


@pytest.mark.parametrize("mode", [REAL, DISCRETE, ABSTAIN, REAL_ABSTAIN])
@pytest.mark.parametrize("k", [1, 4])
def test_the_threshold_twin_finds_the_kernels_z_and_bin(mode, k):
    rng = np.random.default_rng(10 * mode + k)
    n_features = 6
    hist = _weights(rng, (n_features, 256, k, 2))
    hist[2, 3:] = 0.0  # empty bins: ties of Z, the first kept
    hist[4] = 0.0  # no mass at all
    n_bins = np.array([30, 1, 12, 255, 5, 0], dtype=np.intp)
    total = float(hist[0].sum())
    out = [np.full(n_features, -7.0), np.full(n_features, 99, dtype=np.intp)]
    twin = [np.full(n_features, -7.0), np.full(n_features, 99, dtype=np.intp)]
    best_thresholds(hist, n_bins, mode, total, *out)
    best_thresholds_twin(hist, n_bins, mode, total, *twin)
    assert np.array_equal(out[0], twin[0]) and np.array_equal(out[1], twin[1])
    assert out[1][5] == -1 and np.isinf(out[0][5])


@pytest.mark.parametrize("mode", [REAL, DISCRETE, ABSTAIN])
@pytest.mark.parametrize("k", [1, 4])
def test_the_stump_search_twin_finds_the_kernels_stump_and_blocks(mode, k):
    """``best_stump`` and its twin: the feature of ``np.argmin``, its bin, and the blocks'
    W+ / W- to the bit (the bins' sums over the value bins on each side of the threshold,
    the missing bin); ties keep the first feature, and a threshold at the last value bin
    leaves block 1 empty."""
    rng = np.random.default_rng(20 + 10 * mode + k)
    n_features = 6
    hist = _weights(rng, (n_features, 256, k, 2))
    hist[3] = hist[1]  # a tie with an earlier feature
    n_bins = np.array([30, 40, 12, 40, 1, 255], dtype=np.intp)
    total = float(hist[0].sum())
    for trial in range(3):
        if trial == 1:
            hist[:, 2:] = 0.0  # Z at its least from the second bin on: ties over thresholds
        if trial == 2:
            n_bins[:] = 1  # one value bin: the threshold at the last bin
        out = [np.full(n_features, -7.0), np.full(n_features, 99, dtype=np.intp),
               np.full((3, k), np.nan), np.full((3, k), np.nan)]
        twin = [np.full(n_features, -7.0), np.full(n_features, 99, dtype=np.intp),
                np.full((3, k), np.nan), np.full((3, k), np.nan)]
        stump = best_stump(hist, n_bins, mode, total, *out)
        twin_stump = best_stump_twin(hist, n_bins, mode, total, *twin)
        assert stump == twin_stump == (int(np.argmin(twin[0])), twin[1][stump[0]])
        assert all(np.array_equal(a, b) for a, b in zip(out, twin, strict=True))
        assert np.array_equal(out[2][2], hist[stump[0], MISSING_BIN, :, 0])
        assert np.allclose(out[2].sum(axis=0) + out[3].sum(axis=0),
                           hist[stump[0], :n_bins[stump[0]]].sum(axis=(0, 2))
                           + hist[stump[0], MISSING_BIN].sum(axis=1))


def test_the_blocks_twin_gives_the_kernels_blocks():
    rng = np.random.default_rng(5)
    codes = _codes(rng, 1, 2000, 30)[0]
    for threshold_bin in (0, 13, 29, 254):
        blocks, twin = np.full(2000, 9, np.uint8), np.full(2000, 9, np.uint8)
        stump_blocks(codes, threshold_bin, MISSING_BIN, blocks)
        stump_blocks_twin(codes, threshold_bin, MISSING_BIN, twin)
        assert np.array_equal(blocks, twin) and set(np.unique(twin)) <= {0, 1, 2}


@pytest.mark.parametrize("loss_kind", [LOSS_PAIRS, LOSS_ARGMAX])
@pytest.mark.parametrize("k", [1, 3])
def test_the_update_twin_updates_and_sums_as_the_kernel(loss_kind, k):
    rng = np.random.default_rng(3 * k + loss_kind)
    n = 2 * REDUCTION_CHUNK + 77  # three chunks, the last one short
    weights = _weights(rng, (n, k))
    sign_index = rng.integers(0, 2, size=(n, k)).astype(np.uint8)
    blocks = rng.integers(0, 3, size=n).astype(np.uint8)
    steps = rng.normal(size=(3, k))
    factors = np.exp(rng.normal(size=(3, k, 2)))
    scores = rng.normal(size=(n, k))
    scores[::11] = 0.0  # ties at the top, and Y f = 0
    loss_weights = _weights(rng, (n, 1 if loss_kind == LOSS_ARGMAX else k))
    results = []
    for update in (apply_partition, apply_partition_twin):
        w, s = weights.copy(), scores.copy()
        sums = update(w, sign_index, blocks, steps, factors, s, loss_kind, loss_weights)
        results.append((tuple(sums), w, s))
    (kernel_sums, kernel_w, kernel_s), (twin_sums, twin_w, twin_s) = results
    assert kernel_sums == twin_sums and kernel_sums[1] > 0
    assert np.array_equal(kernel_w, twin_w) and np.array_equal(kernel_s, twin_s)
