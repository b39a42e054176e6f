"""The text learners take their sums of one row per posting list a slice of lists at a time
(``engine/reduction.slices`` of the reducer's ``slice_cells``): a tiny slice gives the fit of
one slice, to the bit, for the term learner and a tree node's term splits and term votes,
the first list of least Z (of largest gain, of largest edge) kept across slices and
columns."""

import numpy as np
import pandas as pd
import pytest

from confboost.engine.learners import make_learner
from confboost.engine.learners.term import TermLearner
from confboost.engine.reduction import (
    LOCAL,
    LOCAL_SLICE_CELLS,
    ONE_THREAD_SLICE_CELLS,
    LocalReducer,
    placed,
    slice_rows,
    slices,
)
from confboost.kernels.criterion_numpy import DISCRETE, MODES, REAL
from confboost.utils.lazy_numba import load_numba
from confboost.utils.threads import threads_here
from tests.helpers import table_fit_parts

#: One slice for every set here.
WHOLE = LocalReducer(slice_cells=1 << 30)
WORDS = [f"w{j}" for j in range(60)]


class Counting(LocalReducer):
    """The local reducer, counting its ``sum`` and ``total`` calls."""

    def __init__(self, slice_cells):
        super().__init__(slice_cells)
        self.calls = 0

    def sum(self, function, dataset, weights, labels, *args, out=None):
        self.calls += 1
        return super().sum(function, dataset, weights, labels, *args, out=out)

    def total(self, value, out=None):
        self.calls += 1
        return super().total(value, out)


def _text_table(rng, n=160, k=3):
    """Three text columns (the second a copy of the first: every list ties with one of the
    first column's) and a numeric one; label 0 told by a word, the others at random."""
    text = [" ".join(rng.choice(WORDS, rng.integers(1, 8))) for _ in range(n)]
    text = [None if rng.random() < 0.1 else words for words in text]
    other = [" ".join(rng.choice(WORDS[:20], rng.integers(1, 4))) for _ in range(n)]
    Y = (rng.random((n, k)) < 0.35).astype(int)
    Y[:, 0] = [words is not None and "w3" in words.split() for words in text]
    frame = pd.DataFrame({"size": rng.normal(size=n), "text": text, "copy": list(text),
                          "other": other})
    types = {"text": "text", "copy": "text", "other": "text"}
    return table_fit_parts(frame, Y, rng, types)


def _assert_same_fit(mine, theirs):
    assert mine.hypothesis.to_dict() == theirs.hypothesis.to_dict()
    assert mine.criterion == theirs.criterion
    for name in ("weight_pos", "weight_neg", "train_blocks"):
        assert np.array_equal(getattr(mine, name), getattr(theirs, name)), name


def test_slices_cut_the_rows_in_order():
    assert slices([3, 0, 5], 2, 7) == [[(0, 0, 3)], [(2, 0, 3)], [(2, 3, 5)]]
    assert slices([3, 0, 5], 1, 4) == [[(0, 0, 3), (2, 0, 1)], [(2, 1, 5)]]
    assert slices([2, 2], 10, 3) == [[(0, 0, 1)], [(0, 1, 2)], [(1, 0, 1)], [(1, 1, 2)]]
    assert slices([2, 2], 1, 100) == [[(0, 0, 2), (1, 0, 2)]]
    assert slices([0, 0], 3, 10) == []
    for sizes, width, cells in [([7, 1, 12], 3, 10), ([40], 1, 1), ([5, 5], 4, 64)]:
        cut = slices(sizes, width, cells)
        rows = [(index, row) for pieces in cut for index, start, stop in pieces
                for row in range(start, stop)]
        assert rows == [(index, row) for index, size in enumerate(sizes)
                        for row in range(size)]
        assert all(sum(stop - start for _, start, stop in pieces) * width <= max(cells, width)
                   for pieces in cut)


