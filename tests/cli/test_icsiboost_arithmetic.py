"""AdaBoost.MH with icsiboost's arithmetic (``normalisation="in_order"``), to the last bit.

The oracle is a transcription of icsiboost's text round (``icsiboost.c``: the class sums
added example by example, a term's sums over its documents in order, c = ½ log((W+ + ε) /
(W- + ε)) by the C library, D · exp(-α y c) and a division by the sum taken in order)
in plain Python floats. The ``confboost icsiboost`` command must give its values exactly.
"""

import json
import math

import numpy as np
import pytest

from confboost.cli.icsiboost_booster import glibc_order, icsiboost_stump_masses
from confboost.engine.learners.base import PartitionFit
from confboost.engine.schemes import build_scheme
from confboost.engine.schemes.mh import MHScheme
from confboost.kernels.weight_update import sum_in_order, sum_in_order_naive
from confboost.utils import libm
from tests.helpers import run


def test_sum_in_order_is_the_running_sum():
    rng = np.random.default_rng(0)
    for shape in [(0, 3), (1, 1), (7, 3), (1000, 12)]:
        weights = rng.random(shape) * 10.0 ** rng.integers(-12, 3, size=shape)
        expected = 0.0
        for value in weights.ravel():  # one addition at a time, row by row
            expected += float(value)
        assert sum_in_order(weights) == expected == sum_in_order_naive(weights)


def test_libm_is_the_c_library():
    values = np.random.default_rng(1).uniform(-40.0, 40.0, size=(50, 3))
    assert np.array_equal(libm.exp(values), np.vectorize(math.exp)(values))
    assert np.array_equal(libm.log(np.abs(values)), np.vectorize(math.log)(np.abs(values)))
    assert libm.exp(1e4) == np.inf and libm.exp(np.array([-1e4]))[0] == 0.0
    assert libm.log(0.0) == -np.inf and np.isnan(libm.log(-1.0))


def _fit(values, train_blocks):
    return PartitionFit(hypothesis=type("H", (), {"values": values})(),
                        train_blocks=train_blocks, weight_pos=None, weight_neg=None,
                        criterion=None)


def test_in_order_update_is_icsiboosts():
    rng = np.random.default_rng(2)
    n, k = 37, 3
    signs = np.where(rng.random((n, k)) < 0.4, 1, -1).astype(np.int8)
    scheme = MHScheme(signs, np.ones(n), False, normalisation="in_order")
    expected = [[1.0 / (k * n)] * k for _ in range(n)]
    assert scheme.weights.tolist() == expected
    for _ in range(3):
        values = rng.normal(size=(2, k))
        blocks = rng.integers(0, 2, size=n).astype(np.uint8)
        z = scheme.update(_fit(values, blocks), 1.0)
        total = 0.0
        for i in range(n):
            for l in range(k):
                expected[i][l] *= math.exp(-1.0 * float(signs[i, l]) * float(values[blocks[i], l]))
                total += expected[i][l]
        expected = [[w / total for w in row] for row in expected]
        assert z == total
        assert scheme.weights.tolist() == expected


def test_in_order_is_mh_only():
    signs = np.array([[1, -1, -1], [-1, 1, -1]], dtype=np.int8)
    with pytest.raises(ValueError, match="normalisation"):
        MHScheme(signs, np.ones(2), True, normalisation="sideways")
    for name in ("mr", "mo"):
        with pytest.raises(ValueError, match="MH"):
            build_scheme(name, signs, np.array([0, 1]), False, np.ones(2),
                         normalisation="in_order")


