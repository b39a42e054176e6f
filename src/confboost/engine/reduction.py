"""The reduction seam: every sum over training examples that a learner or a scheme takes.

A weak learner's histograms (§4.1's W+/W- per bin, a categorical column's value masses)
and a scheme's Z_t and loss (Figure 1's normaliser) are sums over examples. Learners and
schemes take them through a ``Reducer``, so the same classes train on one machine and on
rows spread over many (XGBoost's ``collective`` allreduce at its sum points plays this
part; here a reducer is handed to the learner and the scheme instead):

- ``sum(function, dataset, weights, labels, *args)``: Σ over the shards of
  ``function(dataset, weights, labels, *args)``, each shard putting in its own rows, weights
  and label signs (a learner's histograms);
- ``total(value)``: Σ over the shards of a value each shard computed of its own rows, at
  the learner's own sum points (the tree learners': a node's histogram and row count, its
  categorical masses, a Hamming tree's votes, the leaves' statistics);
- ``rows(function, dataset, *args)``: ``function(dataset, *args)`` of each shard's rows,
  kept where the rows are (the training blocks of a round's hypothesis);
- ``apply(function, scheme, *args)``: every shard's scheme changed in place by
  ``function(scheme, *args)``, and what the calls return summed (Z_t and loss shares; MR's
  pair masses and the histograms of its multi-label cut, which only read the scheme).

On one machine there is one shard, the data itself: ``LocalReducer`` calls the function
and returns what it returns (no copy, no other work), so a local fit is the fit it was
before the seam. On a Dask cluster (``confboost.dask.collective``) the same learners and
schemes run on every worker that holds rows, with a reducer whose ``sum`` and ``apply``
return the allreduce of the worker's own result over the fit's workers, and the client's
scheme of no rows reads those sums back (``confboost.dask.shards.ClusterReducer``).

The protocol is ``engine/protocols.Reducer``. A value returned by ``rows`` is passed back,
unchanged, as an argument of a later ``sum`` or ``apply`` of the same reducer: there each
shard reads its own part of it.

Sums of one row per posting list and label (a text column's present blocks, a tree node's
term splits) would hold lists × k floats at once: Reuters-21578's 100,912 lists × 90 labels
are 73 MB an array. The learners take them a slice of lists at a time (``slices``), each
slice's sums one ``sum`` or ``total``, scored before the next is summed; a reducer says
how many cells a slice holds (``slice_cells``). On one machine a slice costs one more
call of the kernels; on a cluster, one more allreduce inside the round's task.
"""

from confboost.utils.lazy_numba import numba_loaded
from confboost.utils.threads import kernel_threads

#: Cells (float64) of a slice of per-list sums on one machine, for kernel calls on several
#: threads: 16 MiB an array, whatever the vocabulary and the labels (Reuters-21578's 100,912
#: lists × 90 labels: 5 slices, where one array of every list was 73 MB); the icsiboost stems
#: and smaller sets are one slice. A slice more is one more start of the kernels' parallel
#: regions, which on busy cores (OpenMP threads waiting for a core) costs milliseconds: 2 MiB
#: slices made a two-thread Reuters-21578 term search 4x slower, 8 MiB ones 1.2x.
LOCAL_SLICE_CELLS = 1 << 21
#: ...and for calls on one thread, which start no parallel region: 2 MiB an array, whose
#: sums are still in the cache when their gains are taken (a Reuters-21578 text tree's call
#: 0.7x the CPU of 16 MiB slices).
ONE_THREAD_SLICE_CELLS = 1 << 18


def slices(sizes, width, cells):
    """The rows of several arrays, taken in order, cut into slices of at most ``cells``
    cells (and at least one row).

    Parameters
    ----------
    sizes : sequence of int
        Rows of each array (a text column's scored lists).
    width : int
        Cells a row (the labels k).
    cells : int
        The most cells of a slice (``Reducer.slice_cells``).

    Returns
    -------
    list of list of (int, int, int)
        Per slice, its pieces ``(array, start, stop)``: rows ``start:stop`` of array
        ``array``, in the order of the arrays and of their rows; empty arrays have none.
    """
    rows = max(1, int(cells) // max(int(width), 1))
    cut, pieces, room = [], [], rows
    for index, size in enumerate(sizes):
        start = 0
        while start < size:
            stop = min(size, start + room)
            pieces.append((index, start, stop))
            room -= stop - start
            start = stop
            if room == 0:
                cut.append(pieces)
                pieces, room = [], rows
    if pieces:
        cut.append(pieces)
    return cut


def slice_rows(pieces):
    """Rows of a slice of ``slices``: its pieces' rows together."""
    return sum(stop - start for _, start, stop in pieces)


def placed(pieces):
    """Each piece of a slice of ``slices`` with the rows it takes in the slice's arrays:
    ``(array, start, stop, rows)``, ``rows`` the ``slice`` of ``stop - start`` rows after
    the pieces before it."""
    at = 0
    for index, start, stop in pieces:
        yield index, start, stop, slice(at, at + stop - start)
        at += stop - start


class LocalReducer:
    """The reducer of one machine: one shard, the data itself; each method calls the
    function on the caller's arguments and returns its result.

    Parameters
    ----------
    slice_cells : int, optional
        Cells of a slice of per-list sums. By default ``ONE_THREAD_SLICE_CELLS`` while this
        thread's kernel calls run on one thread (numba loaded and
        ``utils.threads.kernel_threads`` 1), else ``LOCAL_SLICE_CELLS``; the models do not
        depend on it.
    """

    _slice_cells = None  # the size given, if any

    def __init__(self, slice_cells=None):
        if slice_cells is not None:
            if isinstance(slice_cells, bool) or not isinstance(slice_cells, int) \
                    or slice_cells < 1:
                raise ValueError(f"slice_cells must be a positive integer, got {slice_cells!r}")
        self._slice_cells = slice_cells

    @property
    def slice_cells(self):
        """Cells of a slice of per-list sums for the calls this thread makes now."""
        if self._slice_cells is not None:
            return self._slice_cells
        one_thread = numba_loaded() and kernel_threads() == 1  # not loaded: its count unknown
        return ONE_THREAD_SLICE_CELLS if one_thread else LOCAL_SLICE_CELLS

    def sum(self, function, dataset, weights, labels, *args, out=None):
        if out is None:
            return function(dataset, weights, labels, *args)
        return function(dataset, weights, labels, *args, out=out)

    def total(self, value, out=None):
        if out is None or out is value:
            return value
        out[...] = value
        return out

    def rows(self, function, dataset, *args):
        return function(dataset, *args)

    def apply(self, function, scheme, *args):
        return function(scheme, *args)


#: The reducer of every local fit (it holds nothing).
LOCAL = LocalReducer()
