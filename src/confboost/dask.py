"""Distributed training on Dask: the local engine run per partition, histograms summed.

A thin layer in the shape of LightGBM's ``dask.py``: it never re-implements the algorithm.
Each partition of the training data becomes a *shard* on the worker that holds it: the
partition's rows binned with the common bins (a ``Dataset``) and an ``MHScheme`` over its
rows whose weights are normalised by the whole training set's total, so that every
partition's D, training loss and Z_t are its share of the whole set's. The boosting loop is
``boosting.run_boosting`` itself, on the client, with two stand-ins:

- ``ShardedStumpLearner``: every shard builds the W+/W- histograms of its rows with the
  local kernel (``StumpLearner.histogram``); the histograms are summed by a reduction tree
  of pairwise additions on the workers; the client picks the stump from the sum with the
  local split search (``StumpLearner.best_split``). Only histograms travel.
- ``ShardedMHScheme``: α is chosen on the client from the block statistics (§3); every shard
  applies α h_t to its own weights with the local ``MHScheme.update`` and returns its share
  of Z_t, of the training loss and of the round's training cover, which the client adds up.

Bins come from a sample of at most ``BinMapper``'s 200,000 rows drawn from every partition
in proportion to its size, and fitted on a worker: the client receives the thresholds, never
rows. On data of at most that many rows the sample is the data, so the bins, and hence the
hypotheses, are those of ``BoostClassifier`` on the gathered data (equal to rounding: the
partitions' sums are added in another order).

Supported: binary data, AdaBoost.MH (multiclass and multi-label) and AdaBoost.MO (each
shard's ``MOScheme``: MH on its code-relabelled signs, its share of the decoded training
error; the code from ``schemes.mo.build_code`` on the client), stumps, trees and
Hamming trees (``dask_trees.py``: the local grower over the shards), numeric columns.

Shards are immutable (each round makes new ones), so a worker lost in the middle of
training is recovered by Dask from the lineage; if that fails, the shards are rebuilt from
the input partitions and the rounds replayed, and after ``max_retries`` failures (or a round
that takes longer than ``timeout`` seconds) ``fit`` raises a ``RuntimeError``.

The input side (aligned partitions, their summaries, the bins' sample) is
``dask_input.py``; trees are ``dask_trees.py``.

Requires the ``dask`` extra: ``pip install 'confboost[dask]'``.
"""

import copy
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import type_of_target

from confboost._dtypes import MISSING_BIN
from confboost.boosting import ProgressPrinter, run_boosting
from confboost.confidence import smoothing_from_totals
from confboost.dask_input import (
    BIN_SAMPLE,
    bin_sample,
    fit_bins,
    is_dask_frame,
    partition_summary,
    partitions,
)
from confboost.dask_trees import ShardedHammingTreeLearner, ShardedTreeLearner, tree_code_blocks
from confboost.data.dataset import Dataset
from confboost.estimators import BoostClassifier, numba_threads
from confboost.kernels.update import stump_blocks
from confboost.learners.base import PartitionFit
from confboost.learners.stump import StumpLearner
from confboost.model import BoostedModel
from confboost.schemes import BINARY_CODE
from confboost.schemes.codes import min_distance
from confboost.schemes.mh import MHScheme, mh_bound
from confboost.schemes.mo import MOScheme, build_code

try:
    import dask.array as da
    from dask import delayed
    from distributed import default_client, get_worker
except ImportError as error:  # pragma: no cover - the extra is installed in the dev env
    raise ImportError("confboost.dask needs Dask: pip install 'confboost[dask]' "
                      "(dask[distributed])") from error

__all__ = ["DaskBoostClassifier"]


#: The tree learners over shards, by ``weak_learner``.
SHARDED_TREES = {"tree": ShardedTreeLearner, "hamming_tree": ShardedHammingTreeLearner}


