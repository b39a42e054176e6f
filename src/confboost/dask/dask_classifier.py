"""Distributed training on Dask: the local fit, with the training rows on the workers.

A thin layer in the shape of LightGBM's ``dask.py``: it never re-implements the algorithm
or fitting's rules. ``fit`` is ``BoostClassifier``'s: one ``training.fit_runs.Fit`` (here
``cluster_fit.ClusterFit``, which changes only where the rows are), so ``eval_set`` and early
stopping, the evaluation history, ``class_weight``, ``warm_start`` and calibration follow
the local rules. The partitions of the training data that a worker holds become one
*shard* on it (``shards.py``): their rows binned with the common bins and coded with the
common vocabularies (a ``Dataset``) and the local scheme over those rows, its weights
normalised by the whole training set's total, so that every shard's D, training loss and
Z_t are its share of the whole set's. A round is one task per worker that holds rows: the
local learner and the scheme's update on its shard, every sum they take allreduced between
the fit's workers (``collective.py``, the ``engine/reduction.py`` seam); the client's
learner and scheme of no rows (the bins, vocabularies and label count) read the round's
hypothesis and sums from it. Only sums travel.

Bins come from a sample of at most ``bin_rows`` (200,000, ``BinMapper``'s own subsample
size) rows drawn from every partition in proportion to its size, and fitted on a worker:
the client receives the thresholds, never rows. On data of at most that many rows the
sample is the data, so the bins, and hence the hypotheses, are those of ``BoostClassifier``
on the gathered data (equal to rounding: the partitions' sums are added in another order).
A categorical column's vocabulary is the union of the partitions' distinct values
(``partitions.table_columns``), sorted, as the local encoder's; a text column's is the
local rule applied to the partitions' term counts, added on the client (``text.py``).

A worker lost in the middle of training fails the round (its peers' sockets end); the
shards are rebuilt from the input partitions and the rounds replayed, and after
``max_retries`` failures (or a round that takes longer than ``timeout`` seconds) ``fit``
raises a ``RuntimeError``.

The input side (aligned partitions, their summaries, the bins' sample, a table's column
kinds and vocabularies) is ``partitions.py``; the fit over the shards ``cluster_fit.py``;
the shards and the client's reducer ``shards.py``; a round on the workers ``collective.py``.

Requires the ``dask`` extra: ``pip install 'confboost[dask]'``.
"""

from numbers import Integral, Real

import dask.array as da
import numpy as np
from dask import delayed
from distributed import default_client
from sklearn.utils._param_validation import Interval

from confboost.dask.cluster_fit import ClusterFit
from confboost.dask.partitions import BIN_SAMPLE, is_dask_collection, is_dask_frame
from confboost.estimators.classifier import BoostClassifier

__all__ = ["DaskBoostClassifier"]

#: The parameters of the cluster fit that ``BoostClassifier`` does not have.
DASK_PARAMETERS = ("client", "timeout", "max_retries", "bin_rows")


