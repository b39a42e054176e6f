"""``BoostClassifier``'s parameter table and the constraint types of the declarative tables
(scikit-learn's ``_param_validation``).

``PARAMETERS`` is the estimator's ``_parameter_constraints`` (DESIGN.md rule 5), checked
once at ``fit`` (and by ``load``) by scikit-learn's ``_validate_params``, which raises a
ValueError naming the parameter; ``Booster._validate_params_once`` adds the rule the table
cannot say (``booster.py``, which imports no scikit-learn). The table is built from the
registries, so a new scheme, confidence mode, α method, learner, start or code is accepted
where it is registered. ``Count`` and ``Number`` are a count or a
number in an interval that refuses bools (scikit-learn's ``Interval`` takes True for 1).
"""

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions

from confboost.alpha import METHODS as ALPHA_METHODS
from confboost.criterion import MODES
from confboost.data.terms import TextExpert
from confboost.learners import LEARNERS, MAX_LEAVES
from confboost.schemes import SCHEMES
from confboost.schemes.mh import INITS
from confboost.schemes.mo import CODES, DECODINGS


class Count(Interval):
    """An int (not a bool) in an interval."""

    def __init__(self, left, right, closed="both"):
        super().__init__(Integral, left, right, closed=closed)

    def is_satisfied_by(self, val):
        return not isinstance(val, bool) and super().is_satisfied_by(val)


class Number(Interval):
    """A real number (not a bool) in an interval."""

    def __init__(self, left, right, closed="both"):
        super().__init__(Real, left, right, closed=closed)

    def is_satisfied_by(self, val):
        return not isinstance(val, bool) and super().is_satisfied_by(val)


#: Every parameter of ``BoostClassifier`` and what it accepts (its class docstring says what
#: each means).
PARAMETERS = {
    "n_estimators": [Count(1, None, closed="left")],
    "scheme": [StrOptions(set(SCHEMES))],
    "confidence": [StrOptions(set(MODES))],
    "alpha": [StrOptions(set(ALPHA_METHODS))],
    "smoothing": [StrOptions({"auto"}), Number(0, None, closed="neither")],
    "init": [StrOptions(set(INITS))],
    "code": [StrOptions(set(CODES)), "array-like"],
    "code_length": [None, Count(1, None, closed="left")],
    "decoding": [StrOptions(set(DECODINGS))],
    "max_bins": [Count(2, 255)],
    "trim": [Number(0.0, 0.5)],
    "n_jobs": [None, Count(None, -1, closed="right"), Count(1, None, closed="left")],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
    "weak_learner": [StrOptions({"auto", *LEARNERS})],
    "max_leaves": [Count(2, MAX_LEAVES)],
    "max_depth": [None, Count(1, None, closed="left")],
    "min_leaf_weight": [Number(0.0, 0.5)],
    "product_terms": [Count(1, 16)],
    "learning_rate": [Number(0.0, 1.0, closed="right")],
    "feature_types": [None, dict],
    "text_expert": [None, TextExpert, dict],
    "early_stopping": [StrOptions({"auto"}), "boolean"],
    "validation_fraction": [Number(0.0, 1.0, closed="neither")],
    "n_iter_no_change": [Count(1, None, closed="left")],
    "tol": [Number(0.0, None, closed="left")],
    "scoring": [str, callable],
    "warm_start": ["boolean"],
    "class_weight": [None, StrOptions({"balanced"}), dict],
    "calibration": [None, StrOptions({"temperature"})],
}

