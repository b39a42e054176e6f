"""The example files ``STEM.data``, ``.dev`` and ``.test``: read and written.

Owns ``BoosTexterData`` (each column's values, the label matrix, each example's line),
``read_data`` and ``write_data`` against a ``NamesSpec``. The format is described in
``confboost.formats.boostexter``; a bad file raises ``BoosTexterFormatError``.

``read_data`` reads a well-formed file column by column (each continuous column checked for
characters no number holds in one pass and converted by ``float`` at C speed: a command's
start-up); at the first thing that is not plain it reads the file again line by line
(``_read_rows``), which is the format's reference and names the first bad line and column.
"""

import math
import re
from array import array
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from confboost.data.text_values import TextValues
from confboost.formats.file_lines import (
    MISSING,
    BoosTexterFormatError,
    check_writable,
    read_lines,
    shown,
)
from confboost.utils.dtypes import LABEL_DTYPE
from confboost.utils.files import write_atomic

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
# A character that no number (nor missing value, nor the spaces around them) holds. On text of
# the other characters, Python's float() accepts exactly what _NUMBER matches (with spaces
# around): no letter of "inf" or "nan", no underscore between digits.
_NOT_IN_A_NUMBER = re.compile(r"[^0-9.eE+\-?\n \t\r\f\v]")


@dataclass(eq=False)
class BoosTexterData:
    """The examples of one data file.

    Parameters
    ----------
    columns : dict of str to (ndarray or list)
        One entry per column that is not ``ignore``, in ``.names`` order: a continuous column
        is a float64 ndarray of shape (n,) with NaN for missing; a categorical column a list
        of length n of str, None for missing; a text column the same values held compactly,
        a ``TextValues`` (one UTF-8 buffer and offsets, a sequence of str and None).
    labels : ndarray of shape (n, n_classes), dtype int8, or None
        ``labels[i, l] = 1`` when example ``i`` has class ``l`` (a row of zeros for a line
        without labels); None when no line carries labels (``labels_required=False``).
    line_numbers : ndarray of shape (n,), dtype int64
        The 1-based line of each example in its file.
    """

    columns: dict
    labels: np.ndarray | None
    line_numbers: np.ndarray


def read_data(path, spec, labels_required=True, unknown_values="error", single=False):
    """Read a ``.data``, ``.dev`` or ``.test`` file.

    Parameters
    ----------
    path : str or path-like
    spec : NamesSpec
        The columns and classes, from ``read_names``.
    labels_required : bool, default=True
        If False, any line may leave out the label field (as icsiboost's ``-C`` reads them).
    unknown_values : {"error", "missing"}, default="error"
        What an undeclared categorical value is: an error, or a missing value.
    single : bool, default=False
        Read each number as icsiboost does (``strtof``): the float32 nearest to its decimal
        text, held as float64 (``as_single``). A threshold between two such values is then
        the one icsiboost finds and writes.

    Returns
    -------
    data : BoosTexterData

    Raises
    ------
    BoosTexterFormatError
        On any deviation from the format (see the module docstring).
    """
    if unknown_values not in ("error", "missing"):
        raise ValueError(f"unknown_values must be 'error' or 'missing', got {unknown_values!r}")
    data = _read_columns(path, _example_lines(path), spec, labels_required, unknown_values,
                         single)
    return data if data is not None else _read_rows(path, _example_lines(path), spec,
                                                    labels_required, unknown_values, single)


def _example_lines(path):
    """The lines holding examples (``content_lines``), whitespace at their start kept: a text
    in the first column keeps it, as icsiboost reads it (other fields are stripped)."""
    for number, line in read_lines(path):
        stripped = line.strip()
        if stripped and not stripped.startswith("|"):
            yield number, line.rstrip()


def _strip(value, kind, first):
    """A field without the whitespace around it; a text without the spaces around it only
    (icsiboost's separator is " *, *"), and at the start of a line without none."""
    if kind != "text":
        return value.strip()
    return value.rstrip(" ") if first else value.strip(" ")


