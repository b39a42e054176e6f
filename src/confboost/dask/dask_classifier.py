"""Distributed training on Dask: the local engine run on each worker's rows, histograms summed.

A thin layer in the shape of LightGBM's ``dask.py``: it never re-implements the algorithm.
The partitions of the training data that a worker holds become one *shard* on it
(``dask_shards.py``): their rows binned with the common bins and coded with the common
vocabularies (a ``Dataset``) and an ``MHScheme`` over those rows whose weights are
normalised by the whole training set's total, so that every shard's D, training loss and
Z_t are its share of the whole set's. The boosting loop is ``boosting.run_boosting``
itself, on the client, with stand-ins for the learner and the scheme:

- ``ShardedStumpLearner``: every shard builds the W+/W- histograms of its rows with the
  local kernel (``StumpLearner.histogram``); the histograms are summed by a reduction tree
  of pairwise additions on the workers; the client picks the stump from the sum with the
  local split search (``StumpLearner.best_split``). Only histograms travel.
- ``ShardedCategoricalLearner``: the same with each categorical column's value histogram
  (``CategoricalLearner.histograms`` / ``best_split``); on a table the stump is the better
  of the two by the local ``BestOfLearner``.
- ``ShardedMHScheme``: α is chosen on the client from the block statistics (§3); every shard
  applies α h_t to its own weights with the local ``MHScheme.update`` and returns its share
  of Z_t, of the training loss and of the round's training cover, which the client adds up.

Bins come from a sample of at most ``BinMapper``'s 200,000 rows drawn from every partition
in proportion to its size, and fitted on a worker: the client receives the thresholds, never
rows. On data of at most that many rows the sample is the data, so the bins, and hence the
hypotheses, are those of ``BoostClassifier`` on the gathered data (equal to rounding: the
partitions' sums are added in another order). A categorical column's vocabulary is the
union of the partitions' distinct values (``dask_input.table_columns``), sorted, as the
local encoder's.

Supported: binary data, AdaBoost.MH (multiclass and multi-label) and AdaBoost.MO (each
shard's ``MOScheme``: MH on its code-relabelled signs, its share of the decoded training
error; the code from ``schemes.mo.build_code`` on the client), AdaBoost.MR on
single-label data (``dask_mr.py``: each shard's ``MRScheme``, the pair masses of α summed,
v normalised by the whole set's Z_t), stumps, trees and Hamming trees (``dask_trees.py``:
the local grower over the shards), numeric and categorical columns.

Shards are immutable (each round makes new ones), so a worker lost in the middle of
training is recovered by Dask from the lineage; if that fails, the shards are rebuilt from
the input partitions and the rounds replayed, and after ``max_retries`` failures (or a round
that takes longer than ``timeout`` seconds) ``fit`` raises a ``RuntimeError``.

The input side (aligned partitions, their summaries, the bins' sample, a table's column
kinds and vocabularies) is ``dask_input.py``; the shards ``dask_shards.py``; trees
``dask_trees.py``.

Requires the ``dask`` extra: ``pip install 'confboost[dask]'``.
"""

import copy
from numbers import Integral, Real

import dask.array as da
import numpy as np
from dask import delayed
from distributed import default_client
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import type_of_target

from confboost.dask.partitions import (
    BIN_SAMPLE,
    bin_sample,
    fit_bins,
    is_dask_frame,
    is_table,
    partition_summary,
    partitions,
    table_columns,
)
from confboost.dask.sharded_mr import ShardedMRScheme
from confboost.dask.sharded_trees import ShardedHammingTreeLearner, ShardedTreeLearner
from confboost.dask.shards import Shards, advance_shard, build_shards
from confboost.data.dataset import CategoricalColumn, Dataset
from confboost.engine.boosting import ProgressPrinter, run_boosting
from confboost.engine.confidence import smoothing_from_totals
from confboost.engine.learners import choose_learner
from confboost.engine.learners.base import PartitionFit
from confboost.engine.learners.best_of import BestOfLearner
from confboost.engine.learners.categorical import CategoricalLearner
from confboost.engine.learners.stump import StumpLearner
from confboost.engine.model import BoostedModel
from confboost.engine.schemes import BINARY_CODE
from confboost.engine.schemes.codes import min_distance
from confboost.engine.schemes.mh import MHScheme, mh_bound
from confboost.engine.schemes.mo import MOScheme, build_code
from confboost.engine.schemes.mr import pair_smoothing
from confboost.estimators.classifier import BoostClassifier
from confboost.kernels.criterion_numpy import REAL, REAL_ABSTAIN
from confboost.training.fit_runs import is_fitted_attribute
from confboost.training.fit_state import FitResult

