"""Histograms of one tree node's rows: W+ and W- per (feature, bin, label column) of the
rows a node holds, gathered once and summed in fixed chunks of rows.

The node's weights and signs are gathered into a work space (``node_histogram_work``) and
each (group of ``FEATURE_GROUP`` features, chunk of ``ROW_CHUNK`` rows) is one task with a
histogram of its own; the chunks' histograms are added in chunk order, so a node's
histogram is the same to the bit on any number of threads. With one label and enough
features for every thread, a node is one parallel region: each thread takes a range of
features, gathers each chunk's weights into its own part of the work space and adds each
chunk's sums as that chunk ends (the same additions in the same order). A small node's rows
are scattered over the codes, so both kernels ask for the codes of a row some rows ahead of
the one they add (``kernels/prefetch.py``: the misses of a small node overlap).
The cells are the block statistics W_b^{jl} of the paper's Eq. 9-10 and 16, as
``kernels/histogram.py``'s whole-set histograms; a tree's grower
(``engine/learners/grower.py``) builds the smaller child's and subtracts it from the
parent's for the larger.
"""

import numpy as np

from confboost.kernels import prefetch
from confboost.kernels.histogram import node_rows
from confboost.kernels.prefetch import ROWS_AHEAD
from confboost.utils.dtypes import WEIGHT_DTYPE
from confboost.utils.lazy_numba import load_numba, njit, prange

#: Rows of a chunk of a tree node's histogram (``build_node_histogram_binary``): each
#: (group of features, chunk) is one task with a histogram of its own, and the chunks'
#: histograms are added in chunk order, so a node's histogram is the same on any number of
#: threads.
ROW_CHUNK = 1 << 16


@njit(cache=True, nogil=True, inline="always")
def _gather(rows, weights, sign_index, node_weights, node_signs, first, stop):
    """The weights and signs of the node's positions ``first:stop``, gathered (the row
    ``ROWS_AHEAD`` ahead asked for, ``kernels/prefetch.py``)."""
    last = np.intp(stop - 1)
    for p in range(first, stop):
        ahead = np.uintp(rows[min(p + ROWS_AHEAD, last)])
        prefetch.read(weights, ahead)
        prefetch.read(sign_index, ahead)
        node_weights[p] = weights[rows[p]]
        node_signs[p] = sign_index[rows[p]]


#: Features a task of ``build_node_histogram_binary`` fills together: each example's weight
#: and sign are loaded once for that many independent adds (4 against 2: 0.6-0.85x the time
#: of a node's histogram on binary 400k x 50, 48 features; 8 gained nothing more).
FEATURE_GROUP = 4

#: Features from which ``build_node_histogram_binary`` gives each thread a range of
#: features (``FEATURES_PER_WORKER`` or more a thread: two groups of four) over all of a
#: node's rows, one parallel region; with fewer a task takes a group of features over one
#: chunk of rows, and a second region adds the chunks. Both give the same histogram.
FEATURES_PER_WORKER = 2 * FEATURE_GROUP

#: The node histograms ask for codes ahead only on a node of fewer than
#: ``n_samples / SPARSE_NODE`` rows. On a larger node its rows cover every cache line of
#: the codes, which the hardware's own prefetch streams in, and the hint's loads cost time:
#: random 1M x 48 codes, one thread, nodes of 1/8-1/2 of the rows took 1.1-1.35x the time
#: with it, 1/16 0.95-1.05x, 1/32 0.7-0.95x; random nodes of fashion-mnist's 60k x 784
#: codes at 10 labels 1/12 1.15x, 1/16 0.95x, 1/40-1/24 0.9x, 1/60 0.75x, 1/300 0.25x (a
#: 16-leaf tree's nodes of 1/128-1/32 of the rows: 0.83x).
SPARSE_NODE = 16


