"""A tree's kernels compile once per build on an empty numba cache: the root's node
histogram takes the types a node's takes (``histogram.node_rows``), and no helper is called
with a literal constant (numba would compile it once more for ``Literal[int](0)``); small
parallel kernels make one parallel loop, not one more per work array they zero."""

import numpy as np
import pytest

from confboost.kernels.histogram import EVERY_ROW, node_rows
from confboost.utils.lazy_numba import serial_kernels


def _literal_signatures(signatures):
    """The signatures holding a literal type (``Literal[int](0)``, an omitted default)."""
    from numba.core import types

    return [sig for sig in signatures
            if any(isinstance(t, (types.Literal, types.Omitted)) for t in sig)]


def test_node_rows_maps_none_to_every_row():
    rows = np.arange(3, dtype=np.intp)
    assert node_rows(None) == (EVERY_ROW, True)
    assert node_rows(rows)[0] is rows and node_rows(rows)[1] is False
    assert EVERY_ROW.dtype == np.intp and EVERY_ROW.shape == (0,)


@pytest.mark.parametrize("k", [1, 3, 10])
def test_root_and_node_histograms_share_one_specialisation(rng, k):
    """The root (``rows=None`` to the caller) and a node's rows reach each node histogram
    kernel with the same argument types; the helpers they call (compiled here on an empty
    numba cache; loaded from a warm one, nothing of theirs compiles) take no literal type."""
    from numba.core import types

    from confboost.kernels import node_histogram, tree_nodes
    from confboost.kernels.histogram import build_histogram_masses, interleaved_masses
    from confboost.kernels.node_histogram import (
        ROW_CHUNK,
        build_node_histogram,
        build_node_histogram_binary,
        node_histogram_work,
    )
    from confboost.kernels.tree_nodes import partition_rows

    helpers = (node_histogram._group_histograms, node_histogram._gather_labels,
               tree_nodes._partition_chunk, tree_nodes._place_chunk)
    # what other tests compiled in this process (a call leaving out a default argument
    # compiles its own specialisation) is not these calls'
    compiled_before = [set(helper.signatures) for helper in helpers]
    n_samples, n_features, n_hist_bins = 600, 17, 8  # 17: a feature range a thread
    codes = rng.integers(0, n_hist_bins, size=(n_features, n_samples)).astype(np.uint8)
    weights = rng.random((n_samples, k))
    sign_index = (rng.random((n_samples, k)) < 0.5).astype(np.uint8)
    hist = np.empty((n_features, n_hist_bins, k, 2))
    node = np.flatnonzero(rng.random(n_samples) < 0.4).astype(np.intp)
    for rows in (None, node):
        if k == 1:
            kernel = node_histogram.node_histogram_binary
            w, s = weights[:, 0].copy(), sign_index[:, 0].copy()
            build_node_histogram_binary(codes, rows, w, s, hist, ROW_CHUNK,
                                        *node_histogram_work(w, hist.shape, ROW_CHUNK))
        elif k == 3:
            kernel = build_node_histogram
            build_node_histogram(codes, *node_rows(rows), weights, sign_index, hist, ROW_CHUNK,
                                 *node_histogram_work(weights, hist.shape, ROW_CHUNK))
        else:
            kernel = build_histogram_masses
            masses = np.empty((n_samples, k, 2))
            interleaved_masses(weights, sign_index, masses)
            build_histogram_masses(codes, *node_rows(rows), masses, hist, 2)
        assert all(isinstance(sig[1], types.Array) for sig in kernel.signatures)
    order = np.arange(n_samples, dtype=np.intp)
    partition_rows(codes[0], order, 0, n_samples, 3, True, np.empty((2, n_samples), np.intp),
                   False)
    for helper, before in zip(helpers, compiled_before, strict=True):
        assert _literal_signatures(set(helper.signatures) - before) == []



def test_one_label_search_takes_no_literal(rng):
    """``label_children_splits`` calls its features' helper (``_label_features``) with the
    same types for either child, on any thread count (a literal argument would compile it
    once more)."""
    from confboost.kernels import label_split

    before = set(label_split._label_features.signatures)
    n_features, n_hist_bins = 5, 9
    large = rng.random((n_features, n_hist_bins, 1, 2))
    small = large * 0.5
    n_bins = np.full(n_features, n_hist_bins - 1, dtype=np.intp)
    out = (np.empty((2, n_features)), np.empty((2, n_features), dtype=np.intp),
           np.empty((2, n_features), dtype=bool), np.empty((2, 3), np.intp))
    label_split.label_children_splits(small, large, n_bins, 0.0, *out, 2, 2)
    label_split.label_children_splits(small, large, n_bins, 0.0, *out, 2, 1)
    with serial_kernels():
        label_split.label_children_splits(small, large.copy(), n_bins, 0.0, *out, 1, 2)
    added = set(label_split._label_features.signatures) - before
    assert _literal_signatures(added) == []
    assert len(added) <= 1


def _parallel_loops(kernel, *args):
    """The parallel loops numba makes of ``kernel`` (compiled afresh from its Python source,
    ``parallel=True``), by loop id in its parallel diagnostics."""
    import contextlib
    import io
    import re

    import numba

    fresh = numba.njit(parallel=True)(kernel.py_func)
    fresh(*args)
    listing = io.StringIO()
    with contextlib.redirect_stdout(listing):
        fresh.parallel_diagnostics(fresh.signatures[0], level=1)
    return set(re.findall(r"\| (#\d+)", listing.getvalue()))


def test_small_parallel_kernels_make_one_parallel_loop(rng):
    """Each call of a parallel kernel wakes the threads once per parallel loop: a work
    array zeroed with ``np.zeros`` outside ``prange`` is a loop (a region) of its own."""
    from confboost.kernels.label_update import apply_label_partition
    from confboost.kernels.value_masses import value_histogram

    n, k = 50, 3
    weights = rng.random((n, k))
    sign_index = (rng.random((n, k)) < 0.5).astype(np.uint8)
    blocks = rng.integers(0, 4, (n, k)).astype(np.uint16)
    assert len(_parallel_loops(apply_label_partition, weights, sign_index, blocks,
                               rng.random((4, k)), rng.random((4, k, 2)), np.zeros((n, k)),
                               0, np.ones((n, 1)))) == 1
    codes = rng.integers(-1, 5, n).astype(np.int32)
    signs = np.where(sign_index == 0, 1, -1).astype(np.int8)
    assert len(_parallel_loops(value_histogram, codes, 5, weights, signs)) == 1