__all__ = ["DaskBoostClassifier"]


#: The tree learners over shards, by ``weak_learner``.
SHARDED_TREES = {"tree": ShardedTreeLearner, "hamming_tree": ShardedHammingTreeLearner}


class ShardedStumpLearner(StumpLearner):
    """The stump learner over shards: the split search on the shards' summed histogram."""

    def __init__(self, mode, smoothing, shards):
        super().__init__(mode, smoothing)
        self.shards = shards

    def fit(self, dataset, weights, labels):
        """``dataset`` is the header (the bins, no rows); weights and labels are the shards'.
        None when there is no continuous column."""
        if not dataset.has_numeric:
            return None
        split = self.best_split(self.shards.hist, dataset)
        fit = PartitionFit(split.hypothesis, None, split.weight_pos, split.weight_neg,
                           split.criterion)
        fit.split = {"hypothesis": split.hypothesis, "feature_row": split.feature_row,
                     "threshold_bin": split.threshold_bin, "weight_pos": split.weight_pos,
                     "weight_neg": split.weight_neg, "criterion": split.criterion}
        return fit


class ShardedCategoricalLearner(CategoricalLearner):
    """The categorical stump learner over shards: the value test of least Z from the
    shards' summed value histograms (``CategoricalLearner.best_split``)."""

    def __init__(self, mode, smoothing, shards):
        super().__init__(mode, smoothing)
        self.shards = shards

    def fit(self, dataset, weights, labels):
        """``dataset`` is the header (the vocabularies, no rows); None without a value."""
        hists = self.shards.value_hists
        if not hists:
            return None
        # every row is in one value of a column, or missing: Σ W
        split = self.best_split(hists, dataset, float(hists[0].sum()))
        if split is None:
            return None
        fit = PartitionFit(split.hypothesis, None, split.weight_pos, split.weight_neg,
                           split.criterion)
        fit.split = {"hypothesis": split.hypothesis, "value": (split.column_index, split.code),
                     "weight_pos": split.weight_pos, "weight_neg": split.weight_neg,
                     "criterion": split.criterion}
        return fit


class ShardedMHScheme:
    """AdaBoost.MH over shards: α on the client, the update on every shard, shares summed."""

    choose_alpha = MHScheme.choose_alpha

    def __init__(self, shards, n_labels, single_label, init):
        self.shards = shards
        self.n_labels = n_labels
        self.single_label = single_label and n_labels > 1
        self.init = init if self.single_label else "uniform"
        self.learner_weights = None  # the shards hold them
        self.labels = None
        self._loss = None

    def update(self, fit, alpha):
        shares = self.shards.run(advance_shard, fit.split, alpha)
        fit.hypothesis.cover = shares[2:]
        self._loss = float(shares[1])
        return float(shares[0])

    def train_loss(self):
        return self._loss

    def bound(self, product_z):
        return mh_bound(product_z, self.single_label, self.init, self.n_labels)


class ShardedMOScheme(ShardedMHScheme):
    """AdaBoost.MO over shards: MH on the code bits (each shard's ``MOScheme`` returns its
    share of the decoded training error), Theorem 5's bound."""

    bound = MOScheme.bound

    def __init__(self, shards, code, decoding):
        super().__init__(shards, code.shape[1], False, "uniform")
        self.code = code
        self.decoding = decoding
        self.distance = min_distance(code)