class Shard:
    """One partition's training state, on the worker that holds it.

    Attributes
    ----------
    dataset : Dataset
        The partition's rows, binned with the common bins.
    scheme : MHScheme
        D, f and the labels of the partition's rows, normalised by the whole set's weight.
    sample_weight : ndarray of shape (n_rows,)
    hist : ndarray of shape (n_features, 256, k, 2)
        The W+/W- histogram of the rows under the current D (``StumpLearner.histogram``).
    shares : ndarray of shape (5,)
        This partition's share of the last round's Z_t, training loss and training cover
        of the stump's three blocks (zeros before the first round).
    """

    def __init__(self, dataset, scheme, sample_weight, shares):
        self.dataset = dataset
        self.scheme = scheme
        self.sample_weight = sample_weight
        self.shares = shares
        self.hist = StumpLearner.histogram(dataset, scheme.learner_weights, scheme.labels)


def _make_shard(X, y, sample_weight, mapper, classes, multilabel, init, total_weight,
                code=None, decoding="loss"):
    """The shard of one partition: bin its rows, encode its labels, start D (AdaBoost.MO
    with a code of more than one bit: MH on the code-relabelled signs, ``MOScheme``)."""
    if multilabel:
        signs = np.where(np.asarray(y) > 0, 1, -1).astype(np.int8)
        single_label = False
    else:
        encoded = np.searchsorted(classes, y)
        if classes.size == 2:
            signs = np.where(encoded == 1, 1, -1).astype(np.int8)[:, None]
        else:
            signs = -np.ones((encoded.size, classes.size), dtype=np.int8)
            signs[np.arange(encoded.size), encoded] = 1
        single_label = classes.size > 2
    codes = np.ascontiguousarray(mapper.transform(X))
    dataset = Dataset(codes=codes, n_bins=mapper.n_bins_, bin_mapper=mapper,
                      numeric_columns=np.arange(codes.shape[0], dtype=np.intp),
                      n_samples=codes.shape[1], n_columns=codes.shape[0])
    if code is not None and code.shape[1] > 1:
        scheme = MOScheme(encoded, code, decoding, sample_weight, total_weight=total_weight)
    else:
        scheme = MHScheme(signs, sample_weight, single_label, init, total_weight=total_weight)
    with numba_threads(_worker_threads()):
        return Shard(dataset, scheme, sample_weight, np.zeros(5))


def _worker_threads():
    """The kernels' threads in a task: the worker's own thread count (as LightGBM's Dask
    layer sets ``num_threads``), so two workers on one machine do not each take every core."""
    try:
        return get_worker().state.nthreads
    except ValueError:  # not in a worker (a local scheduler)
        return None


def _in_worker(function, *args):
    """``function(*args)`` with the kernels on the worker's threads (a task's body)."""
    with numba_threads(_worker_threads()):
        return function(*args)


def _advance(shard, split, alpha):
    """The shard after the round's α h_t, with its shares and its next histogram (a new
    object: the old one stays valid for Dask's recomputation)."""
    with numba_threads(_worker_threads()):
        return _advance_here(shard, split, alpha)


def _blocks(dataset, split):
    """The block of every row of the shard under the round's stump or tree."""
    if "tree" in split:
        return tree_code_blocks(dataset.codes, *split["tree"])
    blocks = np.empty(dataset.n_samples, dtype=np.uint8)
    stump_blocks(dataset.codes[split["feature_row"]], split["threshold_bin"], MISSING_BIN,
                 blocks)
    return blocks


def _advance_here(shard, split, alpha):
    scheme = copy.copy(shard.scheme)
    scheme.weights = shard.scheme.weights.copy()
    scheme.scores = shard.scheme.scores.copy()
    blocks = _blocks(shard.dataset, split)
    fit = PartitionFit(split["hypothesis"], blocks, split["weight_pos"], split["weight_neg"],
                       split["criterion"])
    z_share = scheme.update(fit, alpha)
    cover = np.bincount(blocks, weights=shard.sample_weight,
                        minlength=split["weight_pos"].shape[0])
    shares = np.concatenate([[z_share, scheme.train_loss()], cover])
    return Shard(shard.dataset, scheme, shard.sample_weight, shares)


def _sum(*parts):
    """(histogram, shares) summed over shards or partial sums (a node of the reduction)."""
    pairs = [(part.hist, part.shares) if isinstance(part, Shard) else part for part in parts]
    return (pairs[0][0] + sum(pair[0] for pair in pairs[1:]),
            pairs[0][1] + sum(pair[1] for pair in pairs[1:]))