def _icsiboost_values(documents, labels, terms, smoothing=0.5):
    """icsiboost's (absent, present) confidences of each round's term, in its arithmetic."""
    n, k = labels.shape
    weights = [[1.0 / (k * n)] * k for _ in range(n)]
    epsilon = smoothing / (k * n)
    rounds = []
    for term in terms:
        totals = [[0.0] * k, [0.0] * k]  # [b][l], b = 1 where the example has label l
        present = [[0.0] * k, [0.0] * k]
        for i in range(n):
            for l in range(k):
                totals[int(labels[i, l])][l] += weights[i][l]
        holders = [i for i in range(n) if term in documents[i]]
        for i in holders:
            for l in range(k):
                present[int(labels[i, l])][l] += weights[i][l]
        absent_c = [0.5 * math.log((totals[1][l] - present[1][l] + epsilon)
                                   / (totals[0][l] - present[0][l] + epsilon)) for l in range(k)]
        present_c = [0.5 * math.log((present[1][l] + epsilon) / (present[0][l] + epsilon))
                     for l in range(k)]
        rounds.append((absent_c, present_c))
        normalization = 0.0
        for i in range(n):
            c = present_c if i in holders else absent_c
            for l in range(k):
                y = 1.0 if labels[i, l] else -1.0
                weights[i][l] = weights[i][l] * math.exp(-1.0 * y * c[l])
                normalization += weights[i][l]
        weights = [[w / normalization for w in row] for row in weights]
    return rounds


def test_icsiboost_command_computes_as_icsiboost(tmp_path, capsys):
    rng = np.random.default_rng(3)
    words = [f"w{j}" for j in range(12)]
    n, k = 90, 3
    labels = np.zeros((n, k), dtype=int)
    documents, lines = [], []
    for i in range(n):
        labels[i, rng.integers(k)] = 1
        if rng.random() < 0.3:
            labels[i, rng.integers(k)] = 1
        chosen = sorted(set(rng.choice(words, size=rng.integers(1, 6))))
        documents.append(set(chosen))
        names = " ".join(f"c{l}" for l in range(k) if labels[i, l])
        lines.append(f"{' '.join(chosen)}, {names}.")
    (tmp_path / "t.names").write_text(", ".join(f"c{l}" for l in range(k))
                                      + ".\nbody: text.\n")
    (tmp_path / "t.data").write_text("\n".join(lines) + "\n")
    status, _, err = run(["icsiboost", "-S", tmp_path / "t", "-n", 12], capsys)
    assert status == 0, err
    model = json.loads((tmp_path / "t.model.json").read_text())["model"]
    terms = [h["term"] for h in model["hypotheses"]]
    assert len(terms) == 12 and model["alphas"] == [1.0] * 12
    for hypothesis, (absent, present) in zip(model["hypotheses"],
                                             _icsiboost_values(documents, labels, terms),
                                             strict=True):
        assert hypothesis["values"] == [present, absent]  # to the last bit


def _glibc_msort(items, compare):
    """glibc's ``msort_with_tmp``, transcribed: halves of n // 2 and the rest, merged taking
    the left run's item while ``compare(left, right) <= 0``."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = _glibc_msort(items[:half], compare), _glibc_msort(items[half:], compare)
    merged, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if compare(left[i], right[j]) <= 0:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    return merged + left[i:] + right[j:]


def _comparator(values):
    """icsiboost's ``local_comparator2`` over example indices."""
    def compare(a, b):
        if math.isnan(values[a]) or values[a] > values[b]:
            return 1
        if math.isnan(values[b]) or values[a] < values[b]:
            return -1
        return 0
    return compare


def test_glibc_order_is_glibcs_merge_sort():
    rng = np.random.default_rng(4)
    for n in (1, 2, 7, 64, 201):
        values = rng.integers(0, 6, size=n).astype(float)
        values[rng.random(n) < 0.3] = np.nan
        missing = np.isnan(values)
        keys = np.where(missing, -1, values).astype(np.int64)
        known, missing_order = glibc_order(keys, missing)
        expected = _glibc_msort(list(range(n)), _comparator(values))
        assert [*known, *missing_order] == expected