class DaskBoostClassifier(BoostClassifier):
    """``BoostClassifier`` trained on a Dask cluster; the same model as one machine.

    Takes every parameter of ``BoostClassifier`` and, in addition:

    Parameters
    ----------
    client : distributed.Client, optional
        The cluster to train on; default: ``distributed.default_client()``.
    timeout : float, default=600
        Seconds one round's results may take before the round is retried, and that each
        wait before training may take (the partitions' sizes, labels and weights, the
        categorical columns' values, the bins) before ``fit`` raises a TimeoutError naming
        what it waited for.
    max_retries : int, default=2
        Rebuilds of the shards after a failure before ``fit`` raises ``RuntimeError``.
    weak_learner : default="stump"
        Not ``BoostClassifier``'s "auto": data worth a cluster is always large enough for
        "auto" to grow trees, and each split of a tree costs the workers an allreduce of a
        node histogram on top of a stump round's work. "auto" is resolved as
        ``BoostClassifier`` does, on the total row count and the features × labels (a tree
        per label, ``"label_trees"``, where the local fit grows one), and so are
        ``max_leaves``'s and ``learning_rate``'s "auto" (``max_leaves_``,
        ``learning_rate_``: trees of 32 leaves at 0.5 on more than 10,000 rows of at most
        2,000 features × labels).

    bin_rows : int or None, default=200000
        Rows drawn from the partitions (in proportion to their sizes) to find the bins, on
        one worker. None: every row of positive weight, the exact quantiles of the whole
        set (that worker then holds all of X once).

    The same model as ``BoostClassifier`` on the gathered data (f to rounding: sums are
    added over the shards in another order) on data of at most ``bin_rows`` rows; on larger
    data the bins come from another sample than ``BoostClassifier``'s own (it draws 200,000
    rows itself), so the thresholds, and the models, differ a little.

    Everything ``BoostClassifier.fit`` takes is supported, and what it refuses (a product
    on a table with categorical or text columns, a tree per label under MR) is refused with
    its error: every weak learner, a tree per label included (``cluster_label_trees.py``),
    on numeric, categorical and text columns (a tree node's term masses are summed over the
    workers, ``text.py``); a ``Checkpoint`` callback saves the changes that rebuild the
    shards' state (``cluster_checkpoint.py``); multi-label MR's cut comes from histograms of
    the shards' scores (``cut.py``).

    ``eval_set``'s pairs (dask collections or in-memory data) are gathered to the client and
    scored there every round, as are, under early stopping, the at most 10,000 training
    rows of the training score and, without an ``eval_set``, the ``validation_fraction``
    of the training rows held out (chosen by the local rule; the main run then trains, and
    is binned, on the other rows). Calibration (``calibration="temperature"``, the default) is
    the local one: on the first ``eval_set`` pair, or, without one, on the short runs of the
    rows the local fit holds out (one ``validation_fraction`` above 2,500 rows, else three
    cross-fitted folds), each run on shards of its own with the main run's bins. For that
    the labels (one value a row) come to the client, to choose the held-out rows as the
    local fit does, and the held-out rows themselves, to be scored there.
    ``warm_start=True`` keeps the fit's shards on the cluster until the next fit continues
    them.

    ``predict``, ``predict_proba`` and ``decision_function`` of a dask collection return a
    dask array computed partition by partition (of in-memory data, ``BoostClassifier``'s
    answer); ``to_local()`` is the plain ``BoostClassifier``.
    """

    _parameter_constraints = {
        **BoostClassifier._parameter_constraints,
        "client": "no_validation",
        "timeout": [Interval(Real, 0, None, closed="neither")],
        "max_retries": [Interval(Integral, 0, None, closed="left")],
        "bin_rows": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, n_estimators=100, *, client=None, timeout=600.0, max_retries=2,
                 bin_rows=BIN_SAMPLE, weak_learner="stump", **params):
        super().__init__(n_estimators, weak_learner=weak_learner, **params)
        self.client = client
        self.timeout = timeout
        self.max_retries = max_retries
        self.bin_rows = bin_rows

    @classmethod
    def _get_param_names(cls):
        return sorted(set(BoostClassifier._get_param_names())
                      | set(DASK_PARAMETERS))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags

    def fit(self, X, y, sample_weight=None, callbacks=None, eval_set=None, eval_names=None):
        """Boost on dask collections (X: n_samples × n_features; y: labels or indicator
        rows; sample_weight: a dask array), as ``BoostClassifier.fit``.

        The training rows stay on the workers (see the module docstring). ``eval_set``'s
        pairs may be dask collections or in-memory data; they are gathered to the client and
        scored there every round. The fit is all or nothing, as ``BoostClassifier.fit``'s.
        """
        return super().fit(X, y, sample_weight, callbacks, eval_set, eval_names)

    def _new_fit(self, mode):
        """The local ``Fit`` with the training rows on the cluster (``ClusterFit``)."""
        return ClusterFit(self, mode, self.client if self.client is not None
                          else default_client())

    def to_local(self):
        """The fitted model as a plain ``BoostClassifier`` (same parameters and model)."""
        local = BoostClassifier(**{key: value for key, value in self.get_params().items()
                                   if key not in DASK_PARAMETERS})
        for key, value in self.__dict__.items():
            if key.endswith("_") or key == "_multilabel":
                setattr(local, key, value)
        return local

    def _map(self, X, method, n_outputs, dtype=np.float64):
        """``method`` of the local model on every partition of a dask collection
        (in-memory X: ``BoostClassifier``'s own, which a fit's scoring views answer)."""
        if not is_dask_collection(X):
            return getattr(BoostClassifier, method)(self, X)
        local = self.to_local()
        if is_dask_frame(X) and hasattr(self, "encoder_"):
            # the local model reads each pandas partition through its encoder
            lengths = [int(n) for n in X.map_partitions(len).compute()]
            shape = () if n_outputs is None else (n_outputs,)
            return da.concatenate([
                da.from_delayed(delayed(getattr(local, method))(part), (n, *shape), dtype)
                for part, n in zip(X.to_delayed(), lengths, strict=True)])
        if is_dask_frame(X):
            X = X.to_dask_array(lengths=True)
        X = X.rechunk({1: -1})
        if n_outputs is None:
            return X.map_blocks(getattr(local, method), drop_axis=1, dtype=dtype)
        return X.map_blocks(getattr(local, method), chunks=(X.chunks[0], (n_outputs,)),
                            dtype=dtype)

    def decision_function(self, X):
        if not is_dask_collection(X):
            return super().decision_function(X)
        k = self.model_.n_labels
        return self._map(X, "decision_function", None if k == 1 else k)

    def predict_proba(self, X):
        return self._map(X, "predict_proba", self.classes_.size)

    def predict(self, X):
        if self._multilabel:
            return self._map(X, "predict", self.classes_.size, np.int64)
        return self._map(X, "predict", None, self.classes_.dtype)

    @classmethod
    def load(cls, path):
        """A model saved by ``save`` (this class's or ``BoostClassifier``'s), for Dask."""
        from confboost.estimators.classifier import load

        local = load(path)
        model = cls(**local.get_params())
        model.__dict__.update({key: value for key, value in local.__dict__.items()
                               if key.endswith("_") or key == "_multilabel"})
        return model

    def save(self, path):
        """Write the model as ``BoostClassifier.save`` does (``confboost.load`` reads it)."""
        self.to_local().save(path)