@njit(cache=True, nogil=True, error_model="numpy")
def _group_histograms(codes, first_feature, stop_feature, rows, every_row, node_weights,
                      node_signs, start, stop, chunk_flat, ahead):
    """The histograms of features ``first_feature:stop_feature`` over positions
    ``start:stop`` of a node (with ``every_row``, the examples themselves: ``rows`` is not
    read), in ``chunk_flat[feature]``, each cell summed from 0.0 in row order. Each group of
    ``FEATURE_GROUP`` features takes one loop, the rest one loop each; the groups are a loop
    here, with no call and no view each (each takes a reference on its arrays: an atomic
    add and its release, a twelfth of a default fashion-mnist round with a call a group).
    Indices are unsigned: a signed one costs a negative-index test per access (2x the
    loop's time). With ``rows`` and ``ahead``, the features' codes of the row
    ``ROWS_AHEAD`` ahead are asked for (a hint: the sums are the same). ``every_row`` is a
    value, not a type, so one compiled kernel serves the root and the nodes below it."""
    one = np.uintp(1)
    last = np.uintp(stop - 1)
    n_samples = np.uintp(codes.shape[1])
    code_cells = codes.reshape(-1)
    for feature in range(first_feature, stop_feature):
        chunk_flat[feature, :] = 0.0
    first = first_feature
    while first + FEATURE_GROUP <= stop_feature:
        f_0, f_1 = np.uintp(first), np.uintp(first + 1)
        f_2, f_3 = np.uintp(first + 2), np.uintp(first + 3)
        if every_row:  # a loop of its own: LLVM kept the flag's test in the one loop (1.1x)
            for p in range(np.uintp(start), np.uintp(stop)):
                weight = node_weights[p]
                sign = np.uintp(node_signs[p])
                chunk_flat[f_0, (np.uintp(codes[f_0, p]) << one) | sign] += weight
                chunk_flat[f_1, (np.uintp(codes[f_1, p]) << one) | sign] += weight
                chunk_flat[f_2, (np.uintp(codes[f_2, p]) << one) | sign] += weight
                chunk_flat[f_3, (np.uintp(codes[f_3, p]) << one) | sign] += weight
        else:
            for p in range(np.uintp(start), np.uintp(stop)):
                if ahead:
                    later = np.uintp(rows[min(p + np.uintp(ROWS_AHEAD), last)])
                    prefetch.read(code_cells, f_0 * n_samples + later)
                    prefetch.read(code_cells, f_1 * n_samples + later)
                    prefetch.read(code_cells, f_2 * n_samples + later)
                    prefetch.read(code_cells, f_3 * n_samples + later)
                row = np.uintp(rows[p])
                weight = node_weights[p]
                sign = np.uintp(node_signs[p])
                chunk_flat[f_0, (np.uintp(codes[f_0, row]) << one) | sign] += weight
                chunk_flat[f_1, (np.uintp(codes[f_1, row]) << one) | sign] += weight
                chunk_flat[f_2, (np.uintp(codes[f_2, row]) << one) | sign] += weight
                chunk_flat[f_3, (np.uintp(codes[f_3, row]) << one) | sign] += weight
        first += FEATURE_GROUP
    for feature in range(first, stop_feature):
        f = np.uintp(feature)
        for p in range(np.uintp(start), np.uintp(stop)):
            if not every_row and ahead:
                prefetch.read(code_cells, f * n_samples
                              + np.uintp(rows[min(p + np.uintp(ROWS_AHEAD), last)]))
            row = p if every_row else np.uintp(rows[p])
            chunk_flat[f, (np.uintp(codes[f, row]) << one) | np.uintp(node_signs[p])] += (
                node_weights[p])


