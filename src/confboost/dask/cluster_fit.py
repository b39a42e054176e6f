"""The local fit (``training.fit_runs.Fit``) on training rows held by a Dask cluster.

``ClusterFit`` is ``Fit`` with the rows elsewhere: fitting's rules (the scheme and its MO
code, smoothing, the learner's choice, ``eval_set`` and early stopping, the evaluation
history, calibration, ``warm_start``'s checks, the fitted attributes) are ``Fit``'s own, and
only where the training rows are differs:

- ``read_inputs`` reads the collections' summaries, never their rows (``ShardedInputs``:
  the classes, Σ w and the row count; ``class_weight`` multiplies each partition's weights
  on its worker, with the factors of the whole set's class counts);
- the scheme is the local one given the run's ``Dataset`` of no rows (the bins and
  vocabularies) and the shards' reducer (``shards.ClusterReducer``), reading each round's
  sums from its log; the learner runs each round on the workers
  (``collective.CollectiveLearner``); the shards are built, on the workers, when the
  run's learner is asked for (``_learner``), once the scheme's MO code is known;
- held-out rows are gathered: an ``eval_set`` of dask collections, under early stopping
  the at most ``TRAIN_SCORE_ROWS`` training rows of the training score, and the rows held
  out for early stopping's validation or for calibration (chosen by the local rule from
  the labels, gathered for it). They are scored on the client, as on one machine;
- a run on some of the rows (the main run beside held-out validation rows, a calibration
  run) trains on shards of its own, of its rows (taken from the partitions on the
  workers), its categorical columns coded with the values those rows hold, as locally
  (``_categorical_columns``); a calibration run on the main run's bins (on a table with
  text, its own).

Text columns: each one's vocabulary comes from the run's partitions' term counts, their
postings are built on the shards and the workers' term learner, and a tree's node, sum
their terms' masses through the collective in the round (``dask/text.py``,
``dask/round_learner.py``): stumps, trees, Hamming trees and trees per label read them.

A tree per label (``weak_learner="label_trees"``, or ``"auto"`` where the local fit grows
one) is the local learner with the collective's tree learner for each label
(``dask/cluster_label_trees.py``).

Weight trimming (``trim``) is the local trimmed stump, its sums allreduced in the round
(``engine/learners/stump.py``), under the local α rule (``Fit._alpha_method``).

A ``Checkpoint`` callback saves, in place of the shards' state, the changes that make it
(``dask/cluster_checkpoint.py``: the run's reducer records them), and a resume replays them on the
shards.

AdaBoost.MR's multi-label cut is the local one: the scheme's update takes it from
histograms of the scores through its reducer (``engine/schemes/mr_cut.py``), allreduced
over the shards in the round and read back from the round's log by the client's scheme.

Every option of the local fit runs here, and what the local fit refuses (a product on a
table with text or categorical columns) is refused with its error.
"""

import dataclasses
from dataclasses import dataclass

import numpy as np
from dask import delayed
from dask.base import tokenize
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import type_of_target

from confboost.dask.cluster_checkpoint import ClusterCheckpoint, RecordingReducer, RoundBlocks
from confboost.dask.cluster_label_trees import label_tree_blocks, label_tree_recipes
from confboost.dask.collective import LearnerCalls
from confboost.dask.partitions import (
    bin_sample,
    computed,
    crucial_pair_weight,
    fit_bins,
    gather_rows,
    held_codes,
    is_dask_collection,
    is_table,
    partition_summary,
    partition_totals,
    partitions,
    recoded,
    table_columns,
    weighted_by_class,
)
from confboost.dask.round_learner import RoundSpec
from confboost.dask.shards import ClusterReducer, Shards, build_shards
from confboost.dask.text import ColumnVocabulary, merged_vocabulary, partition_terms
from confboost.data.dataset import CategoricalColumn, Dataset
from confboost.engine.callbacks import TrainingCallback
from confboost.engine.confidence import smoothing_from_totals
from confboost.engine.learners import TREE_LEARNERS, make_learner
from confboost.training.checkpoint import Checkpoint
from confboost.training.fit_runs import Fit
from confboost.training.fit_state import Split, TrainingInputs, eval_fingerprint, eval_pairs
from confboost.training.holdout import encode_eval_labels
from confboost.training.inputs import ArrayInput, TableInput
from confboost.training.round_scores import EvalSet


