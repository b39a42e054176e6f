"""The BoosTexter / icsiboost file format: ``STEM.names``, ``STEM.data``, ``.dev``, ``.test``.

Owns reading and writing these files, and the errors a bad file raises. Everything read is
checked: a bad file raises ``BoosTexterFormatError`` naming the file, the line, the column
(name and 1-based index), the offending value and what was expected; it never yields silently
wrong data.

Both files are UTF-8 (a leading byte-order mark is skipped). Lines end with ``\\n`` or
``\\r\\n``; whitespace around every line, field and value is insignificant. Blank lines and
lines whose first non-blank character is ``|`` are comments, in both files.

``STEM.names``
    The first non-comment line lists the classes, comma-separated, ending with ``.``::

        earn, acq, money-fx.

    Class names are non-empty, distinct and contain no whitespace. Then one line per column,
    ``NAME: TYPE.``, in the order of the fields of an example line:

    - ``NAME: continuous.``  a number;
    - ``NAME: text.``  free text, with the default ``TextExpert`` (unigrams);
    - ``NAME: text:expert_type=ngram expert_length=2 cutoff=2 drop=REGEX.``  text with its own
      expert (icsiboost's extension). Options are whitespace-separated ``key=value``:
      ``expert_type`` (``ngram``, ``fgram``, ``sgram``), ``expert_length`` (>= 1), ``cutoff``
      (>= 0), ``drop`` (a regular expression without whitespace), ``no_unk`` (``0`` or ``1``)
      and, a confboost extension that icsiboost refuses, ``tokenizer`` (``word`` or
      ``whitespace``; better given on the command line, ``confboost train --text``); see
      ``confboost.data.text``. Settings a line leaves out come from ``read_names``'s
      ``text_defaults``;
    - ``NAME: v1, v2, v3.``  a categorical column (BoosTexter's "set") taking one of these
      values; at least two, distinct, none ``?``;
    - ``NAME: ignore.``  a column whose values are skipped unread.

    ``NAME`` is everything before the first ``:``; names are distinct. Only the line's final
    ``.`` is its terminator, so a value or a regular expression may itself end with ``.``.

``STEM.data``, ``STEM.dev``, ``STEM.test``
    One example per line: the column values in ``.names`` order, then the labels, all
    separated by commas::

        3.5, the cat sat, red, earn acq.

    Every comma separates fields, as in icsiboost: there is no quoting, so no value, text
    included, can contain a comma (a line with too many fields is an error, not a guess). A
    missing value is ``?`` or empty. Continuous values are decimal numbers (``12``, ``-0.5``,
    ``1e-3``, ``.5``; no ``nan``, ``inf`` or digit separators). Categorical values must be
    declared in ``.names``; an undeclared value is an error unless
    ``unknown_values="missing"`` (icsiboost silently ignores undeclared values in test files
    only). The last field holds one or more labels separated by whitespace and ends with
    ``.``; every label must be a declared class. With ``labels_required=False`` any line may
    leave the label field out.
"""

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from confboost._dtypes import LABEL_DTYPE
from confboost.data.text import TextExpert
from confboost.persistence import write_atomic

#: Column kinds of a ``.names`` file.
COLUMN_KINDS = ("continuous", "text", "categorical", "ignore")

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_INTEGER = re.compile(r"\d+", re.ASCII)
_TEXT_OPTIONS = ("expert_type", "expert_length", "cutoff", "drop", "no_unk", "tokenizer")
_MISSING = ("", "?")


class BoosTexterFormatError(ValueError):
    """A ``.names`` or data file that does not follow the format.

    The message reads ``FILE:LINE: column 'NAME' (INDEX): what was expected, got 'VALUE'``;
    the parts are also attributes.

    Attributes
    ----------
    path : str
    line : int or None
        1-based line number; None for an error about the whole file.
    column : str or None
        Column name, when the error is about one column.
    column_index : int or None
        1-based position of the column.
    """

    def __init__(self, path, line, message, column=None, column_index=None):
        self.path = str(path)
        self.line = line
        self.column = column
        self.column_index = column_index
        where = self.path if line is None else f"{self.path}:{line}"
        if column is not None:
            where += f": column {column!r} ({column_index})"
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class ColumnSpec:
    """One column of a ``.names`` file.

    Parameters
    ----------
    name : str
    kind : {"continuous", "text", "categorical", "ignore"}
    values : tuple of str
        The declared values of a categorical column; empty for the other kinds.
    expert : TextExpert or None
        The expert of a text column (None there means ``TextExpert()``); None otherwise.
    """

    name: str
    kind: str
    values: tuple[str, ...] = ()
    expert: TextExpert | None = None

    def __post_init__(self):
        if self.kind not in COLUMN_KINDS:
            raise ValueError(f"column kind must be one of {COLUMN_KINDS}, got {self.kind!r}")
        object.__setattr__(self, "values", tuple(self.values))
        if self.kind == "categorical":
            if len(self.values) < 2 or len(set(self.values)) != len(self.values):
                raise ValueError(
                    f"categorical column {self.name!r} needs at least two distinct values, "
                    f"got {self.values!r}"
                )
        elif self.values:
            raise ValueError(f"only categorical columns have values, {self.name!r} is {self.kind}")
        if self.kind == "text":
            if self.expert is None:
                object.__setattr__(self, "expert", TextExpert())
            elif not isinstance(self.expert, TextExpert):
                raise ValueError(f"expert must be a TextExpert, got {self.expert!r}")
        elif self.expert is not None:
            raise ValueError(f"only text columns have an expert, {self.name!r} is {self.kind}")


