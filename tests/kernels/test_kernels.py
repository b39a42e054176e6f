"""Every fast kernel equals its naive twin, in any sample order."""

from itertools import chain

import numpy as np
import pytest

from confboost.data.bin_mapper import BinMapper
from confboost.kernels.histogram import (
    N_HIST_BINS,
    build_histogram,
    build_histogram_binary,
    build_histogram_naive,
)
from confboost.kernels.stump_predict import predict_stumps, predict_stumps_naive
from confboost.kernels.stump_split import best_thresholds, best_thresholds_naive
from confboost.kernels.weight_update import (
    stump_blocks,
    stump_blocks_naive,
)
from confboost.utils.dtypes import MISSING_BIN
from tests.conftest import random_problem


def _codes(X, max_bins=255):
    mapper = BinMapper(max_bins=max_bins).fit(X)
    return np.ascontiguousarray(mapper.transform(X)), mapper.n_bins_


# the binary kernel takes features in fours, those past the last four one at a time
@pytest.mark.parametrize("n_features", [4, 5, 7, 8])
@pytest.mark.parametrize("k", [1, 3])
def test_histogram_equals_naive_in_any_order(rng, k, n_features):
    X, signs, weights = random_problem(rng, n_samples=300, n_features=n_features, k=k,
                                       distinct=4)
    codes, _ = _codes(X)
    sign_index = (signs < 0).astype(np.uint8)
    expected = build_histogram_naive(codes, weights, sign_index)
    hist = np.empty((n_features, N_HIST_BINS, k, 2))
    build_histogram(codes, weights, sign_index, hist)
    np.testing.assert_allclose(hist, expected, rtol=1e-12, atol=1e-15)
    order = rng.permutation(300)
    build_histogram(np.ascontiguousarray(codes[:, order]), weights[order],
                    sign_index[order], hist)
    np.testing.assert_allclose(hist, expected, rtol=1e-12, atol=1e-15)
    if k == 1:
        binary = np.empty((n_features, N_HIST_BINS, 1, 2))
        build_histogram_binary(codes, weights[:, 0].copy(), sign_index[:, 0].copy(), binary)
        np.testing.assert_allclose(binary, expected, rtol=1e-12, atol=1e-15)


def test_histograms_of_row_partitions_add_up(rng):
    X, signs, weights = random_problem(rng, n_samples=300, n_features=3, k=2)
    codes, _ = _codes(X)
    sign_index = (signs < 0).astype(np.uint8)
    whole = build_histogram_naive(codes, weights, sign_index)
    parts = [build_histogram_naive(codes[:, rows], weights[rows], sign_index[rows])
             for rows in (slice(0, 120), slice(120, 300))]
    np.testing.assert_allclose(parts[0] + parts[1], whole, atol=1e-15)


@pytest.mark.parametrize("mode", [0, 1, 2, 3])
@pytest.mark.parametrize("k", [1, 4])
def test_best_thresholds_equal_brute_force(rng, mode, k):
    X, signs, weights = random_problem(rng, n_samples=150, n_features=4, k=k, distinct=3)
    codes, n_bins = _codes(X)
    sign_index = (signs < 0).astype(np.uint8)
    hist = np.empty((4, N_HIST_BINS, k, 2))
    build_histogram(codes, weights, sign_index, hist)
    best_z = np.empty(4)
    best_bin = np.empty(4, dtype=np.intp)
    best_thresholds(hist, n_bins, mode, 1.0, best_z, best_bin)
    naive_z, naive_bin = best_thresholds_naive(codes, weights, sign_index, n_bins, mode, 1.0)
    np.testing.assert_allclose(best_z, naive_z, rtol=1e-10)
    # the chosen bin reaches the least Z (ties may pick another bin of equal Z)
    for f in range(4):
        from confboost.kernels.stump_split import criterion_naive, stump_block_stats_naive

        pos, neg = stump_block_stats_naive(codes, weights, sign_index, f, best_bin[f])
        assert criterion_naive(pos, neg, mode, 1.0) == pytest.approx(naive_z[f], rel=1e-10)


