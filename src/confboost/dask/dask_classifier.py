"""Distributed training on Dask: the engine's own learners and schemes over the shards.

A thin layer in the shape of LightGBM's ``dask.py``: it never re-implements the algorithm.
The partitions of the training data that a worker holds become one *shard* on it
(``shards.py``): their rows binned with the common bins and coded with the common
vocabularies (a ``Dataset``) and the local scheme over those rows, its weights normalised
by the whole training set's total, so that every shard's D, training loss and Z_t are its
share of the whole set's. The boosting loop is ``boosting.run_boosting`` itself, on the
client, with the local learner (``learners.make_learner``) and the local scheme
(``MHScheme``, ``MOScheme``, ``MRScheme``) given a Dataset and a scheme of no rows (the bins,
vocabularies and label count) and the shards' reducer (``shards.ClusterReducer``, the
``engine/reduction.py`` seam): every sum they take over examples (the W+/W- histograms,
the categorical value masses, Z_t and the loss shares, MR's pair masses) is each shard's, added by a
reduction tree of pairwise additions on the workers. Only sums travel. The training
cover of every round comes from the shards in one round trip after the last round
(``ClusterCover``).

Bins come from a sample of at most ``BinMapper``'s 200,000 rows drawn from every partition
in proportion to its size, and fitted on a worker: the client receives the thresholds, never
rows. On data of at most that many rows the sample is the data, so the bins, and hence the
hypotheses, are those of ``BoostClassifier`` on the gathered data (equal to rounding: the
partitions' sums are added in another order). A categorical column's vocabulary is the
union of the partitions' distinct values (``partitions.table_columns``), sorted, as the
local encoder's.

Supported: binary data, AdaBoost.MH (multiclass and multi-label) and AdaBoost.MO (each
shard's ``MOScheme``: MH on its code-relabelled signs, its share of the decoded training
error; the code from ``schemes.mo.build_code`` on the client), AdaBoost.MR on
single-label data (each shard's ``MRScheme``, the pair masses of α summed, v normalised by
the whole set's Z_t), stumps and products (the local learners over the reducer), trees and
Hamming trees (``sharded_trees.py``: the local grower over the shards), numeric and
categorical columns.

Shards are immutable (each round makes new ones), so a worker lost in the middle of
training is recovered by Dask from the lineage; if that fails, the shards are rebuilt from
the input partitions and the rounds replayed, and after ``max_retries`` failures (or a round
that takes longer than ``timeout`` seconds) ``fit`` raises a ``RuntimeError``.

The input side (aligned partitions, their summaries, the bins' sample, a table's column
kinds and vocabularies) is ``partitions.py``; the shards and their reducer ``shards.py``;
trees ``sharded_trees.py``.

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
    computed,
    fit_bins,
    is_dask_frame,
    is_table,
    partition_summary,
    partitions,
    table_columns,
)
from confboost.dask.sharded_trees import ShardedHammingTreeLearner, ShardedTreeLearner
from confboost.dask.shards import ClusterReducer, Shards, build_shards
from confboost.data.dataset import CategoricalColumn, Dataset
from confboost.engine.boosting import ProgressPrinter, run_boosting
from confboost.engine.callbacks import TrainingCallback
from confboost.engine.confidence import smoothing_from_totals
from confboost.engine.learners import choose_learner, make_learner
from confboost.engine.model import BoostedModel
from confboost.engine.schemes import BINARY_CODE
from confboost.engine.schemes.codes import min_distance
from confboost.engine.schemes.mh import MHScheme
from confboost.engine.schemes.mo import MOScheme, build_code
from confboost.engine.schemes.mr import MRScheme, pair_smoothing
from confboost.estimators.classifier import BoostClassifier
from confboost.kernels.criterion_numpy import REAL, REAL_ABSTAIN
from confboost.training.fit_runs import is_fitted_attribute
from confboost.training.fit_state import FitResult

__all__ = ["DaskBoostClassifier"]


#: The tree learners over shards, by ``weak_learner``.
SHARDED_TREES = {"tree": ShardedTreeLearner, "hamming_tree": ShardedHammingTreeLearner}


class RoundCount(TrainingCallback):
    """Keeps ``Shards.rounds_done``, so that a failure of the cluster names its round.

    Parameters
    ----------
    shards : Shards
    """

    def __init__(self, shards):
        self.shards = shards

    def after_iteration(self, env):
        self.shards.rounds_done = env.round_index + 1
        return False


class ClusterCover(TrainingCallback):
    """The training cover of every round's hypothesis (``explain.record_cover``'s, a
    product's sign patterns included), from the shards in one round trip after the last
    round: the blocks of a round are kept on the shards (``OnShards``) and the sample
    weights never change.

    Parameters
    ----------
    reducer : ClusterReducer
    """

    def __init__(self, reducer):
        self.reducer = reducer
        self.fits = []

    def after_iteration(self, env):
        self.fits.append(env.record["fit"])
        return False

    def after_training(self, env):
        if self.fits:
            fits = self.fits
            covers = self.reducer.covers(
                [fit.train_blocks for fit in fits],
                [fit.hypothesis.values.shape[0] for fit in fits],
                [fit.train_patterns for fit in fits],
                [0 if fit.train_patterns is None else 1 << len(fit.hypothesis.test_columns())
                 for fit in fits])
            for fit, (cover, pattern_masses) in zip(fits, covers, strict=True):
                fit.hypothesis.cover = cover
                if fit.train_patterns is not None:  # a product's (as ``record_cover``)
                    seen = np.flatnonzero(pattern_masses > 0)
                    fit.hypothesis.pattern_cover = (seen.astype(np.int64),
                                                    pattern_masses[seen])
        self.fits = []


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
        "auto" to grow trees, and a tree costs the workers about a round trip per level it
        grows (at most 15 for 16 leaves) on top of a stump round's one. "auto" is resolved
        as ``BoostClassifier`` does, on the total row count.

    The bins come from a sample of at most 200,000 rows drawn from the partitions (see the
    module docstring): on larger data they differ from ``BoostClassifier``'s, which draws
    its own sample, so the models agree exactly only up to that size.

    Supported: binary data, ``scheme="mh"`` (multiclass, multi-label), ``"mo"`` and
    ``"mr"`` (single-label data), ``weak_learner="stump"``, ``"tree"``, ``"hamming_tree"``,
    ``"product"`` and ``"auto"``, numeric and categorical columns (a dask array, or a dask
    DataFrame; column kinds as ``BoostClassifier``'s, ``feature_types`` included; text columns are
    refused), ``trim=0``; no ``eval_set``, ``early_stopping=True``, ``warm_start`` or
    ``class_weight`` yet. Anything else is
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
        timeout = float(self.timeout)
        encoder, vocabularies = (table_columns(client, X, self.feature_types, timeout)
                                 if is_table(X, self.feature_types) else (None, {}))
        parts, n_features, names = partitions(
            X, y, sample_weight, None if encoder is None else (encoder, vocabularies),
            client, timeout)
        summaries = computed(client, [delayed(partition_summary)(*part[:3]) for part in parts],
                             timeout, "the partitions' row counts, labels and weights")
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
        mapper = computed(client, [delayed(fit_bins)(self.max_bins, *[
            delayed(bin_sample)(part[0], part[2],
                                int(np.ceil(BIN_SAMPLE * summary[0] / n_samples)), index)
            for index, (part, summary) in enumerate(zip(parts, summaries, strict=True))])],
            timeout, "the bins (fitted on a sample of the partitions)")[0]
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
        reducer = ClusterReducer(shards)
        try:
            # the scheme and the learner of one machine, over no rows: the shards hold them
            no_rows = np.empty(0)
            if mr:
                scheme = MRScheme(np.empty((0, k), dtype=np.int8), no_rows,
                                  total_weight=total_weight, reducer=reducer)
            elif code is not None and code.shape[1] > 1:
                scheme = MOScheme(np.empty(0, dtype=np.intp), code, self.decoding, no_rows,
                                  total_weight, reducer)
            else:
                scheme = MHScheme(np.empty((0, k), dtype=np.int8), no_rows,
                                  not multilabel and classes.size > 2, self.init,
                                  total_weight, reducer)
            learner = (SHARDED_TREES[self.weak_learner_](mode, smoothing, shards, k,
                                                        **self._tree_params())
                       if self.weak_learner_ in SHARDED_TREES else
                       make_learner(self.weak_learner_, header, mode, smoothing,
                                    n_terms=int(self.product_terms), reducer=reducer))
            callbacks = [*(callbacks or ()), ClusterCover(reducer), RoundCount(shards)]
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
        unsupported = [(self.trim != 0, f"trim={self.trim!r}"),
                       (self.early_stopping is True, "early_stopping=True"),
                       (self.warm_start, "warm_start=True"),
                       (self.class_weight is not None, f"class_weight={self.class_weight!r}")]
        named = [text for bad, text in unsupported if bad]
        if named:
            raise ValueError(f"DaskBoostClassifier does not support {', '.join(named)} yet: "
                             "it trains every weak_learner with scheme='mh' (binary, "
                             "multiclass and multi-label data), 'mo' or 'mr' (single-label "
                             "data) and trim=0; train the others with BoostClassifier on "
                             "gathered data")

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