@njit(cache=True, parallel=True, nogil=True, error_model="numpy")
def node_histogram_binary(codes, rows, every_row, weights, sign_index, hist, row_chunk,
                          gather_weights, gather_signs, chunk_hists, n_workers):
    """A tree node's histogram for one label column, parallel over features and rows.

    With ``FEATURES_PER_WORKER`` features a thread or more, the node is one parallel
    region: a thread takes a range of features over every chunk of ``row_chunk`` rows,
    gathering each chunk's weights, signed (``_gather_signed``), into its own part of the
    work space (kept in L2; each thread gathers every chunk, a few percent of the node's
    time, so no gather runs before the region) and adding each chunk's sums as it ends.
    Otherwise the node's weights and signs are gathered once (in parallel above one chunk:
    each parallel region wakes the threads, a cost on a busy machine) and a task takes
    ``FEATURE_GROUP`` features over one chunk; a second region adds the chunks. Either way
    four features take one loop (one load of an example's weight and sign for four
    independent adds). Each cell sums its
    rows in the order of ``rows`` within a chunk, from 0.0, and the chunks' sums are then
    added in chunk order (on a node of under 1/``SPARSE_NODE`` of the rows, the codes of the
    row ``ROWS_AHEAD`` ahead are asked for): a node of at most ``row_chunk`` rows gets
    ``build_histogram_binary_rows``'s histogram bit for bit, and every node the same
    histogram on any thread count (``build_node_histogram_binary_naive``).

    Parameters
    ----------
    codes : ndarray of shape (n_features, n_samples), uint8
    rows : ndarray of shape (n_rows,), intp
        The node's examples (any order); not read with ``every_row``.
    every_row : bool
        Every example, in order (``rows[p] = p`` without the lookup): a value, so that the
        root and the nodes below it run one compiled kernel (``histogram.node_rows``).
    weights : ndarray of shape (n_samples,), float64, contiguous
        W of every example (not gathered).
    sign_index : ndarray of shape (n_samples,), uint8, contiguous
        0 where Y = +1, 1 where Y = -1, of every example.
    hist : ndarray of shape (n_features, n_hist_bins, 1, 2), float64, C-contiguous
        Output; overwritten. ``n_hist_bins`` exceeds every code.
    row_chunk : int
        Rows of a chunk (``ROW_CHUNK``); any value >= 1 gives a histogram the naive twin
        reproduces for that value.
    gather_weights, gather_signs, chunk_hists : ndarray
        Work space, overwritten, so that no node allocates: a grower's arrays for all its
        nodes (``node_histogram_work(weights, hist.shape, row_chunk)``).
    n_workers : int
        The threads of the call (any value >= 1 gives the same histogram): with
        ``FEATURES_PER_WORKER`` features a thread or more, each thread fills a range of
        features over every chunk in one parallel region (``_range_histograms``), else a
        task fills a group of features over one chunk and a second region adds the chunks.
    """
    n_features = codes.shape[0]
    n_rows = codes.shape[1] if every_row else rows.shape[0]
    cells = hist.shape[1] * 2
    flat = hist.reshape((n_features, cells))
    n_chunks = max(1, (n_rows + row_chunk - 1) // row_chunk)
    by_range = n_features >= FEATURES_PER_WORKER * n_workers
    # feature ranges: each thread gathers each chunk's weights itself, into its own part of
    # the work space (no gather region before the histograms)
    chunk_rows = min(row_chunk, n_rows)
    own = by_range and n_workers * chunk_rows <= gather_weights.shape[0]
    node_weights = weights
    node_signs = sign_index
    if not every_row and not own:
        node_weights = gather_weights[:n_rows]
        node_signs = gather_signs[:n_rows]
        if n_chunks == 1:  # no parallel region for a small node (each wakes the threads)
            _gather(rows, weights, sign_index, node_weights, node_signs, 0, n_rows)
        else:
            for chunk in prange(n_chunks):
                _gather(rows, weights, sign_index, node_weights, node_signs, chunk * row_chunk,
                        min((chunk + 1) * row_chunk, n_rows))
    ahead = n_rows * SPARSE_NODE < codes.shape[1]  # a sparse node: ask for codes ahead
    if by_range:
        # one task a thread, each on a feature range of its own over every chunk in order:
        # one parallel region, and the chunk sums stay in L2 (they are added as each ends)
        scratch = chunk_hists[0] if n_chunks > 1 else flat
        for worker in prange(n_workers):
            first = n_features * worker // n_workers
            stop = n_features * (worker + 1) // n_workers
            if not every_row and own:
                _own_range_histograms(
                    codes, first, stop, rows, weights, sign_index,
                    gather_weights[worker * chunk_rows: (worker + 1) * chunk_rows], row_chunk,
                    n_chunks, flat, scratch, ahead)
            else:
                _range_histograms(codes, first, stop, rows, every_row, node_weights,
                                  node_signs, n_rows, row_chunk, n_chunks, flat, scratch, ahead)
        return
    if n_chunks == 1:
        partial = flat.reshape((1, n_features, cells))
    else:
        partial = chunk_hists[:n_chunks]
    n_groups = (n_features + FEATURE_GROUP - 1) // FEATURE_GROUP
    for task in prange(n_groups * n_chunks):
        first = FEATURE_GROUP * (task // n_chunks)
        chunk = task % n_chunks
        start = chunk * row_chunk
        _group_histograms(codes, first, min(first + FEATURE_GROUP, n_features), rows,
                          every_row, node_weights, node_signs, start,
                          min(start + row_chunk, n_rows), partial[chunk], ahead)
    if n_chunks > 1:
        for feature in prange(n_features):
            for cell in range(cells):
                total = partial[0, feature, cell]
                for chunk in range(1, n_chunks):
                    total += partial[chunk, feature, cell]
                flat[feature, cell] = total


@njit(cache=True, nogil=True, error_model="numpy")
def _range_histograms(codes, first_feature, stop_feature, rows, every_row, node_weights,
                      node_signs, n_rows, row_chunk, n_chunks, flat, chunk_flat, ahead):
    """``build_node_histogram_binary``'s histograms of features ``first_feature:stop_feature``
    into ``flat``: chunk 0 straight into ``flat``, each later chunk into ``chunk_flat`` (the
    same features' rows) and then added to ``flat``, so every cell is ``(chunk 0 + chunk 1)
    + chunk 2 ...``, the sum of the chunk-task path to the bit.
    """
    # np.intp(0), not 0: a literal argument compiles the helper a second time
    _group_histograms(codes, first_feature, stop_feature, rows, every_row, node_weights,
                      node_signs, np.intp(0), min(row_chunk, n_rows), flat, ahead)
    for chunk in range(1, n_chunks):
        start = chunk * row_chunk
        _group_histograms(codes, first_feature, stop_feature, rows, every_row, node_weights,
                          node_signs, start, min(start + row_chunk, n_rows), chunk_flat, ahead)
        _add_chunk(flat, chunk_flat, first_feature, stop_feature)


@njit(cache=True, nogil=True, inline="always")
def _add_chunk(flat, chunk_flat, first, stop):
    """``flat += chunk_flat`` on features ``first:stop``, cell by cell (a later chunk's sums
    added to the node's)."""
    for feature in range(first, stop):
        for cell in range(flat.shape[1]):
            flat[feature, cell] += chunk_flat[feature, cell]


@njit(cache=True, nogil=True, inline="always")
def _gather_signed(rows, weights, sign_index, signed, n_rows):
    """``signed[p]``: the weight of row ``rows[p]``, negated where its sign index is 1."""
    last = np.intp(n_rows - 1)
    for p in range(n_rows):
        ahead = np.uintp(rows[min(p + ROWS_AHEAD, last)])
        prefetch.read(weights, ahead)
        prefetch.read(sign_index, ahead)
        weight = weights[rows[p]]
        signed[p] = -weight if sign_index[rows[p]] else weight


@njit(cache=True, nogil=True, error_model="numpy")
def _signed_histograms(codes, first_feature, stop_feature, rows, signed, n_rows, chunk_flat,
                       ahead):
    """``_group_histograms`` from signed weights: the cell of sign ``signed[p] < 0`` gets
    ``|signed[p]|``, one load a row for both. A weight of 0.0 goes to either cell: adding
    0.0 leaves a sum of non-negative weights the same to the bit."""
    one = np.uintp(1)
    last = np.uintp(n_rows - 1)
    n_samples = np.uintp(codes.shape[1])
    code_cells = codes.reshape(-1)
    for feature in range(first_feature, stop_feature):
        chunk_flat[feature, :] = 0.0
    first = first_feature
    while first + FEATURE_GROUP <= stop_feature:
        f_0, f_1 = np.uintp(first), np.uintp(first + 1)
        f_2, f_3 = np.uintp(first + 2), np.uintp(first + 3)
        for p in range(np.uintp(n_rows)):
            if ahead:
                later = np.uintp(rows[min(p + np.uintp(ROWS_AHEAD), last)])
                prefetch.read(code_cells, f_0 * n_samples + later)
                prefetch.read(code_cells, f_1 * n_samples + later)
                prefetch.read(code_cells, f_2 * n_samples + later)
                prefetch.read(code_cells, f_3 * n_samples + later)
            row = np.uintp(rows[p])
            value = signed[p]
            sign = np.uintp(value < 0.0)
            weight = abs(value)
            chunk_flat[f_0, (np.uintp(codes[f_0, row]) << one) | sign] += weight
            chunk_flat[f_1, (np.uintp(codes[f_1, row]) << one) | sign] += weight
            chunk_flat[f_2, (np.uintp(codes[f_2, row]) << one) | sign] += weight
            chunk_flat[f_3, (np.uintp(codes[f_3, row]) << one) | sign] += weight
        first += FEATURE_GROUP
    for feature in range(first, stop_feature):
        f = np.uintp(feature)
        for p in range(np.uintp(n_rows)):
            if ahead:
                prefetch.read(code_cells, f * n_samples
                              + np.uintp(rows[min(p + np.uintp(ROWS_AHEAD), last)]))
            value = signed[p]
            chunk_flat[f, (np.uintp(codes[f, np.uintp(rows[p])]) << one)
                       | np.uintp(value < 0.0)] += abs(value)


@njit(cache=True, nogil=True, error_model="numpy")
def _own_range_histograms(codes, first_feature, stop_feature, rows, weights, sign_index,
                          own_weights, row_chunk, n_chunks, flat, chunk_flat, ahead):
    """``_range_histograms`` chunk by chunk, each chunk's weights and signs gathered into
    ``own_weights`` first (signed, ``_gather_signed``; this thread's, ``row_chunk`` long,
    kept in L2 while its features take them); every cell is the same sum, ``(chunk 0 +
    chunk 1) + chunk 2 ...``."""
    n_rows = rows.shape[0]
    for chunk in range(n_chunks):
        start = chunk * row_chunk
        stop = min(start + row_chunk, n_rows)
        chunk_rows = rows[start:stop]
        _gather_signed(chunk_rows, weights, sign_index, own_weights, stop - start)
        if chunk == 0:
            _signed_histograms(codes, first_feature, stop_feature, chunk_rows, own_weights,
                               stop - start, flat, ahead)
            continue
        _signed_histograms(codes, first_feature, stop_feature, chunk_rows, own_weights,
                           stop - start, chunk_flat, ahead)
        _add_chunk(flat, chunk_flat, first_feature, stop_feature)


def _on_thread_count(kernel):
    """``build_node_histogram_binary``: ``kernel`` called with this thread's numba thread
    count. The kernel is held here, not looked up in the module's globals, which point at
    its parallel dispatcher once numba loads: through the kernel object a call inside
    ``lazy_numba.serial_kernels`` (a fit on one thread) runs its serial build."""

    def build_node_histogram_binary(codes, rows, weights, sign_index, hist, row_chunk,
                                    gather_weights, gather_signs, chunk_hists):
        """A tree node's histogram for one label column (``node_histogram_binary`` on this
        thread's numba thread count, which sets only how the work is shared)."""
        kernel(codes, *node_rows(rows), weights, sign_index, hist, row_chunk, gather_weights,
               gather_signs, chunk_hists, load_numba().get_num_threads())

    return build_node_histogram_binary


build_node_histogram_binary = _on_thread_count(node_histogram_binary)


def node_histogram_work(weights, hist_shape, row_chunk):
    """The work space of ``build_node_histogram_binary`` (1-D ``weights``) or
    ``build_node_histogram`` (2-D) for nodes of any of the rows of ``weights``, histograms
    of ``hist_shape`` and chunks of ``row_chunk`` rows: arrays a grower keeps for all its
    nodes, so that no node allocates its own.

    Parameters
    ----------
    weights : ndarray of shape (n_samples,) or (n_samples, k)
    hist_shape : tuple (n_features, n_hist_bins, k, 2)
    row_chunk : int

    Returns
    -------
    gather_weights : ndarray of shape (n_samples,) + weights.shape[1:], weights' dtype
    gather_signs : ndarray of that shape, uint8 (the sign index's dtype)
    chunk_hists : ndarray of shape (n_chunks, n_features, cells), float64
        One flat histogram per chunk of a node of every row (none when that is one chunk).
    """
    n_rows = weights.shape[0]
    n_features, n_hist_bins, k, _ = hist_shape
    cells = n_hist_bins * 2 * k
    n_chunks = max(1, (n_rows + row_chunk - 1) // row_chunk)
    if weights.ndim == 2:
        n_chunks = node_chunks.py_func(n_rows, row_chunk, n_features * cells * 8)[0]
    shape = (n_rows, *weights.shape[1:])
    return (np.empty(shape, dtype=weights.dtype), np.empty(shape, dtype=np.uint8),
            np.empty((n_chunks if n_chunks > 1 else 0, n_features, cells), dtype=WEIGHT_DTYPE))


#: Most bytes of chunk histograms ``build_node_histogram`` holds at once (256 MiB): past it
#: a node's chunks grow (``node_chunks``), so many features and labels cannot ask for one
#: histogram per 65536 rows of a large node.
PARTIAL_BYTES = 1 << 28


@njit(cache=True, nogil=True)
def node_chunks(n_rows, row_chunk, hist_bytes):
    """(n_chunks, rows per chunk) of a node of ``n_rows`` rows for ``build_node_histogram``:
    chunks of ``row_chunk`` rows, fewer and larger when their histograms of ``hist_bytes``
    each would pass ``PARTIAL_BYTES``. A function of its arguments only, never of the
    thread count."""
    n_chunks = max(1, (n_rows + row_chunk - 1) // row_chunk)
    n_chunks = min(n_chunks, max(1, PARTIAL_BYTES // max(hist_bytes, 1)))
    return n_chunks, max(1, (n_rows + n_chunks - 1) // n_chunks)


@njit(cache=True, nogil=True)
def _gather_labels(rows, weights, sign_index, node_weights, node_signs, first, stop):
    """The k weights and signs of the node's positions ``first:stop``, gathered.

    Not inlined into ``build_node_histogram`` (``_gather`` is): its row slices, inlined
    into the parallel loop, took a satimage round from 3.4 to 10 ms (one thread)."""
    for p in range(first, stop):  # by element: an array copied into a slice compiles numba's
        # shape-error message, 1-3 s of CPU on an empty cache
        row = rows[p]
        for l in range(node_weights.shape[1]):
            node_weights[p, l] = weights[row, l]
            node_signs[p, l] = sign_index[row, l]


@njit(cache=True, nogil=True, error_model="numpy")
def _feature_histogram(feature_codes, rows, every_row, node_weights, node_signs, start, stop,
                       feature_hist, ahead):
    """One feature's histogram, flat ``(code * k + l) * 2 + sign``, over positions
    ``start:stop`` of a node (with ``every_row``, the examples themselves), each cell summed
    from 0.0 in row order; with ``ahead``, the code of the row ``ROWS_AHEAD`` ahead is asked
    for."""
    k = node_weights.shape[1]
    width = np.uintp(2 * k)
    last = np.uintp(stop - 1)
    feature_hist[:] = 0.0
    for p in range(np.uintp(start), np.uintp(stop)):
        if ahead:
            prefetch.read(feature_codes, np.uintp(rows[min(p + np.uintp(ROWS_AHEAD), last)]))
        row = p if every_row else np.uintp(rows[p])
        base = np.uintp(feature_codes[row]) * width
        weight_row = node_weights[p]
        sign_row = node_signs[p]
        for l in range(k):
            feature_hist[base + np.uintp(2 * l) + np.uintp(sign_row[l])] += weight_row[l]


@njit(cache=True, nogil=True, error_model="numpy")
def _label_group_histograms(codes, first, count, rows, every_row, node_weights, node_signs,
                            start, stop, chunk_flat, ahead):
    """``_feature_histogram`` of features ``first:first + count`` into ``chunk_flat[feature]``
    (``count`` of 1 to ``FEATURE_GROUP``). Four features take one loop: an example's k
    weights and cell offsets ``2 l + sign`` are loaded once for four independent adds each;
    every cell still sums its rows in row order from 0.0. With ``ahead`` (``rows`` given),
    the features' codes of the row ``ROWS_AHEAD`` ahead are asked for."""
    if count < FEATURE_GROUP:
        for feature in range(first, first + count):
            _feature_histogram(codes[feature], rows, every_row, node_weights, node_signs,
                               start, stop, chunk_flat[feature], ahead)
        return
    k = node_weights.shape[1]
    width = np.uintp(2 * k)
    codes_0, codes_1 = codes[first], codes[first + 1]
    codes_2, codes_3 = codes[first + 2], codes[first + 3]
    hist_0, hist_1 = chunk_flat[first], chunk_flat[first + 1]
    hist_2, hist_3 = chunk_flat[first + 2], chunk_flat[first + 3]
    last = np.uintp(stop - 1)
    for feature in range(first, first + FEATURE_GROUP):
        chunk_flat[feature, :] = 0.0
    for p in range(np.uintp(start), np.uintp(stop)):
        if ahead:
            later = np.uintp(rows[min(p + np.uintp(ROWS_AHEAD), last)])
            prefetch.read(codes_0, later)
            prefetch.read(codes_1, later)
            prefetch.read(codes_2, later)
            prefetch.read(codes_3, later)
        row = p if every_row else np.uintp(rows[p])
        base_0 = np.uintp(codes_0[row]) * width
        base_1 = np.uintp(codes_1[row]) * width
        base_2 = np.uintp(codes_2[row]) * width
        base_3 = np.uintp(codes_3[row]) * width
        weight_row = node_weights[p]
        sign_row = node_signs[p]
        for l in range(k):
            weight = weight_row[l]
            cell = np.uintp(2 * l) + np.uintp(sign_row[l])
            hist_0[base_0 + cell] += weight
            hist_1[base_1 + cell] += weight
            hist_2[base_2 + cell] += weight
            hist_3[base_3 + cell] += weight


@njit(cache=True, parallel=True, nogil=True, error_model="numpy")
def build_node_histogram(codes, rows, every_row, weights, sign_index, hist, row_chunk,
                         gather_weights, gather_signs, chunk_hists):
    """A tree node's histogram for k label columns, parallel over features and rows.

    ``build_node_histogram_binary`` for 2-D weights and signs (the label trees below
    ``learners/tree.MASS_MIN_LABELS`` labels): the node's weights and signs are gathered
    once in the kernel, and each (group of ``FEATURE_GROUP`` features, chunk of rows,
    ``node_chunks``) is a task with a histogram of its own (an example's k weights and signs
    loaded once for the group's four features: 0.75-0.9x the time on satimage-like nodes,
    6 labels); the chunks' histograms are added in chunk order (on a node of under
    1/``SPARSE_NODE`` of the rows, the codes of the row ``ROWS_AHEAD`` ahead are asked
    for). A node of one chunk gets ``build_histogram_rows``'s histogram bit for bit
    (``build_histogram``'s for every row), and every node the same histogram on any thread
    count (``build_node_histogram_naive``).

    Parameters
    ----------
    codes : ndarray of shape (n_features, n_samples), uint8
    rows : ndarray of shape (n_rows,), intp
        The node's examples (any order); not read with ``every_row``.
    every_row : bool
        Every example, in order: a value, not a type (``histogram.node_rows``), so one
        compiled kernel serves the root and the nodes below it.
    weights : ndarray of shape (n_samples, k), float64, C-contiguous
        W of every example (not gathered).
    sign_index : ndarray of shape (n_samples, k), uint8, C-contiguous
        0 where Y = +1, 1 where Y = -1, of every example.
    hist : ndarray of shape (n_features, n_hist_bins, k, 2), float64, C-contiguous
        Output; overwritten. ``n_hist_bins`` exceeds every code.
    row_chunk : int
        Rows of a chunk (``ROW_CHUNK``) before ``node_chunks``' memory bound; any value
        >= 1 gives a histogram the naive twin reproduces for that value.
    gather_weights, gather_signs, chunk_hists : ndarray
        Work space, overwritten, so that no node allocates: a grower's arrays for all its
        nodes (``node_histogram_work(weights, hist.shape, row_chunk)``).
    """
    n_features = codes.shape[0]
    k = weights.shape[1]
    n_rows = codes.shape[1] if every_row else rows.shape[0]
    cells = hist.shape[1] * 2 * k
    flat = hist.reshape((n_features, cells))
    n_chunks, chunk_rows = node_chunks(n_rows, row_chunk, n_features * cells * 8)
    ahead = n_rows * SPARSE_NODE < codes.shape[1]  # a sparse node: ask for codes ahead
    node_weights = weights
    node_signs = sign_index
    if not every_row:
        node_weights = gather_weights[:n_rows]
        node_signs = gather_signs[:n_rows]
        if n_chunks == 1:  # no parallel region for a small node (each wakes the threads)
            # np.intp(0), not 0: a literal argument compiles the helper a second time
            _gather_labels(rows, weights, sign_index, node_weights, node_signs, np.intp(0),
                           n_rows)
        else:
            for chunk in prange(n_chunks):
                _gather_labels(rows, weights, sign_index, node_weights, node_signs,
                               chunk * chunk_rows, min((chunk + 1) * chunk_rows, n_rows))
    if n_chunks == 1:
        partial = flat.reshape((1, n_features, cells))
    else:
        partial = chunk_hists[:n_chunks]
    n_groups = (n_features + FEATURE_GROUP - 1) // FEATURE_GROUP
    for task in prange(n_groups * n_chunks):
        first = FEATURE_GROUP * (task // n_chunks)
        chunk = task % n_chunks
        start = chunk * chunk_rows
        _label_group_histograms(codes, first, min(FEATURE_GROUP, n_features - first), rows,
                                every_row, node_weights, node_signs, start,
                                min(start + chunk_rows, n_rows), partial[chunk], ahead)
    if n_chunks > 1:
        for feature in prange(n_features):  # chunk by chunk: contiguous, the same sums
            feature_hist = flat[feature]
            first_hist = partial[0, feature]
            for cell in range(cells):  # not a slice copy: numba's costs seconds to compile
                feature_hist[cell] = first_hist[cell]
            for chunk in range(1, n_chunks):
                chunk_hist = partial[chunk, feature]
                for cell in range(cells):
                    feature_hist[cell] += chunk_hist[cell]


def build_node_histogram_naive(codes, rows, weights, sign_index, n_hist_bins, row_chunk):
    """Twin of ``build_node_histogram``: one ``np.bincount`` (a sum in index order) per
    feature, label and chunk (``node_chunks``), the chunks added in order; returns the
    histogram, shape (n_features, n_hist_bins, k, 2)."""
    rows = np.arange(codes.shape[1]) if rows is None else rows
    n_features, k = codes.shape[0], weights.shape[1]
    n_chunks, chunk_rows = node_chunks(rows.shape[0], row_chunk,
                                       n_features * n_hist_bins * 2 * k * 8)
    hist = None
    for chunk in range(n_chunks):
        part_rows = rows[chunk * chunk_rows: (chunk + 1) * chunk_rows]
        part = np.empty((n_features, n_hist_bins, k, 2), dtype=WEIGHT_DTYPE)
        for f in range(n_features):
            for l in range(k):
                cell = codes[f, part_rows].astype(np.intp) * 2 + sign_index[part_rows, l]
                part[f, :, l, :] = np.bincount(cell, weights=weights[part_rows, l],
                                               minlength=2 * n_hist_bins).reshape(-1, 2)
        hist = part if hist is None else hist + part
    return hist


def build_node_histogram_binary_naive(codes, rows, weights, sign_index, n_hist_bins,
                                      row_chunk):
    """Twin of ``build_node_histogram_binary``: one ``np.bincount`` per feature and chunk,
    the chunks added in order; returns the histogram, shape (n_features, n_hist_bins, 1, 2).
    """
    rows = np.arange(codes.shape[1]) if rows is None else rows
    n_features = codes.shape[0]
    hist = None
    for start in range(0, max(rows.shape[0], 1), row_chunk):
        chunk = rows[start: start + row_chunk]
        cell = codes[:, chunk].astype(np.intp) * 2 + sign_index[chunk]
        part = np.stack([np.bincount(cell[f], weights=weights[chunk],
                                     minlength=2 * n_hist_bins) for f in range(n_features)])
        hist = part if hist is None else hist + part
    return hist.reshape((n_features, n_hist_bins, 1, 2))
