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
"""


class LocalReducer:
    """The reducer of one machine: one shard, the data itself; each method calls the
    function on the caller's arguments and returns its result."""

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
