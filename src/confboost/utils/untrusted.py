"""Readers of untrusted fields: every value taken from a model file passes through here.

A model file is data from anywhere (DESIGN.md rule 12). Each reader takes a JSON value and
the name of the field it came from, checks its type, range, shape and finiteness, and
returns it as the Python or NumPy value the code uses, or raises ``ValueError("field:
problem, got value")``. The callers prefix the field's path (``model.hypotheses[3].``) and
the file name, so a bad file is refused with one message naming the file and the field,
before a kernel sees an index from it.
"""

import math

import numpy as np

from confboost.utils.files import check_regular_file

#: Most entries of one list read from a model file (a bound on work and memory per field).
MAX_ENTRIES = 50_000_000
#: Longest string read from a model file (a term, a class name, a column name, a value).
#: Whatever a fit can make is below it; a longer one is refused when the model is saved.
MAX_STRING = 1_000_000
#: Bytes read from a file at a time (``read_bounded``).
_CHUNK = 1 << 20


def read_bounded(path, limit):
    """The bytes of the file ``path``, at most ``limit`` of them; ValueError naming the file
    beyond that.

    Memory follows the file's size, not ``limit`` (a single ``read(limit)`` would reserve
    ``limit`` bytes for a small file); a device or a pipe is refused (``check_regular_file``).
    """
    check_regular_file(path)
    chunks, total = [], 0
    with open(path, "rb") as stream:
        while chunk := stream.read(_CHUNK):
            total += len(chunk)
            if total > limit:
                raise ValueError(f"{path}: larger than {limit} bytes: not a file this reader "
                                 "takes")
            chunks.append(chunk)
    return b"".join(chunks)


def finite_float(text):
    """A JSON number read as a finite float (``json.loads``' ``parse_float``); ValueError
    for one beyond float64 (``1e999``), which Python would read as infinity."""
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"the number {text[:40]} is beyond float64")
    return number


def _shown(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def fail(field, problem, value):
    """Raise the ValueError of a bad field."""
    raise ValueError(f"{field}: {problem}, got {_shown(value)}")


def prefixed(prefix, error):
    """``error`` (a ValueError) with ``prefix`` put before its field name."""
    return ValueError(f"{prefix}{error}")


def require(data, key, field):
    """``data[key]`` of a JSON object; ValueError if ``data`` is not an object or lacks it."""
    if not isinstance(data, dict):
        fail(field, "must be a JSON object", data)
    if key not in data:
        raise ValueError(f"{field}.{key}: missing")
    return data[key]


def read_int(value, field, low, high):
    """An integer in [low, high)."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value < high:
        fail(field, f"must be an integer in [{low}, {high})", value)
    return value


def read_float(value, field, low=-np.inf, high=np.inf, infinite=False):
    """A finite number in [low, high]; with ``infinite``, also "inf" or "-inf"
    (``write_float``'s spelling of ±inf)."""
    if infinite and value in ("inf", "-inf"):
        return float(value)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        fail(field, f"must be a finite number in [{low}, {high}]", value)
    try:
        number = float(value)
    except OverflowError:  # an integer beyond float64
        number = np.inf
    if not (np.isfinite(number) and low <= number <= high):
        fail(field, f"must be a finite number in [{low}, {high}]", value)
    return number


def write_float(value):
    """A float as a model file holds it: itself, or "inf" / "-inf" (JSON has no infinity)."""
    value = float(value)
    if np.isnan(value):
        raise ValueError("a model cannot hold NaN")
    if np.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def read_list(value, field, length=None, max_length=MAX_ENTRIES):
    """A JSON list, of ``length`` entries if given, at most ``max_length``."""
    if not isinstance(value, list):
        fail(field, "must be a list", value)
    if length is not None and len(value) != length:
        fail(field, f"must have {length} entries, not {len(value)}", value)
    if len(value) > max_length:
        fail(field, f"must have at most {max_length} entries", len(value))
    return value


def read_str(value, field, max_length=MAX_STRING):
    """A string of at most ``max_length`` characters."""
    if not isinstance(value, str) or len(value) > max_length:
        fail(field, f"must be a string of at most {max_length} characters", value)
    return value


def read_bool(value, field):
    """true or false."""
    if not isinstance(value, bool):
        fail(field, "must be true or false", value)
    return value


def read_ints(value, field, low, high, length=None):
    """A list of integers in [low, high), as an intp array of shape (n,)."""
    entries = read_list(value, field, length)
    for position, entry in enumerate(entries):
        read_int(entry, f"{field}[{position}]", low, high)
    return np.asarray(entries, dtype=np.intp).reshape(len(entries))


def read_bools(value, field, length=None):
    """A list of true/false, as a bool array of shape (n,)."""
    entries = read_list(value, field, length)
    for position, entry in enumerate(entries):
        read_bool(entry, f"{field}[{position}]")
    return np.asarray(entries, dtype=bool).reshape(len(entries))


def read_floats(value, field, shape, infinite=False):
    """A (nested) list of finite numbers of the given shape, as a float64 array.

    Parameters
    ----------
    value : object
        The JSON value.
    field : str
    shape : tuple of int or None
        The shape wanted; None entries take any length (at least 1 for inner axes).
    infinite : bool, default=False
        Whether "inf" and "-inf" are allowed (thresholds).
    """
    if infinite:
        entries = read_list(value, field, shape[0])
        return np.array([read_float(t, f"{field}[{i}]", infinite=True)
                         for i, t in enumerate(entries)], dtype=np.float64).reshape(len(entries))
    array = _nested_floats(value, field, len(shape))
    for axis, (got, wanted) in enumerate(zip(array.shape, shape, strict=True)):
        if wanted is not None and got != wanted:
            fail(field, f"must have shape {_shape_text(shape)} (axis {axis} has {got})",
                 array.shape)
    return array


def _shape_text(shape):
    text = ", ".join("n" if s is None else str(s) for s in shape)
    return f"({text},)" if len(shape) == 1 else f"({text})"


def _nested_floats(value, field, ndim):
    """An ndim-deep list of numbers, every row of equal length, as float64."""
    if ndim == 1:
        entries = read_list(value, field)
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in entries):
            bad = next(v for v in entries
                       if not isinstance(v, (int, float)) or isinstance(v, bool))
            fail(field, "must hold numbers only", bad)
        try:
            array = np.asarray(entries, dtype=np.float64).reshape(len(entries))
        except OverflowError:
            fail(field, "must hold finite numbers", "an integer beyond float64")
    else:
        rows = read_list(value, field)
        parts = [_nested_floats(row, f"{field}[{i}]", ndim - 1) for i, row in enumerate(rows)]
        if len({part.shape for part in parts}) > 1:
            fail(field, "must have rows of equal length", [part.shape for part in parts][:4])
        inner = parts[0].shape if parts else (0,) * (ndim - 1)
        array = np.asarray(parts, dtype=np.float64).reshape((len(parts), *inner))
    if not np.isfinite(array).all():
        fail(field, "must hold finite numbers", array[~np.isfinite(array)][0])
    return array
