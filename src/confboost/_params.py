"""Constraint types of the declarative parameter tables (scikit-learn's ``_param_validation``).

``_parameter_constraints`` of ``BoostClassifier`` (DESIGN.md rule 5) uses them: a count or
a number in an interval that refuses bools (scikit-learn's ``Interval`` takes True for 1).
"""

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval


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