def test_a_slices_pieces_take_its_rows_in_order():
    for pieces in slices([5, 0, 9, 2], 3, 12):
        rows = [piece[3] for piece in placed(pieces)]
        assert [(r.start, r.stop) for r in rows] == [
            (sum(stop - start for _, start, stop in pieces[:i]),
             sum(stop - start for _, start, stop in pieces[:i + 1])) for i in range(len(pieces))]
        assert rows[-1].stop == slice_rows(pieces) <= 4


@pytest.mark.parametrize("cells", [0, -3, 2.5, True, "64"])
def test_a_bad_slice_size_is_refused(cells):
    with pytest.raises(ValueError, match="slice_cells must be a positive integer"):
        LocalReducer(slice_cells=cells)


def test_the_local_reducer_slices_at_most_16_mib_an_array_and_2_mib_on_one_thread():
    # the kernels' calls on one thread start no parallel region a slice: smaller slices,
    # whose sums stay in the cache; a given size holds on any thread count
    numba = load_numba()
    with threads_here(1):
        assert LOCAL.slice_cells == ONE_THREAD_SLICE_CELLS
        assert LocalReducer(slice_cells=99).slice_cells == 99
    if numba.config.NUMBA_NUM_THREADS > 1:
        with threads_here(2):
            assert LOCAL.slice_cells == LOCAL_SLICE_CELLS
    assert LOCAL_SLICE_CELLS * 8 <= 16 << 20
    assert ONE_THREAD_SLICE_CELLS * 8 <= 2 << 20


@pytest.mark.parametrize("mode", sorted(MODES.values()))
@pytest.mark.parametrize("cells", [1, 7, 50])
def test_the_term_learner_in_tiny_slices_is_one_slices_fit(rng, mode, cells):
    _, dataset, _, labels, weights = _text_table(rng)
    whole = TermLearner(mode, 0.01, WHOLE).fit(dataset, weights, labels)
    reducer = Counting(cells)
    sliced = TermLearner(mode, 0.01, reducer).fit(dataset, weights, labels)
    _assert_same_fit(sliced, whole)
    n_lists = sum(column.scored_list.shape[0] for column in dataset.text)
    # the totals, a sum a slice, the chosen term's block statistics
    assert reducer.calls == 2 + len(slices([n_lists], 3, cells)) > 4


@pytest.mark.parametrize("cells", [1, 5])
def test_a_tie_across_slices_and_columns_goes_to_the_first(rng, cells):
    """The copied column ties with the first list by list: its terms never win, however
    the slices cut them (the first column's, the first list's)."""
    _, dataset, _, labels, weights = _text_table(rng)
    copy = dataset.text[1].column
    for mode in sorted(MODES.values()):
        fit = TermLearner(mode, 0.01, LocalReducer(cells)).fit(dataset, weights, labels)
        assert fit.hypothesis.column != copy
    for name in ("tree", "hamming_tree"):
        learner = make_learner(name, dataset, REAL, 1e-3, max_leaves=6,
                               reducer=LocalReducer(cells))
        nodes = learner.fit(dataset, weights, labels).hypothesis.to_dict()
        assert "term" in nodes["kind"] and copy not in nodes["column"]


@pytest.mark.parametrize("name", ["tree", "hamming_tree", "label_trees"])
@pytest.mark.parametrize("mode", [REAL, DISCRETE])
@pytest.mark.parametrize("cells", [1, 7, 50])
def test_the_tree_learners_in_tiny_slices_are_one_slices_fit(rng, name, mode, cells):
    _, dataset, _, labels, weights = _text_table(rng)

    def fit(reducer):
        learner = make_learner(name, dataset, mode, 1e-3, max_leaves=6, min_leaf_weight=1e-3,
                               reducer=reducer)
        return learner.fit(dataset, weights, labels)

    whole = fit(WHOLE)
    _assert_same_fit(fit(LocalReducer(cells)), whole)
    _assert_same_fit(fit(LOCAL), whole)
