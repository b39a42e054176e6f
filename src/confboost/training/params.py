"""``BoostClassifier``'s parameter table, written as plain data, and its checker without
scikit-learn.

``PARAMETERS`` says, for every parameter of the estimator, the alternatives it accepts
(DESIGN.md rule 5). It is the one table: ``BoostClassifier`` turns it into scikit-learn's
``_parameter_constraints`` (``estimators/classifier.py``), checked at its ``fit`` by scikit-learn's
``_validate_params``; ``check_parameters`` checks the same table in plain Python, with the
same answers and the same messages (``tests/training/test_params.py`` proves it value by value), for
a ``Booster``'s fit and for every model file read (``formats/model_json.py``: a file is untrusted
input), so the command line checks a model's parameters without importing scikit-learn
(a command's start-up). ``check_across`` is the rule the table cannot say.

An alternative is one of:

- ``None``: the value None;
- a type (``dict``, ``str``, ``TextExpert``): an instance of it;
- ``callable``: anything callable;
- ``"boolean"``: a bool or ``numpy.bool_``;
- ``"verbose"``: an int ≥ 0, a bool or ``numpy.bool_``;
- ``"random_state"``: an int in [0, 2³² - 1], a ``numpy.random.RandomState`` or None;
- ``"array-like"``: anything with a length, a shape or ``__array__`` that is not a scalar
  nor a sparse matrix (as scikit-learn reads it);
- ``Count(left, right, closed)`` / ``Number(left, right, closed)``: an int (an
  ``numbers.Integral``) / a real number (a ``numbers.Real``, not NaN) in the interval, never
  a bool (scikit-learn's ``Interval`` takes True for 1); ``None`` bounds are infinite;
- ``Strings(options)``: one of these strings.

The table is built from the registries, so a new scheme, confidence mode, α method, learner,
start or code is accepted where it is registered.

The defaults themselves are ``Booster.__init__``'s: 100 rounds of real AdaBoost.MH,
``weak_learner="auto"`` (stumps up to 2,500 examples, trees above), ``max_leaves="auto"``
and ``learning_rate="auto"`` (``tree_defaults``: trees of 32 leaves at a step of 0.5 on more
than 10,000 examples of at most 2,000 features × labels, 16 leaves at step 1 otherwise) and
``calibration="temperature"``. They were chosen against LightGBM's and HistGradientBoosting's
defaults on satimage, letter, pendigits, 20,000 rows of fashion-mnist and synthetic binary
200k x 50 (``benchmarks/bench_defaults.py``, the tables in ``benchmarks/results.md``): 32
leaves at step 0.5 reach the peers' accuracy and log loss on letter and binary 200k, where 16
leaves at step 1 do not, and still fit in less time than either peer there; on satimage and
pendigits (under 10,000 examples) 16 leaves already reach them and 32 cost 1.3-1.7x the time,
more than the peers'; on fashion-mnist (784 features × 10 labels, every node's histogram 2
million cells) no shared tree reaches either peer's accuracy in their time, and a tree per
class (``default_learner``: ``"label_trees"`` on more than 2,000 features × labels, 28 leaves
each at step 0.5) comes much closer: .8796 accuracy and .3493 log loss against the shared
tree's .8564 and .4379 (16 leaves), LightGBM's .8814 and .3650, in LightGBM's CPU time.
"""

import math
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from confboost.data.text_experts import TextExpert
from confboost.engine.alpha import METHODS as ALPHA_METHODS
from confboost.engine.confidence import MIN_SMOOTHING
from confboost.engine.learners import LEARNERS, MAX_LEAVES, TREE_LEARNERS, choose_learner
from confboost.engine.learners.label_trees import MAX_LABEL_BLOCKS
from confboost.engine.schemes import SCHEMES
from confboost.engine.schemes.mh import INITS
from confboost.engine.schemes.mo import CODES, DECODINGS
from confboost.kernels.criterion_numpy import MODES
from confboost.utils.sparse import issparse

#: The closed ends of each ``closed`` of an interval.
_CLOSED = {"both": (True, True), "left": (True, False), "right": (False, True),
           "neither": (False, False)}


@dataclass(frozen=True)
class Count:
    """An int (a ``numbers.Integral``, not a bool) in an interval; None is an infinite bound.

    Parameters
    ----------
    left, right : int or None
    closed : {"both", "left", "right", "neither"}
        Which ends belong to the interval.
    """

    left: object
    right: object
    closed: str = "both"