@dataclass
class NamesSpec:
    """The contents of a ``.names`` file.

    Parameters
    ----------
    classes : list of str
        The class (label) names, in order: label column ``l`` is ``classes[l]``.
    columns : list of ColumnSpec
        The columns, in the order of an example line's fields.
    """

    classes: list[str]
    columns: list[ColumnSpec] = field(default_factory=list)


@dataclass(eq=False)
class BoosTexterData:
    """The examples of one data file.

    Parameters
    ----------
    columns : dict of str to (ndarray or list)
        One entry per column that is not ``ignore``, in ``.names`` order: a continuous column
        is a float64 ndarray of shape (n,) with NaN for missing; a categorical or text column
        is a list of length n of str, None for missing.
    labels : ndarray of shape (n, n_classes), dtype int8, or None
        ``labels[i, l] = 1`` when example ``i`` has class ``l`` (a row of zeros for a line
        without labels); None when no line carries labels (``labels_required=False``).
    line_numbers : ndarray of shape (n,), dtype int64
        The 1-based line of each example in its file.
    """

    columns: dict
    labels: np.ndarray | None
    line_numbers: np.ndarray


def _shown(value, limit=60):
    """``repr`` of a value for a message, shortened."""
    return repr(value if len(value) <= limit else value[:limit] + "...")


def _read_lines(path):
    """The lines of a UTF-8 file, numbered from 1, without their line ends."""
    raw = Path(path).read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise BoosTexterFormatError(path, line, f"not valid UTF-8 ({error.reason})") from None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [(number, line.removesuffix("\r")) for number, line in enumerate(lines, start=1)]


def _content_lines(path):
    """The stripped lines that are neither blank nor comments, with their numbers."""
    for number, line in _read_lines(path):
        stripped = line.strip()
        if stripped and not stripped.startswith("|"):
            yield number, stripped


def _parse_classes(path, line, text):
    if not text.endswith("."):
        raise BoosTexterFormatError(
            path, line, f"the class list must end with '.', got {_shown(text)}"
        )
    classes = [name.strip() for name in text[:-1].split(",")]
    if classes == [""]:
        raise BoosTexterFormatError(path, line, "empty class list: expected at least one class")
    seen = set()
    for name in classes:
        if not name:
            raise BoosTexterFormatError(path, line, f"empty class name in {_shown(text)}")
        if name.split() != [name]:
            raise BoosTexterFormatError(
                path, line, f"class names may not contain whitespace, got {_shown(name)}"
            )
        if name in seen:
            raise BoosTexterFormatError(path, line, f"duplicate class {_shown(name)}")
        seen.add(name)
    return classes


def _parse_text_options(path, line, options, name, index, defaults):
    """The TextExpert of ``text:OPTIONS``, ``defaults`` (TextExpert fields) under them."""
    settings = {}
    for option in options.split():
        key, equals, value = option.partition("=")
        if not equals or not value:
            raise BoosTexterFormatError(
                path, line, f"expected a text option 'key=value', got {_shown(option)}", name, index
            )
        if key not in _TEXT_OPTIONS:
            raise BoosTexterFormatError(
                path, line, f"expected a text option among {_TEXT_OPTIONS}, got {_shown(key)}",
                name, index,
            )
        if key in settings:
            raise BoosTexterFormatError(
                path, line, f"text option {key!r} given twice", name, index
            )
        if key in ("expert_length", "cutoff"):
            if not _INTEGER.fullmatch(value):
                raise BoosTexterFormatError(
                    path, line, f"{key}: expected a non-negative integer, got {_shown(value)}",
                    name, index,
                )
            value = int(value)
        if key == "no_unk":
            if value not in ("0", "1"):
                raise BoosTexterFormatError(
                    path, line, f"no_unk: expected 0 or 1, got {_shown(value)}", name, index
                )
            value = value == "1"
        settings[key] = value
    fields = dict(defaults)
    fields.update(settings)
    fields["kind"] = fields.pop("expert_type", fields.get("kind", "ngram"))
    fields["length"] = fields.pop("expert_length", fields.get("length", 1))
    try:
        return TextExpert(**fields)
    except ValueError as error:
        raise BoosTexterFormatError(path, line, str(error), name, index) from None