@dataclass
class ShardedInputs(TrainingInputs):
    """``TrainingInputs`` whose rows stay on the workers: the label signs, classes and
    starting weights of no rows, with the whole set's totals.

    Attributes
    ----------
    rows : int
        Rows of the training data.
    total_weight : float
        Σ of the starting weights (sample weights times class weights).
    n_positive : int
        #{starting weight > 0}.
    token : str
        ``dask.base.tokenize`` of X, y and sample_weight (the same collections, the same
        token): a warm start's same-data check.
    parts : list of tuple
        Aligned delayed partitions (X, y, starting weights, value codes).
    part_rows : list of int
    source : object
        What held-out training rows are taken from: the dask DataFrame of a table, or
        None (the partitions' X).
    vocabularies : dict of int to list
        Each categorical column's values, by table position.
    """

    rows: int = 0
    total_weight: float = 0.0
    n_positive: int = 0
    token: str = ""
    client: object = None
    parts: list = None
    part_rows: list = None
    source: object = None
    vocabularies: dict = None

    @property
    def n_samples(self):
        """Rows of the training data."""
        return self.rows

    @property
    def work(self):
        """Example·feature·label cells (the thread rule's measure, on the client)."""
        return self.rows * self.attributes["n_features_in_"] * self.signs.shape[1]

    def fingerprint(self):
        """The collections' token (their rows are never hashed on the client)."""
        return self.token

    def gather(self, rows):
        """Training rows ``rows`` (sorted) on the client: (X as given, y, starting weights)."""
        sources = ([part[0] for part in self.parts] if self.source is None
                   else list(self.source.to_delayed()))
        return gather_rows(self.client, sources, [part[1] for part in self.parts],
                           [part[2] for part in self.parts], self.part_rows, rows)


