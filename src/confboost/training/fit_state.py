"""The typed state of one fit: what each stage of ``fit_runs.Fit`` hands the next.

``FitParams`` (the checked parameters), ``TrainingInputs`` (the data read once), ``Split``
(which rows train and which are scored), ``RunPart`` (a run and what follows it),
``FitState`` (everything built, which a warm start continues) and ``FitResult`` (every
fitted attribute, which the estimator assigns in one store), and how ``eval_set`` is read
(``eval_pairs``, ``eval_fingerprint``). Plain dataclasses: a stage
can be run, and tested, on hand-made input of the stage before it.
"""

from dataclasses import dataclass, field, fields

import numpy as np

from confboost.data.text_values import TextValues
from confboost.engine.boosting import BoostingRun
from confboost.training.checkpoint import run_fingerprint


@dataclass(frozen=True)
class FitParams:
    """The checked parameters of one fit, by name (``BoostClassifier``'s docstring says what
    each means; ``training.params.PARAMETERS`` what each accepts)."""

    n_estimators: int
    scheme: str
    confidence: str
    alpha: str
    smoothing: str | float
    init: str
    code: object
    code_length: int | None
    decoding: str
    max_bins: int
    trim: float
    n_jobs: int | None
    random_state: object
    verbose: int
    weak_learner: str
    max_leaves: int | str
    max_depth: int | None
    min_leaf_weight: float
    product_terms: int
    learning_rate: float | str
    feature_types: dict | None
    text_expert: object
    early_stopping: str | bool
    validation_fraction: float
    n_iter_no_change: int
    tol: float
    scoring: object
    warm_start: bool
    class_weight: object
    calibration: str | None

    @classmethod
    def of(cls, estimator):
        """The parameters of ``estimator`` (``get_params``), checked by the caller."""
        params = estimator.get_params()
        return cls(**{name: params[name] for name in cls.__dataclass_fields__})

    def as_dict(self):
        """The parameters as a dict, by name (the values themselves, not copies: a text
        expert stays the object given)."""
        return {each.name: getattr(self, each.name) for each in fields(self)}


@dataclass
class TrainingInputs:
    """The training data, read once (stage 1).

    Attributes
    ----------
    adapter : ArrayInput or TableInput
        The kind of X, kept for predict (the estimator's ``_input``).
    X : ndarray, sparse matrix or table
        X as checked, from which held-out rows are taken.
    signs : ndarray of shape (n_samples, k), int8
    encoded : ndarray of shape (n_samples,) or None
        Class indices (None for multi-label y).
    classes : ndarray of shape (n_classes,)
    multilabel : bool
    sample_weight : ndarray of shape (n_samples,)
        The starting weights (sample weights times class weights).
    attributes : dict
        The input attributes (``n_features_in_``, ``feature_kinds_``, ...).
    """

    adapter: object
    X: object
    signs: np.ndarray
    encoded: object
    classes: np.ndarray
    multilabel: bool
    sample_weight: np.ndarray
    attributes: dict

    @property
    def n_samples(self):
        """Rows of the training data."""
        return self.signs.shape[0]

    @property
    def work(self):
        """Example·feature·label cells, the thread rule's measure (``numba_threads``)."""
        return self.n_samples * self.attributes["n_features_in_"] * self.signs.shape[1]

    def fingerprint(self):
        """SHA-256 of the data, labels and weights (a warm start's same-data check)."""
        return run_fingerprint(*data_parts(self.X), self.signs, self.sample_weight)


def data_parts(X):
    """The arrays (or plain data) that define an X, for ``run_fingerprint``: a sparse
    matrix's three arrays and shape, an array, or a table's columns as lists."""
    if hasattr(X, "tocsr"):
        X = X.tocsr()
        return [X.data, X.indices, X.indptr, np.asarray(X.shape)]
    if hasattr(X, "columns") or isinstance(X, dict):
        return [{str(name): _plain_list(X[name])
                 for name in (X.columns if hasattr(X, "columns") else X)}]
    return [np.asarray(X)]


def _plain_list(values):
    """``np.asarray(values).tolist()``; a list of str and None is that already, and is kept
    as it is (an array of a text column's strings is as wide as its longest one)."""
    if isinstance(values, TextValues):
        return values
    if isinstance(values, list) and all(
            value is None or (type(value) is str and not value.endswith("\0"))
            for value in values):
        return values
    return np.asarray(values).tolist()