@dataclass(frozen=True)
class Number:
    """A real number (a ``numbers.Real``, not NaN, not a bool) in an interval; None is an
    infinite bound.

    Parameters
    ----------
    left, right : float or None
    closed : {"both", "left", "right", "neither"}
        Which ends belong to the interval.
    """

    left: object
    right: object
    closed: str = "both"


@dataclass(frozen=True)
class Strings:
    """One of a set of strings.

    Parameters
    ----------
    options : frozenset of str
    """

    options: frozenset


#: Every parameter of ``BoostClassifier`` and the alternatives it accepts (its class
#: docstring says what each means).
PARAMETERS = {
    "n_estimators": [Count(1, None, closed="left")],
    "scheme": [Strings(frozenset(SCHEMES))],
    "confidence": [Strings(frozenset(MODES))],
    "alpha": [Strings(frozenset(ALPHA_METHODS))],
    "smoothing": [Strings(frozenset({"auto"})), Number(MIN_SMOOTHING, None, closed="left")],
    "init": [Strings(frozenset(INITS))],
    "code": [Strings(frozenset(CODES)), "array-like"],
    "code_length": [None, Count(1, None, closed="left")],
    "decoding": [Strings(frozenset(DECODINGS))],
    "max_bins": [None, Count(2, 255)],
    "trim": [Number(0.0, 0.5)],
    "n_jobs": [None, Count(None, -1, closed="right"), Count(1, None, closed="left")],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
    "weak_learner": [Strings(frozenset({"auto", *LEARNERS}))],
    "max_leaves": [Strings(frozenset({"auto"})), Count(2, MAX_LEAVES)],
    "max_depth": [None, Count(1, None, closed="left")],
    "min_leaf_weight": [Number(0.0, 0.5)],
    "product_terms": [Count(1, 16)],
    "learning_rate": [Strings(frozenset({"auto"})), Number(0.0, 1.0, closed="right")],
    "feature_types": [None, dict],
    "text_expert": [None, TextExpert, dict],
    "early_stopping": [Strings(frozenset({"auto"})), "boolean"],
    "validation_fraction": [Number(0.0, 1.0, closed="neither")],
    "n_iter_no_change": [Count(1, None, closed="left")],
    "tol": [Number(0.0, None, closed="left")],
    "scoring": [str, callable],
    "warm_start": ["boolean"],
    "class_weight": [None, Strings(frozenset({"balanced"})), dict],
    "calibration": [None, Strings(frozenset({"temperature"}))],
}

#: The alternatives each named one stands for, as scikit-learn expands them: those its
#: message names, and those it does not (scikit-learn's seed interval takes bools).
_NAMED = {
    "boolean": ((bool, np.bool_), ()),
    "verbose": ((Count(0, None, closed="left"), bool, np.bool_), ()),
    "random_state": ((Count(0, 2**32 - 1), np.random.RandomState, None), (bool,)),
}


def _in_interval(value, interval):
    """Whether a number lies in ``interval`` (NaN lies in none)."""
    if not isinstance(value, Integral) and math.isnan(value):
        return False
    closed_left, closed_right = _CLOSED[interval.closed]
    left = -math.inf if interval.left is None else interval.left
    right = math.inf if interval.right is None else interval.right
    above = value >= left if closed_left else value > left
    below = value <= right if closed_right else value < right
    return bool(above and below)


def accepts(alternative, value):
    """Whether ``value`` satisfies one alternative of the table (see the module docstring).

    Parameters
    ----------
    alternative : object
        An entry of a ``PARAMETERS`` list.
    value : object

    Returns
    -------
    bool
    """
    if alternative is None:
        return value is None
    if alternative is callable:
        return callable(value)
    if isinstance(alternative, type):
        return isinstance(value, alternative)
    if isinstance(alternative, Strings):
        return isinstance(value, str) and value in alternative.options
    if isinstance(alternative, Count | Number):
        kind = Integral if isinstance(alternative, Count) else Real
        return (isinstance(value, kind) and not isinstance(value, bool)
                and _in_interval(value, alternative))
    if alternative == "array-like":
        return (not issparse(value) and not np.isscalar(value)
                and any(hasattr(value, name) for name in ("__len__", "shape", "__array__")))
    named, unnamed = _NAMED[alternative]
    return any(accepts(each, value) for each in (*named, *unnamed))