@dataclass
class RunPlace:
    """Where one run's rows are: its partitions, their totals, its reducer and shards."""

    parts: list
    part_rows: list
    total_weight: float
    n_positive: int
    reducer: ClusterReducer
    recorder: RecordingReducer = None  # the reducer the scheme and learner take
    learner: object = None  # its ``collective.CollectiveLearner``
    shards: Shards = None
    header: Dataset = None  # the run's Dataset of no rows (``_dataset``)
    classes: np.ndarray = None
    multilabel: bool = False


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
    product's sign patterns included; a tree per label's, tree after tree): the one each
    round's task took (``OnShards.cover``), else, for a resumed checkpoint's rounds, from
    the shards in one round trip after the run's rounds (the blocks of a round are kept on
    the shards and the sample weights never change).

    Parameters
    ----------
    reducer : ClusterReducer
    """

    #: As ``run_callbacks.CoverRecord``'s.
    order = -200

    def __init__(self, reducer):
        self.reducer = reducer
        self.fits = []

    def after_iteration(self, env):
        self.fits.append(env.record["fit"])
        return False

    def after_training(self, env):
        if self.fits:
            # (blocks, blocks' count, sign patterns, patterns' count) of each round; a tree
            # per label's cover is its trees' leaves' covers, one after the other
            parts = [[(recipe, size, None, 0) for recipe, size
                      in label_tree_recipes(fit.train_blocks, fit.hypothesis)]
                     if getattr(fit.train_blocks, "function", None) is label_tree_blocks
                     and getattr(fit.train_blocks, "cover", None) is None else
                     [(fit.train_blocks, fit.hypothesis.values.shape[0], fit.train_patterns,
                       0 if fit.train_patterns is None
                       else 1 << len(fit.hypothesis.test_columns()))]
                     for fit in self.fits]
            covers = iter(self.reducer.covers(*[list(each) for each in zip(
                *[part for round_parts in parts for part in round_parts], strict=True)]))
            for fit, round_parts in zip(self.fits, parts, strict=True):
                mine = [next(covers) for _ in round_parts]
                fit.hypothesis.cover = np.concatenate([cover for cover, _ in mine])
                if fit.train_patterns is not None:  # a product's (as ``record_cover``)
                    pattern_masses = mine[0][1]
                    seen = np.flatnonzero(pattern_masses > 0)
                    fit.hypothesis.pattern_cover = (seen.astype(np.int64),
                                                    pattern_masses[seen])
        self.fits = []


class ClusterFit(Fit):
    """``Fit`` on dask collections (see the module docstring).

    Parameters
    ----------
    estimator : DaskBoostClassifier
        Its parameters checked; ``timeout``, ``max_retries`` and ``bin_rows`` are read here.
    mode : int
    client : distributed.Client
    """

    def __init__(self, estimator, mode, client):
        super().__init__(estimator, mode)
        self.client = client
        self.timeout = float(estimator.timeout)
        self.max_retries = int(estimator.max_retries)
        self.bin_rows = estimator.bin_rows
        # the run being built (``_scheme_place`` to ``_run_callbacks``): its partitions,
        # totals, reducer and shards; every run's shards, to release
        self.placed = None
        self.built = []
        self.header = None  # the main run's Dataset of no rows

    def fit(self, X, y, sample_weight=None, callbacks=(), eval_set=None, eval_names=None):
        try:
            result = super().fit(X, y, sample_weight, callbacks, eval_set, eval_names)
        except BaseException:
            self.release()
            raise
        if not self.params.warm_start:  # a warm start keeps its shards for the next fit
            self.release()
        return result

    def run(self, state, callbacks=(), tuner=None):
        """``Fit.run``, each ``Checkpoint`` of the main run saving what rebuilds its
        shards' state (``ClusterCheckpoint``)."""
        recorder = state.main.run.scheme.reducer
        cover = next(each for each in state.main.callbacks if isinstance(each, ClusterCover))
        callbacks = [ClusterCheckpoint(each, recorder, cover, state.fingerprint)
                     if isinstance(each, Checkpoint) else each for each in callbacks]
        super().run(state, callbacks, tuner)

    def release(self):
        """Let the cluster drop this fit's shards (every run's)."""
        for shards in self.built:
            if shards.futures is not None:
                self.client.cancel(shards.futures)
        self.built = []

    # -- stage 1: summaries of the partitions, never their rows ---------------------------
    def read_inputs(self, X, y, sample_weight=None):
        p, client = self.params, self.client
        table = (table_columns(client, X, p.feature_types, self.timeout, p.text_expert)
                 if is_table(X, p.feature_types) else None)
        parts, n_features, names = partitions(X, y, sample_weight, table, client, self.timeout)
        summaries = computed(client, [delayed(partition_summary)(*part[:3]) for part in parts],
                             self.timeout, "the partitions' row counts, labels and weights")
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
        totals = [summary[2:4] for summary in summaries]
        if p.class_weight is not None:
            factors = _class_factors(p.class_weight, classes, multilabel, summaries)
            parts = [(x, labels, delayed(weighted_by_class)(w, labels, classes, factors), codes)
                     for x, labels, w, codes in parts]
            totals = computed(client, [delayed(partition_totals)(part[2]) for part in parts],
                              self.timeout, "the partitions' class-weighted totals")
        total_weight = sum(total for total, _ in totals)
        if not total_weight > 0:
            raise ValueError("sample_weight sums to zero; at least one example needs weight")
        k = classes.size if multilabel or classes.size > 2 else 1
        encoder = None if table is None else table[0]
        attributes = {"n_features_in_": n_features,
                      "feature_kinds_": (np.full(n_features, "continuous", dtype=object)
                                         if encoder is None else
                                         np.asarray(encoder.kinds, dtype=object))}
        if names is not None and all(isinstance(name, str) for name in names):
            attributes["feature_names_in_"] = np.asarray(names, dtype=object)
        if encoder is not None:
            attributes["encoder_"] = encoder
        # the probe checks eval_set's X against the columns (``ArrayInput.held_out``)
        self.probe.__dict__.update({key: value for key, value in attributes.items()
                                    if key in ("n_features_in_", "feature_names_in_")})
        adapter = ArrayInput() if encoder is None else TableInput(encoder=encoder)
        attributes.update(classes_=classes, _multilabel=multilabel, _input=adapter)
        self.known = dict(attributes)
        inputs = ShardedInputs(
            adapter, None, np.empty((0, k), dtype=np.int8),
            None if multilabel else np.empty(0, dtype=np.intp), classes, multilabel,
            np.empty(0), attributes, rows=sum(summary[0] for summary in summaries),
            total_weight=float(total_weight),
            n_positive=sum(int(count) for _, count in totals),
            token=tokenize(X, y, sample_weight), parts=parts,
            part_rows=[summary[0] for summary in summaries],
            source=None if encoder is None else X,
            vocabularies={} if table is None else table[1], client=client)
        return inputs

    # -- stage 2: the given eval_set, gathered -------------------------------------------
    def hold_out(self, inputs, eval_set=None, eval_names=None):
        pairs = eval_pairs(eval_set, eval_names)
        if not pairs:
            if self.params.early_stopping is not True and self.params.calibration is None:
                return Split(None, [], False, eval_fingerprint=eval_fingerprint([]))
            # the validation rows of early stopping, or calibration's held-out rows, chosen
            # as locally (stratified by class: the labels come to the client); the runs on
            # the other rows train on shards of their own
            if not inputs.multilabel:
                labels = computed(self.client, [part[1] for part in inputs.parts],
                                  self.timeout, "the labels that choose the held-out rows")
                inputs = dataclasses.replace(inputs, encoded=np.searchsorted(
                    inputs.classes, np.concatenate(labels)))
            return super().hold_out(inputs)
        gathered = [(_computed(X), _computed(y)) for _, (X, y) in pairs]
        return super().hold_out(inputs, gathered, [name for name, _ in pairs])

    def _rows_set(self, inputs, name, rows):
        """Training rows ``rows`` gathered to the client, as an ``EvalSet`` (the training
        score under early stopping)."""
        raw, y, weight = inputs.gather(np.asarray(rows))
        signs, encoded = encode_eval_labels(y, inputs.classes, inputs.multilabel)
        labels = ((signs > 0).astype(np.int64) if inputs.multilabel
                  else inputs.classes[encoded])
        return EvalSet(name, inputs.adapter.held_out(self.probe, raw, True), raw, labels,
                       signs, encoded, weight)

    # -- stage 3: the run's scheme and learner over the shards -----------------------------
    #: A run's f on its training rows is on the shards, not at hand.
    _scores_at_hand = False

    def _rows_of(self, inputs, rows):
        return inputs.signs, inputs.encoded, inputs.sample_weight  # no rows on the client

    def _scheme_place(self, inputs, rows):
        """Place the run on ``rows`` (None: all): its partitions (the calibration run's, the
        rows taken from each), their totals, a reducer whose shards ``_build_shards`` builds."""
        if rows is None:
            parts, sizes = inputs.parts, inputs.part_rows
            total, n_positive = inputs.total_weight, inputs.n_positive
        else:
            parts, sizes = _rows_of_parts(inputs.parts, inputs.part_rows, rows)
            totals = computed(self.client,
                              [delayed(partition_totals)(part[2]) for part in parts],
                              self.timeout, "the totals of a run's rows")
            total = float(sum(each for each, _ in totals))
            n_positive = sum(count for _, count in totals)
        reducer = ClusterReducer(None)
        self.placed = RunPlace(parts, sizes, total, n_positive, reducer,
                               RecordingReducer(reducer))
        return {"total_weight": total, "reducer": self.placed.recorder}

    def _default_smoothing(self, inputs, rows, weight, k):
        return smoothing_from_totals(self.placed.total_weight, self.placed.n_positive, k)

    def _fold_dataset(self, main, rows):
        return None  # ``_dataset`` and ``_build_shards``: the run's shards, on the main run's bins

    def _dataset(self, inputs, rows, weight):
        """The run's Dataset of no rows: the main run's bins fitted on a worker from a
        sample of the partitions (``_header``), or a calibration run's, on the main run's
        bins (with text columns: its own bins and vocabularies, from its rows, as the
        local ``calibration.dataset_rows`` has them). Its shards are built after the scheme
        (``_build_shards``)."""
        if self.header is None:  # the main run: its rows' bins
            self.header = self.placed.header = self._header(inputs, self.placed)
        elif self.header.text:  # a calibration run on text: binned afresh, as locally
            self.placed.header = self._header(inputs, self.placed)
        else:  # a calibration run: the main run's bins (that run is on every row)
            self.placed.header = dataclasses.replace(self.header, n_samples=int(len(rows)))
        self.placed.classes, self.placed.multilabel = inputs.classes, inputs.multilabel
        return self.placed.header

    def _build_shards(self):
        """The run's shards, built on the workers from its Dataset (``_dataset``), once its
        scheme is made (the fit's MO code is known then); AdaBoost.MR's by
        ``schemes.build_scheme``'s rule (``scheme="mr"`` on other than binary data)."""
        client, p, placed = self.client, self.params, self.placed
        mr = p.scheme == "mr" and (placed.multilabel or placed.classes.size > 2)
        total = placed.total_weight
        if mr and placed.multilabel:  # MR's v_1 is normalised over the crucial pairs' rows
            total = sum(computed(client, [delayed(crucial_pair_weight)(part[1], part[2])
                                          for part in placed.parts], self.timeout,
                                 "the weight of the examples with a crucial pair"))
            if not total > 0:
                raise ValueError("AdaBoost.MR ranks a true label above a false one, and no "
                                 "example (with positive weight) has both: every label set is "
                                 "empty or full, so there is no crucial pair")
        arguments = (placed.header, placed.classes, placed.multilabel, p.init, total,
                     self.known.get("code_"), p.decoding, mr)

        def build():
            return build_shards(client, placed.parts, self.timeout, *arguments)

        placed.reducer.shards = placed.shards = Shards(client, build, self.timeout,
                                                       self.max_retries)
        self.built.append(placed.shards)

    def _header(self, inputs, placed):
        """A run's Dataset of no rows: bins fitted on a worker from ``bin_rows``
        rows drawn from its partitions ``placed``, the categorical columns' vocabularies
        (``_categorical_columns``), and each text column's, from the term counts of its
        partitions ``placed`` (``_text_columns``)."""
        client, n_samples = self.client, sum(placed.part_rows)
        drawn = n_samples if self.bin_rows is None else self.bin_rows
        mapper = computed(client, [delayed(fit_bins)(self.params.max_bins, *[
            delayed(bin_sample)(part[0], part[2], int(np.ceil(drawn * n / n_samples)), index)
            for index, (part, n) in enumerate(zip(placed.parts, placed.part_rows,
                                                  strict=True))])],
            self.timeout, "the bins (fitted on rows drawn from the partitions)")[0]
        encoder = inputs.attributes.get("encoder_")
        return Dataset(
            codes=np.empty((mapper.n_bins_.shape[0], 0), dtype=np.uint8),
            n_bins=mapper.n_bins_, bin_mapper=mapper,
            numeric_columns=np.asarray(np.arange(inputs.attributes["n_features_in_"])
                                       if encoder is None else encoder.numeric_columns,
                                       dtype=np.intp),
            categorical=self._categorical_columns(inputs, placed),
            text=self._text_columns(encoder, len(inputs.vocabularies), placed),
            n_samples=n_samples, n_columns=inputs.attributes["n_features_in_"])

    def _categorical_columns(self, inputs, placed):
        """Each categorical column of a run (its values; codes of no rows): on every row,
        the whole set's vocabulary; on some of them (the main run beside early stopping's
        held-out rows, a calibration run on text) the values its rows hold, as the local
        encoder finds them on the run's rows (one wait), the run's partitions' value codes
        mapped to them (``partitions.recoded``)."""
        columns = sorted(inputs.vocabularies.items())
        empty = np.empty(0, dtype=np.int32)
        if not columns or sum(placed.part_rows) == inputs.rows:
            return [CategoricalColumn(position, values, empty) for position, values in columns]
        sizes = [len(values) for _, values in columns]
        held = computed(self.client, [delayed(held_codes)(part[3][:len(columns)], sizes)
                                      for part in placed.parts],
                        self.timeout, "the categorical values of a run's rows")
        kept = [np.flatnonzero(np.logical_or.reduce([each[c] for each in held]))
                for c in range(len(columns))]
        maps = []
        for size, codes in zip(sizes, kept, strict=True):
            maps.append(np.full(size, -1, dtype=np.int32))
            maps[-1][codes] = np.arange(codes.size, dtype=np.int32)
        placed.parts = [tuple(delayed(recoded, nout=4)(*part, maps)) for part in placed.parts]
        return [CategoricalColumn(position, [values[code] for code in codes.tolist()], empty)
                for (position, values), codes in zip(columns, kept, strict=True)]

    def _text_columns(self, encoder, n_categorical, placed):
        """Each text column's ``ColumnVocabulary``: the local vocabulary's rule applied to
        the term counts of the partitions ``placed`` (one wait for all the columns; the
        documents stay on the workers)."""
        experts = {} if encoder is None else encoder.experts
        if not experts:
            return []
        positions = sorted(experts)
        counted = computed(self.client, [
            [delayed(partition_terms)(part[3][n_categorical + c], experts[position])
             for part in placed.parts] for c, position in enumerate(positions)],
            self.timeout, "the term counts of the text columns' partitions")
        return [ColumnVocabulary(position, merged_vocabulary(pieces, experts[position]),
                                 experts[position])
                for position, pieces in zip(positions, counted, strict=True)]

    def _learner(self, dataset, smoothing, k):
        """The run's shards (``_build_shards``: ``Fit._part`` makes the learner after the
        scheme), then its learner: each round the learner and the scheme's update on every
        worker (``collective.CollectiveLearner``), the worker's learner taking its sums over
        the workers (``RoundSpec.make_learner``: the engine's learner, as a local fit makes it)."""
        name, p = self.known["weak_learner_"], self.params
        if name not in TREE_LEARNERS:  # its own errors (a product or trim on mixed columns) here
            make_learner(name, dataset, self.mode, smoothing, trim=float(p.trim),
                         n_terms=int(p.product_terms))
        self._build_shards()
        self.placed.learner = self.placed.reducer.learner(RoundSpec(
            name, self.mode, smoothing, self._alpha_method(), self.known["learning_rate_"],
            {"n_terms": int(p.product_terms), "trim": float(p.trim),
             **self.probe._tree_params(self.known["max_leaves_"])}))
        return self.placed.learner

    def _run_callbacks(self, weight):
        return [ClusterCover(self.placed.reducer), RoundCount(self.placed.shards),
                RoundBlocks(self.placed.recorder), LearnerCalls(self.placed.learner)]