class DaskBoostClassifier(BoostClassifier):
    """``BoostClassifier`` trained on a Dask cluster; the same model as one machine.

    Takes every parameter of ``BoostClassifier`` and, in addition:

    Parameters
    ----------
    client : distributed.Client, optional
        The cluster to train on; default: ``distributed.default_client()``.
    timeout : float, default=600
        Seconds one round's results may take before the round is retried.
    max_retries : int, default=2
        Rebuilds of the shards after a failure before ``fit`` raises ``RuntimeError``.
    weak_learner : default="stump"
        Not ``BoostClassifier``'s "auto": data worth a cluster is always large enough for
        "auto" to grow trees, and a tree costs the workers about a round trip per level it
        grows (at most 15 for 16 leaves) on top of the round's one, all a stump costs. "auto" is resolved as ``BoostClassifier`` does, on
        the total row count.

    Supported: binary data, ``scheme="mh"`` (multiclass, multi-label), ``"mo"`` and
    ``"mr"`` (single-label data), ``weak_learner="stump"``, ``"tree"``, ``"hamming_tree"``
    and ``"auto"``, numeric and categorical columns (a dask array, or a dask DataFrame;
    column kinds as ``BoostClassifier``'s, ``feature_types`` included; text columns are
    refused), ``trim=0``; no ``eval_set``,
    ``early_stopping=True``, ``warm_start`` or ``class_weight`` yet. Anything else is
    refused at ``fit`` with a ValueError naming it. ``predict_proba`` is the uncalibrated
    σ(2 f) (the temperature of ``calibration.py`` needs held-out runs, not on the cluster
    yet): ``calibration`` is not applied.
    ``predict``, ``predict_proba`` and ``decision_function`` of a dask collection return a
    dask array computed partition by partition (of a NumPy array, a NumPy array);
    ``to_local()`` is the plain ``BoostClassifier``.
    """

    _parameter_constraints = {
        **BoostClassifier._parameter_constraints,
        "client": "no_validation",
        "timeout": [Interval(Real, 0, None, closed="neither")],
        "max_retries": [Interval(Integral, 0, None, closed="left")],
    }

    def __init__(self, n_estimators=100, *, client=None, timeout=600.0, max_retries=2,
                 weak_learner="stump", **params):
        super().__init__(n_estimators, weak_learner=weak_learner, **params)
        self.client = client
        self.timeout = timeout
        self.max_retries = max_retries

    @classmethod
    def _get_param_names(cls):
        return sorted(set(BoostClassifier._get_param_names())
                      | {"client", "timeout", "max_retries"})

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags

    def fit(self, X, y, sample_weight=None, callbacks=None):
        """Boost on dask collections (X: n_samples × n_features; y: labels or indicator rows).

        The rows stay on the workers (see the module docstring); the fit is all or nothing as
        ``BoostClassifier.fit``'s.
        """
        return super().fit(X, y, sample_weight, callbacks)

    def _fit(self, X, y, sample_weight, callbacks, eval_set=None, eval_names=None):
        """The fit's attributes, set on a blank copy that ``fit`` adopts in one store."""
        shadow = copy.copy(self)
        shadow.__dict__ = {key: value for key, value in self.__dict__.items()
                           if not is_fitted_attribute(key)}
        shadow._fit_on_cluster(X, y, sample_weight, callbacks, eval_set)
        return FitResult({key: value for key, value in shadow.__dict__.items()
                          if is_fitted_attribute(key)}, None)

    def _fit_on_cluster(self, X, y, sample_weight, callbacks, eval_set):
        mode = self._validate_params_once()
        self._check_supported()
        if eval_set is not None:
            raise ValueError("DaskBoostClassifier does not take an eval_set yet; fit "
                             "BoostClassifier on gathered data for early stopping")
        client = self.client if self.client is not None else default_client()
        encoder, vocabularies = (table_columns(client, X, self.feature_types)
                                 if is_table(X, self.feature_types) else (None, {}))
        parts, n_features, names = partitions(
            X, y, sample_weight, None if encoder is None else (encoder, vocabularies))
        summaries = client.gather(client.compute(
            [delayed(partition_summary)(*part[:3]) for part in parts]))
        n_samples = sum(summary[0] for summary in summaries)
        # "auto" as on one machine: trees on more than 2,500 examples (same model as local)
        self.weak_learner_ = choose_learner(self.weak_learner, n_samples, self.trim)
        multilabel = np.ndim(summaries[0][1]) == 0
        if multilabel:
            classes = np.arange(summaries[0][1])
        else:
            classes = np.unique(np.concatenate([summary[1] for summary in summaries]))
            if type_of_target(classes) not in ("binary", "multiclass"):
                raise ValueError(f"y must hold class labels; found {classes[:5].tolist()}")
            if classes.size < 2:
                raise ValueError(f"y has only one class ({classes[0]}); a classifier needs "
                                 "at least two")
        total_weight = sum(summary[2] for summary in summaries)
        if not total_weight > 0:
            raise ValueError("sample_weight sums to zero; at least one example needs weight")
        k = classes.size if multilabel or classes.size > 2 else 1
        code = self._code(classes, multilabel)
        if code is not None:
            k = code.shape[1]
        mr = self._mr(classes, multilabel)
        smoothing = (smoothing_from_totals(total_weight, sum(s[3] for s in summaries), k)
                     if self.smoothing == "auto" else float(self.smoothing))
        if (mr and self.smoothing == "auto" and self.alpha == "auto"
                and mode in (REAL, REAL_ABSTAIN)):  # as fitting.py: MR's pair ε
            smoothing = pair_smoothing(smoothing)
        mapper = client.compute(delayed(fit_bins)(self.max_bins, *[
            delayed(bin_sample)(part[0], part[2],
                                int(np.ceil(BIN_SAMPLE * summary[0] / n_samples)), index)
            for index, (part, summary) in enumerate(zip(parts, summaries, strict=True))]))
        mapper = mapper.result(timeout=self.timeout)
        # the Dataset's columns without its rows (each shard holds its rows')
        header = Dataset(
            codes=np.empty((mapper.n_bins_.shape[0], 0), dtype=np.uint8),
            n_bins=mapper.n_bins_, bin_mapper=mapper,
            numeric_columns=np.asarray(np.arange(n_features) if encoder is None else
                                       encoder.numeric_columns, dtype=np.intp),
            categorical=[CategoricalColumn(position, values, np.empty(0, dtype=np.int32))
                         for position, values in sorted(vocabularies.items())],
            n_samples=n_samples, n_columns=n_features)

        def build():
            return build_shards(client, parts, self.timeout, header, classes, multilabel,
                                self.init, total_weight, code, self.decoding, mr)

        shards = Shards(client, build, float(self.timeout), int(self.max_retries))
        try:
            if mr:
                scheme = ShardedMRScheme(shards)
            elif code is not None and code.shape[1] > 1:
                scheme = ShardedMOScheme(shards, code, self.decoding)
            else:
                scheme = ShardedMHScheme(shards, k, not multilabel and classes.size > 2,
                                         self.init)
            learner = self._learner(mode, smoothing, shards, header)
            callbacks = list(callbacks or ())
            if self.verbose:
                callbacks.insert(0, ProgressPrinter(self.n_estimators, self.verbose))
            hypotheses, alphas, history = run_boosting(
                header, scheme, learner, self.n_estimators, self.alpha, mode, smoothing,
                callbacks, float(self.learning_rate))
        finally:
            if shards.futures is not None:
                client.cancel(shards.futures)
        self.classes_ = classes
        self._multilabel = multilabel
        for fitted in ("code_", "code_distance_"):
            self.__dict__.pop(fitted, None)
        if code is not None:
            self.code_, self.code_distance_ = code, min_distance(code)
        self.n_features_in_ = n_features
        if encoder is not None:
            self.encoder_ = encoder
            self.feature_kinds_ = np.asarray(encoder.kinds, dtype=object)
        else:
            self.feature_kinds_ = np.full(n_features, "continuous", dtype=object)
        if names is not None and all(isinstance(name, str) for name in names):
            self.feature_names_in_ = np.asarray(names, dtype=object)
        self.smoothing_ = smoothing
        self.model_ = BoostedModel(hypotheses, alphas, k)
        self.history_ = history
        self.n_estimators_ = len(hypotheses)
        # no held-out runs on the cluster yet: the uncalibrated link (calibration.py)
        self.calibrator_ = None
        self.best_iteration_ = None

    def _learner(self, mode, smoothing, shards, header):
        """The weak learner over the shards, as ``learners.make_learner`` picks the local
        one: a tree learner, the stump learner, or on a table with categorical columns the
        best of the stump and the categorical stump learners (``BestOfLearner``)."""
        if self.weak_learner_ in SHARDED_TREES:
            return SHARDED_TREES[self.weak_learner_](mode, smoothing, shards,
                                                    **self._tree_params())
        stump = ShardedStumpLearner(mode, smoothing, shards)
        if not header.categorical:
            return stump
        return BestOfLearner([stump, ShardedCategoricalLearner(mode, smoothing, shards)])

    def _mr(self, classes, multilabel):
        """Whether the shards run AdaBoost.MR (``scheme="mr"`` on single-label data of more
        than two classes; binary data is the MH path, as ``schemes.build_scheme``'s)."""
        if self.scheme != "mr":
            return False
        if multilabel:
            raise ValueError("DaskBoostClassifier trains scheme='mr' (AdaBoost.MR) on "
                             "single-label data only: on multi-label data MR's prediction "
                             "cut is learned from a sort of every training score, not yet "
                             "on the cluster; use scheme='mh', or BoostClassifier on "
                             "gathered data")
        return classes.size > 2

    def _code(self, classes, multilabel):
        """AdaBoost.MO's code matrix as ``schemes.build_scheme`` makes it (the same
        ``random_state``, the same code); None under MH."""
        if self.scheme != "mo":
            return None
        if multilabel:
            raise ValueError("scheme='mo' (AdaBoost.MO) is for single-label data; use "
                             "scheme='mh' for a multi-label (2-D indicator) y")
        if classes.size == 2:
            return BINARY_CODE
        return build_code(self.code, classes.size, self.code_length, self.random_state)

    def _check_supported(self):
        unsupported = [(self.weak_learner not in ("auto", "stump", *SHARDED_TREES),
                        f"weak_learner={self.weak_learner!r}"),
                       (self.trim != 0, f"trim={self.trim!r}"),
                       (self.early_stopping is True, "early_stopping=True"),
                       (self.warm_start, "warm_start=True"),
                       (self.class_weight is not None, f"class_weight={self.class_weight!r}")]
        named = [text for bad, text in unsupported if bad]
        if named:
            raise ValueError(f"DaskBoostClassifier does not support {', '.join(named)} yet: "
                             "it trains weak_learner='stump', 'tree' or 'hamming_tree' with "
                             "scheme='mh' (binary, multiclass and multi-label data), 'mo' or "
                             "'mr' (single-label data) and trim=0; train the others "
                             "with BoostClassifier on gathered data")

    def to_local(self):
        """The fitted model as a plain ``BoostClassifier`` (same parameters and model)."""
        local = BoostClassifier(**{key: value for key, value in self.get_params().items()
                                   if key not in ("client", "timeout", "max_retries")})
        for key, value in self.__dict__.items():
            if key.endswith("_") or key == "_multilabel":
                setattr(local, key, value)
        return local

    def _map(self, X, method, n_outputs, dtype=np.float64):
        """``method`` of the local model on every partition of a dask collection."""
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
        if not isinstance(X, da.Array):
            return getattr(local, method)(X)
        X = X.rechunk({1: -1})
        if n_outputs is None:
            return X.map_blocks(getattr(local, method), drop_axis=1, dtype=dtype)
        return X.map_blocks(getattr(local, method), chunks=(X.chunks[0], (n_outputs,)),
                            dtype=dtype)

    def decision_function(self, X):
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