def _type_name(kind):
    """A type's name in a message (scikit-learn's ``_type_name``)."""
    if kind.__module__ == "builtins":
        return kind.__qualname__
    return f"{kind.__module__}.{kind.__qualname__}"


def describe(alternative):
    """What an alternative accepts, in words (as scikit-learn's constraints print, the
    options of ``Strings`` sorted).

    Parameters
    ----------
    alternative : object
        An entry of a ``PARAMETERS`` list.

    Returns
    -------
    str
    """
    if alternative is None:
        return "None"
    if alternative is callable:
        return "a callable"
    if isinstance(alternative, type):
        return f"an instance of {_type_name(alternative)!r}"
    if isinstance(alternative, Strings):
        return f"a str among {{{', '.join(repr(o) for o in sorted(alternative.options))}}}"
    if isinstance(alternative, Count | Number):
        closed_left, closed_right = _CLOSED[alternative.closed]
        left, right = alternative.left, alternative.right
        if isinstance(alternative, Number):
            left = left if left is None else float(left)
            right = right if right is None else float(right)
        return (f"{'an int' if isinstance(alternative, Count) else 'a float'} in the range "
                f"{'[' if closed_left else '('}{'-inf' if left is None else left}, "
                f"{'inf' if right is None else right}{']' if closed_right else ')'}")
    if alternative == "array-like":
        return "an array-like"
    return _either(_NAMED[alternative][0])


def _either(alternatives):
    """'a, b or c' of the alternatives' descriptions."""
    words = [describe(each) for each in alternatives]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def check_parameters(params, caller="BoostClassifier"):
    """Check each parameter alone against ``PARAMETERS``, in the order given.

    Parameters
    ----------
    params : dict
        Parameter name to value; names not in the table are not checked (as scikit-learn's
        ``validate_parameter_constraints``).
    caller : str
        Named in the message.

    Raises
    ------
    ValueError
        For the first parameter no alternative accepts: ``"The 'name' parameter of caller
        must be <alternatives>. Got <value!r> instead."`` (scikit-learn's message).
    """
    for name, value in params.items():
        alternatives = PARAMETERS.get(name)
        if alternatives is not None and not any(accepts(each, value)
                                                for each in alternatives):
            raise ValueError(f"The {name!r} parameter of {caller} must be "
                             f"{_either(alternatives)}. Got {value!r} instead.")


def check_across(params):
    """The rules the table cannot say: a tree per label is for MH and MO (not MR), weight
    trimming is for stumps only, and the weights
    of a ``class_weight`` dict are finite numbers > 0 (a weight of 0 would keep a class the
    fit never sees: leave its examples out instead).

    Parameters
    ----------
    params : dict
        Every parameter (``get_params()``), each already checked alone.

    Raises
    ------
    ValueError
    """
    if params["weak_learner"] == "label_trees" and params["scheme"] == "mr":
        raise ValueError("weak_learner='label_trees' (a tree per label) needs scheme='mh' or "
                         "'mo': AdaBoost.MR's weights are on pairs of labels, which a "
                         "partition per label does not split")
    if params["trim"] != 0 and params["weak_learner"] not in ("stump", "auto"):
        raise ValueError(f"trim applies to weak_learner='stump' only, got weak_learner="
                         f"{params['weak_learner']!r} with trim={params['trim']!r}")
    class_weight = params.get("class_weight")
    if isinstance(class_weight, dict):
        for label, weight in class_weight.items():
            if not (isinstance(weight, Real) and not isinstance(weight, bool | np.bool_)
                    and math.isfinite(weight) and weight > 0):
                raise ValueError(f"class_weight[{label!r}] must be a finite number > 0, got "
                                 f"{weight!r}")