def _parse_column(path, line, text, index, defaults):
    """The ColumnSpec of a ``NAME: TYPE.`` line; ``index`` is its 1-based position."""
    name, colon, rest = text.partition(":")
    name = name.strip()
    if not colon or not name:
        raise BoosTexterFormatError(
            path, line, f"expected a column definition 'name: type.', got {_shown(text)}"
        )
    if not text.endswith("."):
        raise BoosTexterFormatError(
            path, line, f"the column definition must end with '.', got {_shown(text)}", name, index
        )
    rest = rest[:-1].strip()
    head, colon, options = rest.partition(":")
    if head.strip() == "text":
        return ColumnSpec(name, "text", expert=_parse_text_options(
            path, line, options if colon else "", name, index, defaults))
    if rest in ("continuous", "ignore"):
        return ColumnSpec(name, rest)
    values = [value.strip() for value in rest.split(",")]
    if len(values) < 2:
        raise BoosTexterFormatError(
            path, line,
            f"expected a column type (continuous, text, ignore, or at least two comma-separated "
            f"values), got {_shown(rest)}",
            name, index,
        )
    seen = set()
    for value in values:
        if value in _MISSING:
            raise BoosTexterFormatError(
                path, line, f"expected a value (not empty, not '?'), got {_shown(value)}",
                name, index,
            )
        if value in seen:
            raise BoosTexterFormatError(path, line, f"duplicate value {_shown(value)}", name, index)
        seen.add(value)
    return ColumnSpec(name, "categorical", values=tuple(values))


def read_names(path, text_defaults=None):
    """Read a ``.names`` file.

    Parameters
    ----------
    path : str or path-like
    text_defaults : dict or None
        ``TextExpert`` fields for the text columns whose line does not set them (say
        ``{"tokenizer": "whitespace", "order": "first"}`` for icsiboost's text handling);
        None: ``TextExpert``'s defaults.

    Returns
    -------
    spec : NamesSpec

    Raises
    ------
    BoosTexterFormatError
        On any deviation from the format (see the module docstring).
    """
    classes = None
    columns = []
    declared = {}
    for line, text in _content_lines(path):
        if classes is None:
            classes = _parse_classes(path, line, text)
            continue
        column = _parse_column(path, line, text, len(columns) + 1, text_defaults or {})
        if column.name in declared:
            raise BoosTexterFormatError(
                path, line,
                f"duplicate column name (first declared on line {declared[column.name]})",
                column.name, len(columns) + 1,
            )
        declared[column.name] = line
        columns.append(column)
    if classes is None:
        raise BoosTexterFormatError(path, None, "empty class list: the file declares no classes")
    if not columns:
        raise BoosTexterFormatError(path, None, "the file declares no columns")
    return NamesSpec(classes=classes, columns=columns)