def eval_fingerprint(named_pairs):
    """SHA-256 of ``eval_set`` pairs and their names: [(name, (X, y)), ...]."""
    parts = []
    for name, (X, y) in named_pairs:
        parts += [name, *data_parts(X), *data_parts(y)]
    return run_fingerprint(*parts)


def eval_pairs(eval_set, eval_names):
    """``eval_set`` as a list of (name, (X, y)): a list of pairs, or one pair alone;
    ``eval_names`` name them (LightGBM's "valid_0", "valid_1", ... by default)."""
    if eval_set is None:
        if eval_names is not None:
            raise ValueError("eval_names names the eval_set pairs; no eval_set was given")
        return []
    if (isinstance(eval_set, tuple) and len(eval_set) == 2
            and not isinstance(eval_set[0], (tuple, list))):
        eval_set = [eval_set]  # one pair alone
    pairs = list(eval_set)
    if not pairs or any(not isinstance(p, (tuple, list)) or len(p) != 2 for p in pairs):
        raise ValueError("eval_set must be a list of (X_val, y_val) pairs")
    names = ([f"valid_{i}" for i in range(len(pairs))] if eval_names is None
             else [eval_names] if isinstance(eval_names, str) else list(eval_names))
    if len(names) != len(pairs) or len(set(names)) != len(names):
        raise ValueError(f"eval_names must name each of the {len(pairs)} eval_set pairs "
                         f"once; got {names!r}")
    if "training" in names:
        raise ValueError("eval_names: 'training' names the training score")
    return list(zip(names, pairs, strict=True))


@dataclass
class Split:
    """Which rows train and which are scored (stage 2).

    Attributes
    ----------
    train_rows : ndarray or None
        The main run's rows (None: all).
    eval_sets : list of EvalSet
        Held-out sets scored every round; early stopping and calibration read the first.
    stopping : bool
    folds : list of (ndarray, EvalSet)
        Without held-out data but with calibration: each fold's training rows and held-out
        set, whose runs give out-of-fold f to calibrate on.
    eval_fingerprint : str
        ``eval_fingerprint`` of the ``eval_set`` pairs given (a warm start's check).
    """

    train_rows: object
    eval_sets: list
    stopping: bool
    folds: list = field(default_factory=list)
    eval_fingerprint: str = ""


@dataclass
class RunPart:
    """One ``BoostingRun`` and what follows it.

    Attributes
    ----------
    run : BoostingRun
    callbacks : list
        Its own callbacks (cover, score records).
    records : list of ScoreRecord
        The held-out records, in ``eval_sets`` order.
    eval_set : EvalSet or None
        A fold's held-out set (calibration).
    """

    run: BoostingRun
    callbacks: list
    records: list = field(default_factory=list)
    eval_set: object = None


@dataclass
class FitState:
    """What a fit has built, and a warm start continues (stage 3).

    Attributes
    ----------
    params : dict
        The parameters of the fit.
    fingerprint : str
        ``TrainingInputs.fingerprint`` of the data.
    eval_fingerprint : str
        ``eval_fingerprint`` of the ``eval_set`` pairs given (of none: of an empty list).
    kind : str
        The input adapter's kind.
    n_samples, n_features : int
    work : int
        The thread rule's measure, kept so a warm start runs on the same threads.
    main : RunPart
    folds : list of RunPart
    training_record : ScoreRecord or None
    stopping : bool
    attributes : dict
        The fitted attributes known before the rounds (inputs, classes, code, smoothing).
    """

    params: dict
    fingerprint: str
    eval_fingerprint: str
    kind: str
    n_samples: int
    n_features: int
    work: int
    main: RunPart
    folds: list
    training_record: object
    stopping: bool
    attributes: dict


@dataclass
class FitResult:
    """What a fit gives the estimator (stage 5).

    Attributes
    ----------
    attributes : dict
        Every fitted attribute, by name, assigned by the estimator in one store.
    state : FitState
        Kept (as ``_warm``) when ``warm_start`` is on.
    """

    attributes: dict
    state: FitState