#: ``max_leaves="auto"`` and ``learning_rate="auto"`` (``tree_defaults``): trees of
#: ``LARGE_LEAVES`` leaves at the step ``LARGE_STEP`` on more than ``LARGE_ABOVE`` examples
#: with at most ``LARGE_CELLS`` features × label columns; ``SMALL_LEAVES`` leaves at step 1
#: otherwise. ``LARGE_ABOVE`` lies between pendigits (7,494 examples) and letter (16,000);
#: ``LARGE_CELLS`` between letter (16 × 26 = 416) and fashion-mnist (784 × 10 = 7,840), near
#: their geometric mean.
LARGE_ABOVE = 10_000
LARGE_CELLS = 2_000
LARGE_LEAVES, LARGE_STEP = 32, 0.5
SMALL_LEAVES = 16
#: ``weak_learner="auto"``'s trees on more than ``LARGE_CELLS`` features × label columns,
#: at least 2 labels, under MH: a tree per label (``learners/label_trees.py``), each of
#: ``LABEL_TREE_LEAVES`` leaves at the step ``LABEL_TREE_STEP`` (also the "auto" of
#: ``weak_learner="label_trees"`` wherever it is asked for). The leaves are the most whose
#: default fit costs no more than LightGBM's default (k trees of 31 leaves a round): a
#: tree per label costs k one-label trees, each about one pass over the rows plus a split
#: search over every feature's bins per split, so its cost grows with the leaves where
#: the accuracy it buys does. On fashion-mnist 20k (784 features × 10 classes, 100 rounds,
#: the temperature, one thread) 16, 24, 28 and 32 leaves reach .8776, .8791, .8796 and
#: .8805 test accuracy, 28 leaves at LightGBM's CPU (.8814) and 32 at 1.1 times it; the
#: step is at its best (0.3, 0.5, 0.7: .8762, .8776, .8728 at 16 leaves)
#: (docs/guide/trees.md, "A tree per label").
LABEL_TREE_LEAVES, LABEL_TREE_STEP = 28, 0.5


def default_learner(weak_learner, n_samples, n_features, n_labels, scheme, trim=0.0):
    """The weak learner a fit uses: ``choose_learner``'s, and where ``"auto"`` grows trees
    on many features × labels, a tree per label.

    A shared tree (``"tree"``) splits all k labels' examples at the same nodes; with many
    features and labels (more than ``LARGE_CELLS`` features × labels) each label's own
    splits are worth k trees a round: ``"label_trees"`` under MH with k ≥ 2 (Eq. 10 per
    label, ALGORITHMS.md §7.1), where k trees of ``LABEL_TREE_LEAVES`` leaves number their
    blocks in ``MAX_LABEL_BLOCKS`` (more labels keep the shared tree, which has no such
    limit).

    Parameters
    ----------
    weak_learner : str
        The parameter (``"auto"`` or a learner's name, kept as it is).
    n_samples, n_features, n_labels : int
        Training examples, feature columns and label columns (1 for binary data).
    scheme : str
    trim : float, default=0.0

    Returns
    -------
    str
    """
    name = choose_learner(weak_learner, n_samples, trim)
    if (weak_learner == "auto" and name == "tree" and scheme == "mh"
            and n_labels >= 2 and n_features * n_labels > LARGE_CELLS
            and n_labels * LABEL_TREE_LEAVES <= MAX_LABEL_BLOCKS):
        return "label_trees"
    return name


def tree_defaults(max_leaves, learning_rate, weak_learner, n_samples, n_features, n_labels):
    """The most leaves and the learning rate a fit uses: the parameters, with ``"auto"``
    resolved by the training data's shape.

    Larger trees at a smaller step (``LARGE_LEAVES``, ``LARGE_STEP``) when the weak learner
    is a tree, the data has more than ``LARGE_ABOVE`` examples and n_features × n_labels is
    at most ``LARGE_CELLS`` (a node's histogram, n_features × bins × labels cells, is then
    cheap to search); trees per label (``"label_trees"``) of ``LABEL_TREE_LEAVES`` leaves
    at ``LABEL_TREE_STEP``; ``SMALL_LEAVES`` leaves at step 1 otherwise (stumps and products
    take the step 1 of the paper's algorithm).

    Parameters
    ----------
    max_leaves : "auto" or int
    learning_rate : "auto" or float
    weak_learner : str
        The learner the fit grows (``weak_learner_``, its "auto" resolved).
    n_samples, n_features, n_labels : int
        Training examples, feature columns and label columns (1 for binary data).

    Returns
    -------
    max_leaves : int
    learning_rate : float
    """
    if weak_learner == "label_trees":
        leaves, step = LABEL_TREE_LEAVES, LABEL_TREE_STEP
    elif (weak_learner in TREE_LEARNERS and n_samples > LARGE_ABOVE
          and n_features * n_labels <= LARGE_CELLS):
        leaves, step = LARGE_LEAVES, LARGE_STEP
    else:
        leaves, step = SMALL_LEAVES, 1.0
    if max_leaves == "auto":
        max_leaves = leaves
    if learning_rate == "auto":
        learning_rate = step
    return int(max_leaves), float(learning_rate)