def read_data(path, spec, labels_required=True, unknown_values="error"):
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
    n_columns = len(spec.columns)
    class_index = {name: l for l, name in enumerate(spec.classes)}
    allowed = [set(column.values) for column in spec.columns]
    values = [[] for _ in spec.columns]
    label_rows, line_numbers = [], []
    first_with_labels = None
    for line, text in _content_lines(path):
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
            value = raw.strip()
            if column.kind == "ignore":
                continue
            if value in _MISSING:
                value = None
            elif column.kind == "continuous":
                value = _parse_number(path, line, value, column.name, index + 1)
            elif column.kind == "categorical" and value not in allowed[index]:
                if unknown_values == "error":
                    raise BoosTexterFormatError(
                        path, line,
                        f"expected one of the declared values {_shown(', '.join(column.values))},"
                        f" got {_shown(value)}",
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


def _parse_number(path, line, value, name, index):
    if not _NUMBER.fullmatch(value):
        raise BoosTexterFormatError(
            path, line, f"expected a number, got {_shown(value)}", name, index
        )
    number = float(value)
    if not math.isfinite(number):
        raise BoosTexterFormatError(
            path, line, f"expected a finite number, got {_shown(value)}", name, index
        )
    return number


def _parse_labels(path, line, text, class_index):
    """Label columns of a label field ``LABEL [LABEL ...].``."""
    if not text.endswith("."):
        raise BoosTexterFormatError(
            path, line, f"labels: expected labels ending with '.', got {_shown(text)}"
        )
    names = text[:-1].split()
    if not names:
        raise BoosTexterFormatError(
            path, line, f"labels: expected at least one label before '.', got {_shown(text)}"
        )
    for name in names:
        if name not in class_index:
            raise BoosTexterFormatError(
                path, line,
                f"labels: expected a declared class ({_shown(' '.join(class_index))}), "
                f"got {_shown(name)}",
            )
    return [class_index[name] for name in names]


def read_stem(stem, unknown_values="error"):
    """Read ``STEM.names``, ``STEM.data`` and, where they exist, ``STEM.dev`` and ``STEM.test``.

    Parameters
    ----------
    stem : str or path-like
        The file names without their suffix.
    unknown_values : {"error", "missing"}, default="error"
        As in ``read_data``.

    Returns
    -------
    spec : NamesSpec
    train : BoosTexterData
    dev, test : BoosTexterData or None
        None where the file does not exist.
    """
    stem = str(stem)
    spec = read_names(stem + ".names")
    parts = []
    for suffix in (".data", ".dev", ".test"):
        path = Path(stem + suffix)
        if suffix == ".data" or path.exists():
            parts.append(read_data(path, spec, unknown_values=unknown_values))
        else:
            parts.append(None)
    return spec, *parts


def _check_writable(value, what, forbidden=",\r\n"):
    """Raise ValueError unless ``value`` reads back as itself from a field."""
    if not isinstance(value, str) or value != value.strip() or value in _MISSING:
        raise ValueError(f"{what} must be a non-empty string without surrounding whitespace "
                         f"and not '?', got {value!r}")
    bad = [character for character in forbidden if character in value]
    if bad:
        raise ValueError(f"{what} may not contain {bad[0]!r}, got {value!r}")


def _text_type(expert):
    """``text`` or ``text:OPTIONS`` for a text column's expert."""
    default = TextExpert()
    if not isinstance(expert.tokenizer, str):
        raise ValueError(f"a callable tokenizer cannot be written to a .names file: {expert!r}")
    options = []
    attributes = ("kind", "length", "cutoff", "drop", "no_unk", "tokenizer")
    for key, attribute in zip(_TEXT_OPTIONS, attributes, strict=True):
        value = getattr(expert, attribute)
        if value != getattr(default, attribute):
            options.append(f"{key}={int(value) if attribute == 'no_unk' else value}")
    if expert.drop is not None:
        _check_writable(expert.drop, "a drop expression", forbidden=" \t\r\n\f\v")
    return "text:" + " ".join(options) if options else "text"


def write_names(path, spec):
    """Write a ``.names`` file that ``read_names`` reads back as ``spec``.

    Parameters
    ----------
    path : str or path-like
    spec : NamesSpec

    Raises
    ------
    ValueError
        If a name or value cannot be written so that it reads back the same.
    """
    if not spec.classes or len(set(spec.classes)) != len(spec.classes):
        raise ValueError(f"classes must be non-empty and distinct, got {spec.classes!r}")
    for name in spec.classes:
        if not isinstance(name, str) or name.split() != [name] or "," in name or "|" in name:
            raise ValueError(
                f"a class name must be non-empty, without whitespace, ',' or '|', got {name!r}"
            )
    names = [column.name for column in spec.columns]
    if not names or len(set(names)) != len(names):
        raise ValueError(f"column names must be non-empty and distinct, got {names!r}")
    lines = [", ".join(spec.classes) + "."]
    for column in spec.columns:
        _check_writable(column.name, "a column name", forbidden=":|\r\n")
        if column.kind == "categorical":
            for value in column.values:
                _check_writable(value, f"a value of column {column.name!r}")
            if column.values[0].partition(":")[0].strip() == "text" and ":" in column.values[0]:
                raise ValueError(f"the first value of {column.name!r} reads as a text type")
            kind = ", ".join(column.values)
        elif column.kind == "text":
            kind = _text_type(column.expert)
        else:
            kind = column.kind
        lines.append(f"{column.name}: {kind}.")
    write_atomic(path, "\n".join(lines) + "\n")


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
                _check_writable(value, what)
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