def _icsiboost_masses(order, missing, n_below, weights, signs):
    """``threshold_classifier``'s sums, transcribed: weight[j][b][l] with j = 0 missing,
    1 below, 2 above."""
    n, k = weights.shape
    sums = [[[0.0] * k for _ in range(2)] for _ in range(3)]
    for i in order:
        for l in range(k):
            sums[0 if missing[i] else 2][int(signs[i, l] > 0)][l] += float(weights[i, l])
    for i in order[:n_below]:
        for l in range(k):
            sums[1][int(signs[i, l] > 0)][l] += float(weights[i, l])
            sums[2][int(signs[i, l] > 0)][l] -= float(weights[i, l])
    return [[sums[j][b] for j in (1, 2, 0)] for b in (1, 0)]


def test_stump_masses_are_added_as_icsiboost_adds_them():
    rng = np.random.default_rng(5)
    n, k = 150, 4
    values = rng.integers(0, 9, size=n).astype(float)
    values[rng.random(n) < 0.1] = np.nan
    weights = rng.random((n, k)) * 10.0 ** rng.integers(-9, 0, size=(n, k))
    signs = np.where(rng.random((n, k)) < 0.4, 1, -1).astype(np.int8)
    order = _glibc_msort(list(range(n)), _comparator(values))
    missing = np.isnan(values)
    known, missing_order = np.array(order[:(~missing).sum()]), np.array(order[(~missing).sum():])
    for n_below in (0, 1, 40, known.shape[0]):
        pos, neg = icsiboost_stump_masses(known, missing_order, n_below, weights, signs)
        assert [pos.tolist(), neg.tolist()] == _icsiboost_masses(order, missing, n_below,
                                                                 weights, signs)


def test_icsiboost_command_stumps_compute_and_test_as_icsiboost(tmp_path, capsys):
    rng = np.random.default_rng(6)
    n, k = 80, 3
    values = rng.integers(0, 12, size=(n, 2)).astype(float)
    values[rng.random((n, 2)) < 0.1] = np.nan
    labels = np.eye(k, dtype=int)[rng.integers(k, size=n)]
    lines = [", ".join("?" if np.isnan(v) else f"{int(v)}" for v in row)
             + f", c{int(np.argmax(y))}." for row, y in zip(values, labels, strict=True)]
    (tmp_path / "s.names").write_text(", ".join(f"c{l}" for l in range(k))
                                      + ".\na: continuous.\nb: continuous.\n")
    (tmp_path / "s.data").write_text("\n".join(lines) + "\n")
    status, _, err = run(["icsiboost", "-S", tmp_path / "s", "-n", 10], capsys)
    assert status == 0, err
    model = json.loads((tmp_path / "s.model.json").read_text())["model"]
    weights = [[1.0 / (k * n)] * k for _ in range(n)]
    epsilon = 0.5 / (k * n)
    signs = np.where(labels > 0, 1, -1)
    for hypothesis in model["hypotheses"]:
        assert hypothesis["type"] == "stump"
        column = values[:, hypothesis["feature"]]
        midpoint = float(np.nextafter(hypothesis["threshold"], np.inf))
        distinct = np.unique(column[~np.isnan(column)])
        assert midpoint in ((distinct[:-1] + distinct[1:]) / 2.0)  # icsiboost's t, x < t below
        order = _glibc_msort(list(range(n)), _comparator(column))
        n_below = int(np.sum(column < midpoint))
        sums = _icsiboost_masses(order, np.isnan(column), n_below, np.array(weights), signs)
        c = [[0.5 * math.log((sums[0][j][l] + epsilon) / (sums[1][j][l] + epsilon))
              for l in range(k)] for j in range(3)]
        assert hypothesis["values"] == c  # below, above, missing: to the last bit
        total = 0.0
        for i in range(n):
            block = 2 if np.isnan(column[i]) else (0 if column[i] < midpoint else 1)
            for l in range(k):
                weights[i][l] = weights[i][l] * math.exp(-1.0 * float(signs[i, l]) * c[block][l])
                total += weights[i][l]
        weights = [[w / total for w in row] for row in weights]