def test_real_criterion_is_two_sum_sqrt(rng):
    """Eq. 10 by hand for one stump: Z = 2 Σ_j sqrt(W+_j W-_j)."""
    from confboost.kernels.stump_split import criterion_naive, stump_block_stats_naive

    X, signs, weights = random_problem(rng, n_samples=60, n_features=1, k=1)
    codes, _ = _codes(X)
    sign_index = (signs < 0).astype(np.uint8)
    pos, neg = stump_block_stats_naive(codes, weights, sign_index, 0, 3)
    column = codes[0]
    by_hand = 0.0
    for block in (column <= 3, (column > 3) & (column != MISSING_BIN), column == MISSING_BIN):
        w_plus = weights[block & (signs[:, 0] > 0), 0].sum()
        w_minus = weights[block & (signs[:, 0] < 0), 0].sum()
        by_hand += 2 * np.sqrt(w_plus * w_minus)
    assert criterion_naive(pos, neg, 0, 1.0) == pytest.approx(by_hand)


def test_stump_blocks_equal_naive(rng):
    codes = rng.integers(0, 256, size=500).astype(np.uint8)
    out = np.empty(500, dtype=np.uint8)
    stump_blocks(codes, 100, MISSING_BIN, out)
    np.testing.assert_array_equal(out, stump_blocks_naive(codes, 100, MISSING_BIN))


@pytest.mark.parametrize("k", [1, 2])
def test_predict_stumps_equals_naive(rng, k):
    X = rng.normal(size=(200, 6))
    X[rng.random(X.shape) < 0.1] = np.nan
    X[0, :3] = [np.inf, -np.inf, 0.0]
    features = rng.integers(0, 6, size=20).astype(np.intp)
    thresholds = rng.normal(size=20)
    thresholds[3] = np.inf
    values = rng.normal(size=(20, 3, k))
    out = np.zeros((200, k))
    predict_stumps(X, features, thresholds, values, out)
    np.testing.assert_allclose(out, predict_stumps_naive(X, features, thresholds, values))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_transform_codes_equals_searchsorted(rng, dtype):
    from confboost.kernels.bin_codes import THRESHOLD_WIDTH, transform_codes, transform_codes_naive

    X = rng.normal(size=(5000, 4)).astype(dtype)
    X[rng.random(X.shape) < 0.05] = np.nan
    X[:3, 0] = [np.inf, -np.inf, 0.0]
    thresholds = [np.sort(rng.normal(size=n)) for n in (0, 1, 100, 254)]
    thresholds[2][:10] = X[:10, 2]  # values equal to a threshold go to the lower bin
    thresholds[2].sort()
    padded = np.full((4, THRESHOLD_WIDTH), np.inf)
    for f, t in enumerate(thresholds):
        padded[f, :t.size] = t
    codes = np.empty((4, 5000), dtype=np.uint8)
    transform_codes(X, padded, MISSING_BIN, codes)
    np.testing.assert_array_equal(codes, transform_codes_naive(X, thresholds, MISSING_BIN))


def test_distinct_up_to_equals_unique(rng):
    from confboost.kernels.bin_codes import distinct_up_to, distinct_up_to_naive

    X = np.column_stack([rng.integers(0, 20, 3000), rng.normal(size=3000),
                         rng.integers(0, 10, 3000)]).astype(float)
    X[::5, 2] = np.nan
    features = np.array([0, 1, 2], dtype=np.intp)
    limit = 30
    known = np.zeros((3, limit + 1))
    n_known = np.array([3, 0, 2], dtype=np.intp)
    known[0, :3] = [0.0, 5.0, 7.0]  # a known prefix of the true distinct values
    known[2, :2] = [1.0, 2.0]
    out = np.empty_like(known)
    n_out = np.empty(3, dtype=np.intp)
    distinct_up_to(X, features, known, n_known, limit, out, n_out)
    expected = distinct_up_to_naive(X, features, limit)
    for j in range(3):
        if expected[j] is None:
            assert n_out[j] == limit + 1
        else:
            np.testing.assert_array_equal(out[j, :n_out[j]], expected[j])