def _add(*arrays):
    """Arrays of one shape summed (a node of the reduction)."""
    return arrays[0] + sum(arrays[1:])


def _tree_sum(client, futures, add=_sum):
    """The shards' histograms and shares (or the arrays ``add`` sums) summed by pairwise
    additions on the workers (a reduction tree: no worker receives more than two)."""
    if len(futures) == 1:
        return client.submit(add, futures[0], pure=False)
    while len(futures) > 1:
        paired = [client.submit(add, futures[i], futures[i + 1], pure=False)
                  for i in range(0, len(futures) - 1, 2)]
        futures = paired + futures[len(futures) - len(futures) % 2:]
    return futures[0]


class Shards:
    """The client's handles on the shards, with what it takes to rebuild them.

    Each round costs one task per shard (``_advance``: the update and the next histogram)
    and the reduction; one result, the summed histogram and shares, comes to the client.

    Parameters
    ----------
    client : distributed.Client
    build : callable
        ``build()`` -> list of shard futures, from the input partitions.
    timeout : float
        Seconds one round's results may take.
    max_retries : int
    """

    def __init__(self, client, build, timeout, max_retries):
        self.client = client
        self.build = build
        self.timeout = timeout
        self.max_retries = max_retries
        self.rounds = []  # (split, alpha) of every round applied, to replay after a rebuild
        self.futures = None
        self.hist = self.run(lambda futures: (futures, None))[0]

    def run(self, advance):
        """``advance(futures)`` -> (new futures, round); the summed (histogram, shares) of the
        new shards, under ``attempt``."""

        def step():
            new_futures, round_record = advance(self.futures)
            total = _tree_sum(self.client, new_futures).result(timeout=self.timeout)
            self.futures = new_futures
            if round_record is not None:
                self.rounds.append(round_record)
            return total

        return self.attempt(step)

    def each(self, function, futures, *args):
        """One task ``function(future's value, *args)`` per future, on the worker's threads."""
        return [self.client.submit(_in_worker, function, future, *args, pure=False)
                for future in futures]

    def total(self, futures):
        """The sum of the arrays of ``futures``, by the reduction tree, on the client."""
        return _tree_sum(self.client, futures, _add).result(timeout=self.timeout)

    def attempt(self, step):
        """``step()``, which reads the current shards ``futures``. A failure (a lost worker,
        ``timeout``) rebuilds the shards from the input partitions, replays the rounds so far
        and calls ``step`` again, ``max_retries`` times, then raises ``RuntimeError``."""
        for attempt in range(self.max_retries + 1):
            try:
                if self.futures is None:
                    self.futures = self._replay(self.build())
                return step()
            except Exception as error:  # noqa: BLE001 - any failure of the cluster
                self.futures = None
                if attempt == self.max_retries:
                    raise RuntimeError(f"distributed fit failed after {attempt + 1} tries: "
                                       f"{type(error).__name__}: {error}") from error
        raise AssertionError("unreachable")

    def _replay(self, futures):
        for split, alpha in self.rounds:
            futures = [self.client.submit(_advance, f, split, alpha, pure=False)
                       for f in futures]
        return futures