def _read_columns(path, lines, spec, labels_required, unknown_values, single=False):
    """``read_data`` of a well-formed file, column by column; None at the first field that
    is not plain (``_read_rows`` then finds and names the error, or reads it). The lines are
    read once, each field put in its column's list: no list of the lines or of their fields
    is held beside the columns."""
    n_columns = len(spec.columns)
    fields = [[] for _ in range(n_columns + 1)]
    numbers = array("q")
    counts = set()
    label_fields = {}  # one string per distinct label field: they repeat
    for line, text in lines:
        parts = text.split(",")
        counts.add(len(parts))
        if len(counts) > 1 or not (len(parts) == n_columns + 1 or (
                not labels_required and len(parts) == n_columns)):
            return None  # a line with another number of fields, or labels on some lines only
        numbers.append(line)
        if len(parts) > n_columns:
            parts[-1] = label_fields.setdefault(parts[-1], parts[-1])
        for column, part in zip(fields, parts, strict=False):
            column.append(part)
    del label_fields
    if not numbers:
        return None
    with_labels = counts == {n_columns + 1}
    columns = {}
    for index, column in enumerate(spec.columns):
        if column.kind == "continuous":
            values = _number_column(fields[index])
            if values is None:
                return None
            if single:
                values = as_single(values, fields[index])
        elif column.kind != "ignore":
            # a text keeps every character but the spaces around it (icsiboost's " *, *")
            raw, fields[index] = fields[index], None  # the fields go as the values come
            kind, first = column.kind, index == 0
            values = [None if (value := _strip(field, kind, first)) in MISSING else value
                      for field in raw]
            del raw
            if column.kind == "text":
                values = TextValues.from_strings(values)
            if column.kind == "categorical":
                allowed = set(column.values)
                if unknown_values == "error" and not allowed.issuperset(
                        value for value in values if value is not None):
                    return None
                values = [value if value in allowed else None for value in values]
        else:
            continue
        columns[column.name] = values
    labels = None
    if with_labels or labels_required:
        class_index = {name: l for l, name in enumerate(spec.classes)}
        labels = np.zeros((len(numbers), len(spec.classes)), dtype=LABEL_DTYPE)
        parsed = {}
        try:
            for row, (line, text) in enumerate(zip(numbers, fields[-1], strict=True)):
                text = text.strip()
                if text not in parsed:
                    parsed[text] = _parse_labels(path, line, text, class_index)
                labels[row, parsed[text]] = 1
        except BoosTexterFormatError:
            return None
    return BoosTexterData(columns=columns, labels=labels,
                          line_numbers=np.array(numbers, dtype=np.int64))


def _number_column(fields):
    """A continuous column's float64 values (NaN for missing), or None when a field is not a
    number (or overflows) as ``_parse_number`` reads it."""
    if _NOT_IN_A_NUMBER.search("\n".join(fields)):
        return None
    try:
        values = np.array(list(map(float, fields)), dtype=np.float64)
    except ValueError:  # missing values among them, or a field that is no number
        try:
            values = np.array([np.nan if value.strip() in MISSING else float(value)
                               for value in fields], dtype=np.float64)
        except ValueError:
            return None
    if np.isinf(values).any():
        return None
    return values


def _read_rows(path, lines, spec, labels_required, unknown_values, single=False):
    """``read_data`` line by line: the reference reading, which names the first bad field."""
    n_columns = len(spec.columns)
    class_index = {name: l for l, name in enumerate(spec.classes)}
    allowed = [set(column.values) for column in spec.columns]
    values = [[] for _ in spec.columns]
    label_rows, line_numbers = [], []
    first_with_labels = None
    for line, text in lines:
        fields = text.split(",")
        if len(fields) == n_columns + 1:
            first_with_labels = first_with_labels or line
        elif len(fields) != n_columns or labels_required:
            expected = f"{n_columns + 1}" if labels_required else f"{n_columns} or {n_columns + 1}"
            raise BoosTexterFormatError(
                path, line,
                f"expected {expected} comma-separated fields ({n_columns} columns, then the "
                f"labels), got {len(fields)} (values may not contain commas)",
            )
        for index, (column, raw) in enumerate(zip(spec.columns, fields, strict=False)):
            value = _strip(raw, column.kind, index == 0)
            if column.kind == "ignore":
                continue
            if value in MISSING:
                value = None
            elif column.kind == "continuous":
                value = _parse_number(path, line, value, column.name, index + 1)
                if single:
                    value = float(as_single(np.array([value]), [raw])[0])
            elif column.kind == "categorical" and value not in allowed[index]:
                if unknown_values == "error":
                    raise BoosTexterFormatError(
                        path, line,
                        f"expected one of the declared values {shown(', '.join(column.values))},"
                        f" got {shown(value)}",
                        column.name, index + 1,
                    )
                value = None
            values[index].append(value)
        if len(fields) == n_columns + 1:
            label_rows.append((len(line_numbers),
                               _parse_labels(path, line, fields[-1].strip(), class_index)))
        line_numbers.append(line)
    columns = {}
    for column, column_values in zip(spec.columns, values, strict=True):
        if column.kind == "continuous":
            columns[column.name] = np.array(
                [np.nan if value is None else value for value in column_values], dtype=np.float64
            )
        elif column.kind == "text":
            columns[column.name] = TextValues.from_strings(column_values)
        elif column.kind != "ignore":
            columns[column.name] = column_values
    labels = np.zeros((len(line_numbers), len(spec.classes)), dtype=LABEL_DTYPE)
    for row, label_columns in label_rows:
        labels[row, label_columns] = 1
    return BoosTexterData(
        columns=columns,
        labels=None if first_with_labels is None and not labels_required else labels,
        line_numbers=np.array(line_numbers, dtype=np.int64),
    )