@pytest.mark.parametrize("k", [1, 3])
def test_histogram_over_rows_equals_naive_on_the_subset(rng, k):
    from confboost.kernels.histogram import build_histogram_binary_rows, build_histogram_rows

    X, signs, weights = random_problem(rng, n_samples=400, n_features=4, k=k, distinct=4)
    codes, _ = _codes(X)
    sign_index = (signs < 0).astype(np.uint8)
    rows = np.flatnonzero(rng.random(400) < 0.6).astype(np.uint32)
    expected = build_histogram_naive(codes[:, rows], weights[rows], sign_index[rows])
    hist = np.empty((4, N_HIST_BINS, k, 2))
    build_histogram_rows(codes, rows, weights[rows], sign_index[rows], hist)
    np.testing.assert_allclose(hist, expected, rtol=1e-12, atol=1e-15)
    if k == 1:
        build_histogram_binary_rows(codes, rows, weights[rows, 0], sign_index[rows, 0], hist)
        np.testing.assert_allclose(hist, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("n_features", [4, 5])
def test_binary_histogram_over_rows_is_the_full_kernels_on_the_subset(rng, n_features):
    """Features in pairs, an odd one alone: each cell sums the rows in their order, as the
    kernel of every example does on the subset's codes (the same bits)."""
    from confboost.kernels.histogram import build_histogram_binary, build_histogram_binary_rows

    codes = rng.integers(0, 256, size=(n_features, 3000)).astype(np.uint8)
    weights = rng.random(3000) * 10.0 ** rng.integers(-12, 0, size=3000)
    sign_index = rng.integers(0, 2, size=3000).astype(np.uint8)
    rows = np.flatnonzero(rng.random(3000) < 0.7).astype(np.uint32)
    hist = np.full((n_features, N_HIST_BINS, 1, 2), np.nan)
    expected = np.full_like(hist, np.nan)
    build_histogram_binary_rows(codes, rows, weights[rows], sign_index[rows], hist)
    build_histogram_binary(np.ascontiguousarray(codes[:, rows]), weights[rows],
                           sign_index[rows], expected)
    assert np.array_equal(hist, expected)


@pytest.mark.parametrize("k", [1, 4])
def test_stump_block_stats_equal_naive(rng, k):
    from confboost.kernels.stump_split import stump_block_stats_naive
    from confboost.kernels.weight_update import stump_block_stats

    X, signs, weights = random_problem(rng, n_samples=300, n_features=2, k=k, distinct=5)
    codes, _ = _codes(X)
    sign_index = (signs < 0).astype(np.uint8)
    blocks = np.empty(300, dtype=np.uint8)
    pos = np.empty((3, k))
    neg = np.empty((3, k))
    stump_block_stats(codes[1], 4, MISSING_BIN, weights, sign_index, blocks, pos, neg)
    naive_pos, naive_neg = stump_block_stats_naive(codes, weights, sign_index, 1, 4)
    np.testing.assert_allclose(pos, naive_pos, rtol=1e-12, atol=1e-16)
    np.testing.assert_allclose(neg, naive_neg, rtol=1e-12, atol=1e-16)
    np.testing.assert_array_equal(blocks, stump_blocks_naive(codes[1], 4, MISSING_BIN))


@pytest.mark.parametrize("k, loss_kind, one_column", [(1, 0, False), (3, 0, False),
                                                     (3, 0, True), (4, 1, True)])
def test_apply_partition_equals_naive(rng, k, loss_kind, one_column):
    from confboost.kernels.weight_update import apply_partition, apply_partition_naive

    _, signs, weights = random_problem(rng, n_samples=200, k=k)
    if loss_kind == 1:  # single-label signs
        signs = -np.ones((200, k), dtype=np.int8)
        signs[np.arange(200), rng.integers(0, k, 200)] = 1
    sign_index = (signs < 0).astype(np.uint8)
    blocks = rng.integers(0, 3, size=200).astype(np.uint8)
    steps = rng.normal(size=(3, k))
    steps[1, 0] = 0.0  # scores of exactly 0 and exact ties at the top count as errors
    factors = np.stack([np.exp(-steps), np.exp(steps)], axis=-1) / 1.3
    scores = np.round(rng.normal(size=(200, k)), 1)
    loss_weights = rng.random((200, 1 if one_column else k))
    fast = [weights.copy(), scores.copy()]
    naive = [weights.copy(), scores.copy()]
    got = apply_partition(fast[0], sign_index, blocks, steps, factors, fast[1], loss_kind,
                          loss_weights)
    want = apply_partition_naive(naive[0], sign_index, blocks, steps, factors, naive[1],
                                 loss_kind, loss_weights)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(fast[0], naive[0], rtol=1e-12)
    np.testing.assert_allclose(fast[1], naive[1], rtol=1e-12)
    if one_column and loss_kind == 0:  # one column: its weight for every label, to the bit
        again = apply_partition(weights.copy(), sign_index, blocks, steps, factors,
                                scores.copy(), loss_kind, np.repeat(loss_weights, k, axis=1))
        assert again == got


def test_apply_partition_binary_is_apply_partition_on_one_column(rng):
    """The 1-D pass gives ``apply_partition``'s weights, scores, Σ D and loss to the bit,
    over several reduction chunks, and its twin's."""
    from confboost.kernels.weight_update import (
        LOSS_PAIRS,
        REDUCTION_CHUNK,
        apply_partition,
        apply_partition_binary,
        apply_partition_binary_naive,
    )

    n = 3 * REDUCTION_CHUNK + 17
    weights = rng.random((n, 1)) * 10.0 ** rng.integers(-12, 0, size=(n, 1))
    sign_index = rng.integers(0, 2, size=(n, 1)).astype(np.uint8)
    blocks = rng.integers(0, 3, size=n).astype(np.uint8)
    steps = rng.normal(size=(3, 1))
    steps[1, 0] = 0.0  # scores of exactly 0 count as errors
    factors = np.stack([np.exp(-steps), np.exp(steps)], axis=-1) / 1.3
    scores = np.round(rng.normal(size=(n, 1)), 1)
    loss_weights = rng.random((n, 1))
    runs = [[weights.copy(), scores.copy()] for _ in range(3)]
    want = apply_partition(runs[0][0], sign_index, blocks, steps, factors, runs[0][1],
                           LOSS_PAIRS, loss_weights)
    got = apply_partition_binary(runs[1][0][:, 0], sign_index[:, 0], blocks, steps[:, 0],
                                 factors.reshape(-1), runs[1][1][:, 0], loss_weights[:, 0])
    twin = apply_partition_binary_naive(runs[2][0][:, 0], sign_index[:, 0], blocks,
                                        steps[:, 0], factors.reshape(-1), runs[2][1][:, 0],
                                        loss_weights[:, 0])
    assert got == want
    assert np.array_equal(runs[1][0], runs[0][0]) and np.array_equal(runs[1][1], runs[0][1])
    np.testing.assert_allclose(twin, got, rtol=1e-12)
    np.testing.assert_allclose(runs[2][0], runs[1][0], rtol=1e-12)
    assert np.array_equal(runs[2][1], runs[1][1])


def _trimmed(mass, beta):
    """The kept rows of weight trimming: the three kernels in turn, each checked against its
    NumPy twin to the bit."""
    from confboost.kernels.weight_trim import (
        N_KEY_BUCKETS,
        bucket_masses,
        bucket_masses_naive,
        cut_bucket,
        cut_bucket_naive,
        kept_rows,
        kept_rows_naive,
    )

    keys = mass.view(np.uint64)
    bucket_mass = np.full(N_KEY_BUCKETS, np.nan)  # every bucket written
    total = bucket_masses(mass, keys, bucket_mass)
    want_mass, want_total = bucket_masses_naive(mass)
    assert np.array_equal(bucket_mass, want_mass) and total == want_total
    cut = cut_bucket(bucket_mass, total, beta)
    assert cut == cut_bucket_naive(bucket_mass, total, beta)
    rows = np.empty(mass.shape[0], dtype=np.uint32)
    count = kept_rows(keys, cut, rows)
    np.testing.assert_array_equal(rows[:count], kept_rows_naive(keys, cut))
    return rows[:count]


def test_weight_trim_kernels_equal_naive_and_trim_at_most_beta(rng):
    mass = rng.exponential(size=5000) ** 3
    mass[:10] = 0.0
    for beta in (0.0, 0.05, 0.1, 0.3):
        rows = _trimmed(mass, beta)
        trimmed = mass.sum() - mass[rows].sum()
        assert trimmed <= beta * mass.sum() * (1 + 1e-12)
        # every kept example weighs at least as much as every trimmed one
        kept = np.zeros(5000, dtype=bool)
        kept[rows] = True
        if (~kept).any():
            assert mass[kept].min() >= mass[~kept].max()
        # the cut is the lowest bucket: trimming its rows too would pass β
        buckets = mass.view(np.uint64) >> np.uint64(48)
        lightest_kept = buckets == buckets[rows].min()
        assert trimmed + mass[lightest_kept].sum() > beta * mass.sum()
    assert _trimmed(np.zeros(0), 0.1).size == 0
    assert _trimmed(np.ones(7), 0.5).size == 7  # one bucket: nothing under β alone


def test_bucket_masses_of_row_sets_add_up_to_the_cut_of_their_union(rng):
    """Bucket masses of disjoint row sets, added, give the cut of their union (the sum a
    learner takes through its reducer), and each set's kept rows are the union's."""
    from confboost.kernels.weight_trim import N_KEY_BUCKETS, bucket_masses, cut_bucket

    mass = rng.exponential(size=3000) ** 3
    mass[::7] = 0.0  # rows without weight: always below the cut
    for beta in (0.05, 0.3, 0.9):
        whole = _trimmed(mass, beta)
        parts = np.split(np.arange(3000), [700, 701, 2000])
        summed, total = np.zeros(N_KEY_BUCKETS), 0.0
        for part in parts:
            bucket_mass = np.empty(N_KEY_BUCKETS)
            total += bucket_masses(mass[part], mass[part].view(np.uint64), bucket_mass)
            summed += bucket_mass
        cut = cut_bucket(summed, total, beta)
        keys = mass.view(np.uint64) >> np.uint64(48)
        np.testing.assert_array_equal(np.flatnonzero(keys >= cut), whole)
        assert 0 < whole.size < 3000


def test_transform_codes_csc_equals_dense(rng):
    import scipy.sparse as sp

    from confboost.kernels.bin_codes import THRESHOLD_WIDTH, transform_codes, transform_codes_csc

    X = rng.normal(size=(400, 3))
    X[rng.random(X.shape) < 0.7] = 0.0
    X[::9, 1] = np.nan
    padded = np.full((3, THRESHOLD_WIDTH), np.inf)
    padded[0, :3] = [-1.0, 0.0, 1.0]
    padded[1, :1] = [0.5]
    padded[2, :2] = [-0.5, -0.1]
    dense = np.empty((3, 400), dtype=np.uint8)
    transform_codes(X, padded, MISSING_BIN, dense)
    csc = sp.csc_matrix(X)
    sparse = np.empty((3, 400), dtype=np.uint8)
    transform_codes_csc(csc.indptr, csc.indices, csc.data, padded, MISSING_BIN, sparse)
    np.testing.assert_array_equal(sparse, dense)


@pytest.mark.parametrize("n_blocks", [1, 3, 8, 255])
def test_block_cover_is_bincount_to_the_last_bit(rng, n_blocks):
    from confboost.kernels.block_cover import block_cover, block_cover_naive

    for n_samples in (0, 1, 7, 1001):  # counts in lanes of 4: every remainder, and none
        blocks = rng.integers(0, n_blocks, size=n_samples).astype(np.uint8)
        cover = np.full(n_blocks, np.nan)
        weights = rng.exponential(size=n_samples) * 1e3  # sums that round
        block_cover(blocks, weights, False, cover)
        np.testing.assert_array_equal(cover, block_cover_naive(blocks, weights, n_blocks))
        ones = np.ones(n_samples)
        block_cover(blocks, ones, True, cover)
        np.testing.assert_array_equal(cover, block_cover_naive(blocks, ones, n_blocks))
        # the same examples in another order: the same counts
        order = rng.permutation(n_samples)
        block_cover(np.ascontiguousarray(blocks[order]), ones, True, cover)
        np.testing.assert_array_equal(cover, np.bincount(blocks, minlength=n_blocks))


@pytest.mark.parametrize(("k", "n_samples"), [(1, 400), (3, 400), (10, 4000)])
def test_histogram_from_row_masses_is_the_sign_indexed_one_bit_for_bit(rng, k, n_samples):
    """build_histogram_masses (each row's W+ and W- in cell order, 0.0 in the other sign's
    cell) equals build_histogram_rows and build_histogram to the bit, in any row order,
    on 256 bins and on fewer (compacted codes), over several blocks of rows (k = 10: 1,638
    rows a block) and any features a task, and the naive twin to rounding."""
    from confboost.data.dataset import LabelSigns
    from confboost.engine.learners.base import label_masses
    from confboost.kernels.histogram import (
        build_histogram_masses,
        build_histogram_rows,
        node_rows,
    )

    X, signs, weights = random_problem(rng, n_samples=n_samples, n_features=5, k=k,
                                       distinct=6)
    codes, n_bins = _codes(X)
    labels = LabelSigns.from_signs(signs)
    masses = np.stack(label_masses(weights, labels), axis=-1)  # as label_histograms lays them
    assert np.array_equal(masses[..., 0] + masses[..., 1], weights)
    every_row = np.arange(n_samples, dtype=np.intp)
    expected, hist = np.empty((2, 5, N_HIST_BINS, k, 2))
    build_histogram(codes, weights, labels.sign_index, expected)
    for rows in (every_row, None):  # None: every row, without the lookup
        build_histogram_masses(codes, *node_rows(rows), masses, hist, 2)
        np.testing.assert_array_equal(hist, expected)
    np.testing.assert_allclose(hist, build_histogram_naive(codes, weights, labels.sign_index),
                               rtol=1e-12, atol=1e-15)
    for rows in (np.flatnonzero(rng.random(n_samples) < 0.6),
                 rng.permutation(n_samples)[: n_samples // 2]):
        rows = rows.astype(np.intp)
        build_histogram_rows(codes, rows, weights[rows], labels.sign_index[rows], expected)
        for group in (1, 3, 8):
            build_histogram_masses(codes, *node_rows(rows), masses, hist, group)
            np.testing.assert_array_equal(hist, expected)
    compact = np.where(codes == MISSING_BIN, n_bins.max(), codes).astype(np.uint8)
    n_hist_bins = int(n_bins.max()) + 1
    expected, hist = np.empty((2, 5, n_hist_bins, k, 2))
    build_histogram_rows(compact, rows, weights[rows], labels.sign_index[rows], expected)
    build_histogram_masses(compact, *node_rows(rows), masses, hist, 1)
    np.testing.assert_array_equal(hist, expected)


@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_node_scores_are_node_score_bit_for_bit(rng, mode):
    from confboost.kernels.criterion_numba import node_score, node_scores

    pos, neg = rng.random((2, 100)) ** 3
    pos[::7] = 0.0
    out = np.empty(100)
    node_scores(pos, neg, mode, out)
    np.testing.assert_array_equal(out, [node_score(p, n, mode) for p, n in zip(pos, neg,
                                                                             strict=True)])


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.intp])
def test_block_masses_are_bincounts_bit_for_bit(rng, dtype):
    """block_masses (one ordered pass) equals one np.bincount per column to the bit, empty
    blocks included."""
    from confboost.kernels.weight_update import block_masses, block_masses_naive

    pos, neg = rng.random((2, 500, 4)) ** 3
    blocks = rng.integers(0, 6, 500).astype(dtype)  # block 6 of 7 stays empty
    found = block_masses(blocks, 7, pos, neg)
    for a, b in zip(found, block_masses_naive(blocks, 7, pos, neg), strict=True):
        assert a.shape == (7, 4)
        np.testing.assert_array_equal(a, b)
    assert not found[0][6].any()


def test_block_sums_are_bincounts_and_block_masses_of_interleaved_masses(rng):
    """block_sums (one ordered pass) equals one np.bincount per column to the bit, and on
    interleaved masses each side's columns are block_masses' of pos and neg."""
    from confboost.kernels.weight_update import block_masses, block_sums, block_sums_naive

    masses = rng.random((500, 5, 2)) ** 3
    masses[rng.random((500, 5)) < 0.5, 0] = 0.0
    blocks = rng.integers(0, 6, 500).astype(np.uint8)  # block 6 of 7 stays empty
    found = block_sums(blocks, 7, masses.reshape(500, 10))
    assert found.shape == (7, 10)
    np.testing.assert_array_equal(found, block_sums_naive(blocks, 7, masses.reshape(500, 10)))
    assert not found[6].any()
    pos, neg = (np.ascontiguousarray(masses[..., side]) for side in (0, 1))
    for side, want in enumerate(block_masses(blocks, 7, pos, neg)):
        np.testing.assert_array_equal(found.reshape(7, 5, 2)[..., side], want)


def _node_problem(rng, n_features, k, compact):
    """A node histogram's inputs: 1000 rows' codes (``compact``: the missing bin last, as
    ``learners/tree.compact_codes`` makes them), the histogram's bins, signs, weights and
    a node of about 60% of the rows."""
    X, signs, weights = random_problem(rng, n_samples=1000, n_features=n_features, k=k,
                                       distinct=3)
    codes, n_bins = _codes(X)
    n_hist_bins = N_HIST_BINS
    if compact:
        n_hist_bins = int(n_bins.max()) + 1
        codes = np.where(codes == MISSING_BIN, n_hist_bins - 1, codes).astype(np.uint8)
    node = np.flatnonzero(rng.random(1000) < 0.6).astype(np.intp)
    return codes, n_hist_bins, signs, weights, node


def _each_thread_count_and_rows(rng, node):
    """Yield every row, the node's rows and them shuffled, on 1 and then 2 threads; the
    thread count is restored after."""
    import numba

    previous = numba.get_num_threads()
    try:
        for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
            numba.set_num_threads(threads)
            yield from (None, node, rng.permutation(node))
    finally:
        numba.set_num_threads(previous)


def _dirty_work(weights, hist, row_chunk):
    """A node histogram's work space for every row (more than a node's), holding NaN and
    255 as a grower's arrays hold what their last node left: the histogram must not read
    them."""
    from confboost.kernels.node_histogram import node_histogram_work

    gather_weights, gather_signs, chunk_hists = node_histogram_work(weights, hist.shape,
                                                                    row_chunk)
    gather_weights.fill(np.nan)
    gather_signs.fill(255)
    chunk_hists.fill(np.nan)
    return gather_weights, gather_signs, chunk_hists


# features go in groups of 4; from FEATURES_PER_WORKER a thread (17: on 1 and 2 threads), each
# thread takes a range of features over every chunk, below a task a (group, chunk)
@pytest.mark.parametrize("n_features", [4, 5, 7, 17])
@pytest.mark.parametrize("compact", [False, True])  # the codes of learners/tree.compact_codes
def test_node_histogram_binary_equals_naive_bit_for_bit_on_any_thread_count(rng, n_features,
                                                                            compact):
    """Over every row and a node's rows, in one chunk (then it is the row-order sum of
    build_histogram_binary_rows) and in several (the chunks' sums added in order), the
    same histogram to the bit as the naive twin, on 1 and 2 threads; on a sparse node too
    (under 1/SPARSE_NODE of the rows: the codes of rows ahead are asked for)."""
    from confboost.kernels.histogram import build_histogram_binary_rows
    from confboost.kernels.node_histogram import (
        build_node_histogram_binary,
        build_node_histogram_binary_naive,
    )

    codes, n_hist_bins, signs, weights, node = _node_problem(rng, n_features, 1, compact)
    w = weights[:, 0].copy()
    w[::37] = 0.0  # a weight of 0.0 of either sign (signed weights: -0.0) changes no cell
    sign_index = (signs[:, 0] < 0).astype(np.uint8)
    hist = np.empty((n_features, n_hist_bins, 1, 2))
    sparse = np.sort(rng.choice(1000, 50, replace=False)).astype(np.intp)
    for rows in chain(_each_thread_count_and_rows(rng, sparse),  # lazily: threads set
                      _each_thread_count_and_rows(rng, node)):
        for row_chunk in (1 << 16, 97, 7):
            expected = build_node_histogram_binary_naive(codes, rows, w, sign_index,
                                                         n_hist_bins, row_chunk)
            build_node_histogram_binary(codes, rows, w, sign_index, hist, row_chunk,
                                        *_dirty_work(w, hist, row_chunk))
            np.testing.assert_array_equal(hist, expected)
        if rows is not None and not compact:  # 256 bins only
            build_histogram_binary_rows(codes, rows, w[rows], sign_index[rows], expected)
            build_node_histogram_binary(codes, rows, w, sign_index, hist, 1 << 16,
                                        *_dirty_work(w, hist, 1 << 16))
            np.testing.assert_array_equal(hist, expected)
    np.testing.assert_allclose(hist.sum(axis=1)[:, 0], [[w[node][sign_index[node] == s].sum()
                                                         for s in (0, 1)]] * n_features)


@pytest.mark.parametrize("k", [1, 4])
def test_split_by_sign_equals_naive_bit_for_bit_on_any_thread_count(rng, k):
    """Each weight lands in the cell of its sign, the other cell holds 0.0, on 1 and 2
    threads; a float32 weight is widened as the naive twin widens it."""
    import numba

    from confboost.engine.learners.base import label_masses
    from confboost.kernels.histogram import split_by_sign, split_by_sign_naive

    _, signs, weights = random_problem(rng, n_samples=500, n_features=2, k=k)
    sign_index = (signs < 0).astype(np.uint8)
    expected_pos, expected_neg = split_by_sign_naive(weights, sign_index)
    pos, neg = np.full_like(weights, np.nan), np.full_like(weights, np.nan)
    previous = numba.get_num_threads()
    try:
        for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
            numba.set_num_threads(threads)
            split_by_sign(weights, sign_index, pos, neg)
            np.testing.assert_array_equal(pos, expected_pos)
            np.testing.assert_array_equal(neg, expected_neg)
    finally:
        numba.set_num_threads(previous)
    assert ((pos > 0) == (signs > 0)).all() and ((neg > 0) == (signs < 0)).all()

    class Labels:
        pass

    labels = Labels()
    labels.sign_index = sign_index
    single = weights.astype(np.float32)
    for got, want in zip(label_masses(single, labels), split_by_sign_naive(single, sign_index),
                         strict=True):
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("k", [1, 9])
def test_interleaved_masses_equal_naive_bit_for_bit_on_any_thread_count(rng, k):
    """Each weight lands in the cell of its sign, the other cell holds 0.0 (a zero weight
    too), on 1 and 2 threads: ``split_by_sign``'s pos and neg side by side."""
    import numba

    from confboost.kernels.histogram import (
        interleaved_masses,
        interleaved_masses_naive,
        split_by_sign_naive,
    )

    _, signs, weights = random_problem(rng, n_samples=500, n_features=2, k=k)
    weights[::7] = 0.0
    sign_index = (signs < 0).astype(np.uint8)
    expected = interleaved_masses_naive(weights, sign_index)
    masses = np.full((*weights.shape, 2), np.nan)
    previous = numba.get_num_threads()
    try:
        for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
            numba.set_num_threads(threads)
            masses[:] = np.nan
            interleaved_masses(weights, sign_index, masses)
            np.testing.assert_array_equal(masses, expected)
    finally:
        numba.set_num_threads(previous)
    pos, neg = split_by_sign_naive(weights, sign_index)
    np.testing.assert_array_equal(masses[..., 0], pos)
    np.testing.assert_array_equal(masses[..., 1], neg)
    assert ((masses[..., 0] > 0) <= (signs > 0)).all() and (masses[signs > 0, 1] == 0).all()


@pytest.mark.parametrize("k", [2, 5])
@pytest.mark.parametrize("compact", [False, True])  # the codes of learners/tree.compact_codes
def test_node_histogram_equals_naive_bit_for_bit_on_any_thread_count(rng, k, compact):
    """The k-label node histogram: over every row and a node's rows, in one chunk (then it
    is build_histogram's and build_histogram_rows's to the bit) and in several, the naive
    twin's histogram to the bit on 1 and 2 threads; a memory bound merges chunks alike; on
    a sparse node too (under 1/SPARSE_NODE of the rows: the codes of rows ahead are asked
    for). Six features: a task's group of four and a group of two."""
    from confboost.kernels import node_histogram
    from confboost.kernels.histogram import build_histogram_rows, node_rows
    from confboost.kernels.node_histogram import (
        build_node_histogram,
        build_node_histogram_naive,
        node_chunks,
    )

    n_features = 6
    codes, n_hist_bins, signs, weights, node = _node_problem(rng, n_features, k, compact)
    sign_index = (signs < 0).astype(np.uint8)
    hist = np.empty((n_features, n_hist_bins, k, 2))
    sparse = np.sort(rng.choice(1000, 50, replace=False)).astype(np.intp)
    for rows in chain(_each_thread_count_and_rows(rng, sparse),  # lazily: threads set
                      _each_thread_count_and_rows(rng, node)):
        for row_chunk in (1 << 16, 97):
            expected = build_node_histogram_naive(codes, rows, weights, sign_index,
                                                  n_hist_bins, row_chunk)
            build_node_histogram(codes, *node_rows(rows), weights, sign_index, hist, row_chunk,
                                 *_dirty_work(weights, hist, row_chunk))
            np.testing.assert_array_equal(hist, expected)
        if not compact:  # 256 bins only
            if rows is None:
                build_histogram(codes, weights, sign_index, expected)
            else:
                build_histogram_rows(codes, rows, weights[rows], sign_index[rows], expected)
            build_node_histogram(codes, *node_rows(rows), weights, sign_index, hist, 1 << 16,
                                 *_dirty_work(weights, hist, 1 << 16))
            np.testing.assert_array_equal(hist, expected)
    np.testing.assert_allclose(
        hist.sum(axis=(0, 1)) / n_features,
        [[weights[node, l][sign_index[node, l] == s].sum() for s in (0, 1)]
         for l in range(k)])
    assert node_chunks(1000, 97, 1) == (11, 91)
    assert node_chunks(1000, 97, node_histogram.PARTIAL_BYTES // 4) == (4, 250)
    assert node_chunks(0, 97, 1) == (1, 1)


def test_prefetch_hint_compiles_in_a_kernel_and_changes_no_value(rng):
    """Once numba loads, ``prefetch.read`` is numba's (not the Python no-op), and a kernel
    that asks for the element ``ROWS_AHEAD`` ahead (clamped to the last) reads the values it
    reads without it."""
    from types import FunctionType

    from confboost.kernels import prefetch
    from confboost.utils.lazy_numba import load_numba

    numba = load_numba()
    assert not isinstance(prefetch.read, FunctionType)

    @numba.njit
    def gather_sum(values, rows):
        total = 0
        last = rows.shape[0] - 1
        for p in range(rows.shape[0]):
            prefetch.read(values, rows[min(p + prefetch.ROWS_AHEAD, last)])
            total += values[rows[p]]
        return total

    values = rng.integers(0, 256, size=5000).astype(np.uint8)
    rows = np.sort(rng.choice(5000, 700, replace=False)).astype(np.intp)
    assert gather_sum(values, rows) == int(values[rows].astype(np.int64).sum())
