"""The ``.names`` file: its columns and classes, read and written.

Owns ``ColumnSpec`` and ``NamesSpec`` (classes, then one column per field of an example
line: continuous, text with its ``TextExpert``, categorical with its values, or ignored),
``read_names`` and ``write_names``. The format is described in
``confboost.formats.boostexter``; a bad file raises ``BoosTexterFormatError``.
"""

import re
from dataclasses import dataclass, field

from confboost.data.text_experts import TextExpert
from confboost.formats.file_lines import (
    MISSING,
    BoosTexterFormatError,
    check_writable,
    content_lines,
    shown,
)
from confboost.utils.files import write_atomic

#: Column kinds of a ``.names`` file.
COLUMN_KINDS = ("continuous", "text", "categorical", "ignore")

_INTEGER = re.compile(r"\d+", re.ASCII)
_TEXT_OPTIONS = ("expert_type", "expert_length", "cutoff", "drop", "no_unk", "tokenizer")


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


def _parse_classes(path, line, text):
    if not text.endswith("."):
        raise BoosTexterFormatError(
            path, line, f"the class list must end with '.', got {shown(text)}"
        )
    classes = [name.strip() for name in text[:-1].split(",")]
    if classes == [""]:
        raise BoosTexterFormatError(path, line, "empty class list: expected at least one class")
    seen = set()
    for name in classes:
        if not name:
            raise BoosTexterFormatError(path, line, f"empty class name in {shown(text)}")
        if name.split() != [name]:
            raise BoosTexterFormatError(
                path, line, f"class names may not contain whitespace, got {shown(name)}"
            )
        if name in seen:
            raise BoosTexterFormatError(path, line, f"duplicate class {shown(name)}")
        seen.add(name)
    return classes


def _parse_text_options(path, line, options, name, index, defaults):
    """The TextExpert of ``text:OPTIONS``, ``defaults`` (TextExpert fields) under them."""
    settings = {}
    for option in options.split():
        key, equals, value = option.partition("=")
        if not equals or not value:
            raise BoosTexterFormatError(
                path, line, f"expected a text option 'key=value', got {shown(option)}", name, index
            )
        if key not in _TEXT_OPTIONS:
            raise BoosTexterFormatError(
                path, line, f"expected a text option among {_TEXT_OPTIONS}, got {shown(key)}",
                name, index,
            )
        if key in settings:
            raise BoosTexterFormatError(
                path, line, f"text option {key!r} given twice", name, index
            )
        if key in ("expert_length", "cutoff"):
            if not _INTEGER.fullmatch(value):
                raise BoosTexterFormatError(
                    path, line, f"{key}: expected a non-negative integer, got {shown(value)}",
                    name, index,
                )
            value = int(value)
        if key == "no_unk":
            if value not in ("0", "1"):
                raise BoosTexterFormatError(
                    path, line, f"no_unk: expected 0 or 1, got {shown(value)}", name, index
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
            path, line, f"expected a column definition 'name: type.', got {shown(text)}"
        )
    if not text.endswith("."):
        raise BoosTexterFormatError(
            path, line, f"the column definition must end with '.', got {shown(text)}", name, index
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
            f"values), got {shown(rest)}",
            name, index,
        )
    seen = set()
    for value in values:
        if value in MISSING:
            raise BoosTexterFormatError(
                path, line, f"expected a value (not empty, not '?'), got {shown(value)}",
                name, index,
            )
        if value in seen:
            raise BoosTexterFormatError(path, line, f"duplicate value {shown(value)}", name, index)
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
    for line, text in content_lines(path):
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
        check_writable(expert.drop, "a drop expression", forbidden=" \t\r\n\f\v")
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
        check_writable(column.name, "a column name", forbidden=":|\r\n")
        if column.kind == "categorical":
            for value in column.values:
                check_writable(value, f"a value of column {column.name!r}")
            if column.values[0].partition(":")[0].strip() == "text" and ":" in column.values[0]:
                raise ValueError(f"the first value of {column.name!r} reads as a text type")
            kind = ", ".join(column.values)
        elif column.kind == "text":
            kind = _text_type(column.expert)
        else:
            kind = column.kind
        lines.append(f"{column.name}: {kind}.")
    write_atomic(path, "\n".join(lines) + "\n")