def as_single(values, texts):
    """Numbers as icsiboost reads them: the float32 nearest to each decimal text (``strtof``).

    Rounding the text to float64 and then to float32 rounds twice, which differs from
    rounding once only where the float64 lies exactly halfway between two float32 values
    (and the text does not): there the text itself decides.

    Parameters
    ----------
    values : ndarray of shape (n,), float64
        ``float`` of each text (NaN for missing).
    texts : sequence of str, length n

    Returns
    -------
    ndarray of shape (n,), float64
        Each value's float32, exactly; ``inf`` beyond float32's range, as ``strtof`` gives.
    """
    with np.errstate(over="ignore"):
        single = values.astype(np.float32)
    low_bits = values.view(np.uint64) & np.uint64((1 << 29) - 1)
    halfway = ((low_bits == np.uint64(1 << 28)) & np.isfinite(single)
               & (np.abs(values) >= np.finfo(np.float32).tiny))
    for i in np.flatnonzero(halfway):
        exact = Fraction(texts[i].strip())
        if exact != Fraction(values[i]):  # not a true tie: the side of the text
            toward = np.float32(np.inf if exact > Fraction(values[i]) else -np.inf)
            if (exact > Fraction(values[i])) != (float(single[i]) > values[i]):
                single[i] = np.nextafter(single[i], toward)
    return single.astype(np.float64)


def _parse_number(path, line, value, name, index):
    if not _NUMBER.fullmatch(value):
        raise BoosTexterFormatError(
            path, line, f"expected a number, got {shown(value)}", name, index
        )
    number = float(value)
    if not math.isfinite(number):
        raise BoosTexterFormatError(
            path, line, f"expected a finite number, got {shown(value)}", name, index
        )
    return number


def _parse_labels(path, line, text, class_index):
    """Label columns of a label field ``LABEL [LABEL ...].``."""
    if not text.endswith("."):
        raise BoosTexterFormatError(
            path, line, f"labels: expected labels ending with '.', got {shown(text)}"
        )
    names = text[:-1].split()
    if not names:
        raise BoosTexterFormatError(
            path, line, f"labels: expected at least one label before '.', got {shown(text)}"
        )
    for name in names:
        if name not in class_index:
            raise BoosTexterFormatError(
                path, line,
                f"labels: expected a declared class ({shown(' '.join(class_index))}), "
                f"got {shown(name)}",
            )
    return [class_index[name] for name in names]


def write_data(path, spec, data):
    """Write a data file that ``read_data`` reads back as ``data``.

    Parameters
    ----------
    path : str or path-like
    spec : NamesSpec
    data : BoosTexterData
        Ignored columns may be absent and are written as ``?``; ``labels`` None writes no label
        field.

    Raises
    ------
    ValueError
        If a value cannot be written so that it reads back the same (a comma or line break in
        a value, surrounding whitespace, an empty string or ``?`` instead of None, an
        undeclared categorical value, an infinite number, an example without labels).
    """
    n = len(data.line_numbers)
    fields = []
    for index, column in enumerate(spec.columns):
        if column.kind == "ignore":
            fields.append(["?"] * n)
            continue
        column_values = data.columns[column.name]
        if len(column_values) != n:
            raise ValueError(f"column {column.name!r} has {len(column_values)} values, not {n}")
        what = f"a value of column {column.name!r}"
        written = []
        for value in column_values:
            if column.kind == "continuous":
                value = float(value)
                if math.isnan(value):
                    written.append("?")
                    continue
                if not math.isfinite(value):
                    raise ValueError(f"{what} must be finite, got {value!r}")
                written.append(repr(value))
            elif value is None:
                written.append("?")
            elif column.kind == "categorical" and value not in column.values:
                raise ValueError(f"{what} must be declared, got {value!r}")
            else:
                check_writable(value, what)
                if index == 0 and value.startswith("|"):
                    raise ValueError(f"{what} in the first column may not start with '|'")
                written.append(value)
        fields.append(written)
    if data.labels is not None:
        labels = np.asarray(data.labels)
        if labels.shape != (n, len(spec.classes)):
            raise ValueError(f"labels must have shape {(n, len(spec.classes))}, got {labels.shape}")
        label_fields = []
        for row in labels:
            if not row.any():
                raise ValueError("every example needs at least one label")
            label_fields.append(" ".join(spec.classes[l] for l in np.flatnonzero(row)) + ".")
        fields.append(label_fields)
    lines = [", ".join(row) for row in zip(*fields, strict=True)]
    write_atomic(path, "".join(line + "\n" for line in lines))
