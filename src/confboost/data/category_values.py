"""How a categorical column's values compare between fit and prediction.

Owns ``value_text``, the text a value is compared as (a string as itself, a number as
Python spells it, an integral number as an integer), what a column held at fit
(``fitted_values``: numbers or strings) and the reading of its values at prediction in
that light (``predicted_texts``), with the ``ColumnValueWarning`` that says when they may
not match. ``data/columns.py``'s module docstring states the rule for users.
"""

import math
import warnings

import numpy as np


class ColumnValueWarning(UserWarning):
    """A categorical column's values at prediction may not match those of the fit (see the
    module docstring)."""


def is_missing(value):
    """True for None, a float NaN, pandas' NA and NaT (without importing pandas)."""
    if value is None:
        return True
    if isinstance(value, float | np.floating):
        return math.isnan(value)
    return type(value).__name__ in ("NAType", "NaTType")


def is_number(value):
    """Whether a value is a real number (Python or NumPy; a bool is not)."""
    return (isinstance(value, int | float | np.integer | np.floating)
            and not isinstance(value, bool | np.bool_))


def value_text(value):
    """A categorical value (not missing) as the text it is compared as.

    A string is itself; a number is the shortest text that reads back as it in its own
    precision, an integral one without a fraction (``202`` for 202, 202.0 and
    ``np.float32(202)``; ``0.1`` for ``np.float32(0.1)``); anything else is ``str(value)``.
    """
    if isinstance(value, str):
        return value
    if is_number(value):
        if isinstance(value, int | np.integer):
            return str(int(value))
        if math.isfinite(value) and float(value).is_integer() and abs(value) < 2**53:
            return str(int(value))
        return str(value)
    return str(value)


def spelled_number(text):
    """The number a string spells (``float``'s reading, surrounding blanks allowed), or
    None when it spells none or a non-finite one."""
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def fitted_values(values):
    """What a categorical column holds at fit: ``("numbers", None)`` when every present
    value is a number, else ``("strings", odd)`` with ``odd`` the first string that spells a
    number otherwise than ``value_text`` would (``"007"``, ``"1.50"``), or None."""
    present = [value for value in values if not is_missing(value)]
    if present and all(is_number(value) for value in present):
        return "numbers", None
    for value in present:
        if isinstance(value, str):
            number = spelled_number(value)
            if number is not None and value_text(number) != value:
                return "strings", value
    return "strings", None


def predicted_texts(values, fitted, name):
    """The texts of a categorical column's values at prediction (None for missing), read as
    the column was fitted (``fitted_values``), with a ``ColumnValueWarning`` where they may
    not match (module docstring)."""
    kind, odd = fitted
    texts, surprise = [], None
    for value in values:
        if is_missing(value):
            texts.append(None)
        elif kind == "numbers" and isinstance(value, str):
            number = spelled_number(value)
            if number is None and surprise is None:
                surprise = value
            texts.append(value if number is None else value_text(number))
        else:
            if odd is not None and surprise is None and is_number(value):
                surprise = value
            texts.append(value_text(value))
    if surprise is not None and kind == "numbers":
        warnings.warn(f"column {name!r} was fitted with numbers, but at prediction holds "
                      f"{surprise!r}, which is no number: it counts as a value never seen",
                      ColumnValueWarning, stacklevel=_PREDICT_CALLER)
    elif surprise is not None:
        warnings.warn(f"column {name!r} was fitted with strings, some of which spell numbers "
                      f"their own way (such as {odd!r}), but at prediction holds numbers "
                      f"(such as {surprise!r}): a number matches the string that spells it "
                      f"as Python does ('202' for 202 or 202.0), so {odd!r} matches none; "
                      "read the column as strings (dtype=str) to compare it as fitted",
                      ColumnValueWarning, stacklevel=_PREDICT_CALLER)
    return texts


#: The frame of the user's ``predict`` call, where a column-value warning points: this
#: function ← ``FrameEncoder._texts`` ← ``FrameEncoder.transform`` ← ``prediction_data`` ←
#: the estimator's ``_prepare`` ← ``_scores`` ← ``predict`` (or ``decision_function``, ...).
_PREDICT_CALLER = 8