def _take_piece(X, y, weight, codes, rows):
    """Rows ``rows`` of one partition (X, y, weights, value codes)."""
    return X[rows], np.asarray(y)[rows], weight[rows], [each[rows] for each in codes]


def _rows_of_parts(parts, part_rows, rows):
    """The partitions of ``rows`` (sorted, whole-set positions): each partition's rows
    among them, delayed, and their row counts; partitions without any are left out."""
    starts = np.concatenate([[0], np.cumsum(part_rows)])
    taken, sizes = [], []
    for part, start, end in zip(parts, starts[:-1], starts[1:], strict=True):
        local = rows[(rows >= start) & (rows < end)] - start
        if local.size:
            taken.append(tuple(delayed(_take_piece, nout=4)(*part, local)))
            sizes.append(int(local.size))
    return taken, sizes


def _class_factors(class_weight, classes, multilabel, summaries):
    """Each class's ``class_weight`` factor (``holdout.class_weights``'), from the whole
    set's class counts."""
    if multilabel:
        raise ValueError("class_weight is for single-label data (1-D y); a multi-label y "
                         "takes sample_weight instead")
    counts = np.zeros(classes.size, dtype=np.int64)
    for summary in summaries:
        counts[np.searchsorted(classes, summary[1])] += summary[4]
    # scikit-learn's compute_class_weight reads y's class counts only
    return compute_class_weight(class_weight, classes=classes, y=np.repeat(classes, counts))


def _computed(value):
    """A dask collection computed (an eval_set's X or y), anything else as it is."""
    return value.compute() if is_dask_collection(value) else value