class ShardedStumpLearner(StumpLearner):
    """The stump learner over shards: the split search on the shards' summed histogram."""

    def __init__(self, mode, smoothing, shards):
        super().__init__(mode, smoothing)
        self.shards = shards

    def fit(self, dataset, weights, labels):
        """``dataset`` is the header (the bins, no rows); weights and labels are the shards'."""
        split = self.best_split(self.shards.hist, dataset)
        fit = PartitionFit(split.hypothesis, None, split.weight_pos, split.weight_neg,
                           split.criterion)
        fit.split = {"hypothesis": split.hypothesis, "feature_row": split.feature_row,
                     "threshold_bin": split.threshold_bin, "weight_pos": split.weight_pos,
                     "weight_neg": split.weight_neg, "criterion": split.criterion}
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
        client = self.shards.client

        def advance(futures):
            return ([client.submit(_advance, f, fit.split, alpha, pure=False) for f in futures],
                    (fit.split, alpha))

        self.shards.hist, shares = self.shards.run(advance)
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

    Supported: binary data, ``scheme="mh"`` (multiclass, multi-label) and ``"mo"``,
    ``weak_learner="stump"``, ``"tree"`` and ``"hamming_tree"``, numeric columns (a dask
    array, or a dask DataFrame of numeric columns), ``trim=0``; no ``eval_set``,
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
                 **params):
        super().__init__(n_estimators, **params)
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

    def _fit(self, X, y, sample_weight, callbacks, eval_set=None):
        mode = self._validate_params_once()
        self._check_supported()
        if eval_set is not None:
            raise ValueError("DaskBoostClassifier does not take an eval_set yet; fit "
                             "BoostClassifier on gathered data for early stopping")
        client = self.client if self.client is not None else default_client()
        parts, n_features, names = partitions(X, y, sample_weight)
        summaries = client.gather(client.compute(
            [delayed(partition_summary)(*part) for part in parts]))
        n_samples = sum(summary[0] for summary in summaries)
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
        smoothing = (smoothing_from_totals(total_weight, sum(s[3] for s in summaries), k)
                     if self.smoothing == "auto" else float(self.smoothing))
        mapper = client.compute(delayed(fit_bins)(self.max_bins, *[
            delayed(bin_sample)(part[0], part[2],
                                int(np.ceil(BIN_SAMPLE * summary[0] / n_samples)), index)
            for index, (part, summary) in enumerate(zip(parts, summaries, strict=True))]))
        mapper = mapper.result(timeout=self.timeout)

        def build():
            return client.compute([delayed(_make_shard)(*part, mapper, classes, multilabel,
                                                        self.init, total_weight, code,
                                                        self.decoding)
                                   for part in parts])

        shards = Shards(client, build, float(self.timeout), int(self.max_retries))
        try:
            header = Dataset(codes=np.empty((n_features, 0), dtype=np.uint8),
                             n_bins=mapper.n_bins_, bin_mapper=mapper,
                             numeric_columns=np.arange(n_features, dtype=np.intp),
                             n_samples=n_samples, n_columns=n_features)
            scheme = (ShardedMOScheme(shards, code, self.decoding)
                      if code is not None and code.shape[1] > 1 else
                      ShardedMHScheme(shards, k, not multilabel and classes.size > 2,
                                      self.init))
            learner = (ShardedStumpLearner(mode, smoothing, shards)
                       if self.weak_learner == "stump" else
                       SHARDED_TREES[self.weak_learner](mode, smoothing, shards,
                                                        **self._tree_params()))
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
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        self.smoothing_ = smoothing
        self.model_ = BoostedModel(hypotheses, alphas, k)
        self.history_ = history
        self.n_estimators_ = len(hypotheses)
        # no held-out runs on the cluster yet: the uncalibrated link (calibration.py)
        self.calibrator_ = None
        self.best_iteration_ = None

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
        unsupported = [(self.weak_learner not in ("stump", *SHARDED_TREES),
                        f"weak_learner={self.weak_learner!r}"),
                       (self.scheme == "mr", f"scheme={self.scheme!r}"),
                       (self.trim != 0, f"trim={self.trim!r}"),
                       (self.early_stopping is True, "early_stopping=True"),
                       (self.warm_start, "warm_start=True"),
                       (self.class_weight is not None, f"class_weight={self.class_weight!r}")]
        named = [text for bad, text in unsupported if bad]
        if named:
            raise ValueError(f"DaskBoostClassifier does not support {', '.join(named)} yet: "
                             "it trains weak_learner='stump', 'tree' or 'hamming_tree' with "
                             "scheme='mh' (binary, multiclass and multi-label data) or 'mo' "
                             "and trim=0; train the others "
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
        from confboost.persistence import load

        local = load(path)
        model = cls(**local.get_params())
        model.__dict__.update({key: value for key, value in local.__dict__.items()
                               if key.endswith("_") or key == "_multilabel"})
        return model

    def save(self, path):
        """Write the model as ``BoostClassifier.save`` does (``confboost.load`` reads it)."""
        self.to_local().save(path)
