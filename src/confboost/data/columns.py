"""The columns of a table: their kinds, and the encoder that turns the table into data.

Owns how a table (a pandas DataFrame, or any mapping of column name to values, such as the
columns of a BoosTexter data file) becomes

- at ``fit``: a ``Dataset`` (``data/dataset.py``), what the weak learners read: the
  continuous columns binned as an array's are, each categorical column as value codes, each
  text column as term postings (CSC, ``data/postings.py``), all at their table positions;
- at prediction: a ``Frame`` (``data/frame.py``), what hypotheses' ``blocks`` read: the
  continuous columns as a float matrix, categorical values as strings, each text column's
  term sets.

Column kinds (``feature_types``):

``"continuous"``
    Numbers; missing (None, NaN, pd.NA) is its own block in every stump (a tree's node
    sends it to one side, learned at the node).
``"categorical"``
    A value set: the weak hypothesis tests ``x == v`` against every value v seen in training,
    three blocks: ``= v``, ``≠ v``, missing. Values are compared as text (``value_text``): a
    string as itself, a number as Python spells it, an integral one as an integer, so
    ``202``, ``202.0``, ``np.float32(202)`` and ``"202"`` are one value, whatever dtype the
    column has at fit and at prediction (a NaN turns an integer column into float64; a CSV
    read back turns string codes into numbers). The encoder remembers whether a column was
    fitted with numbers or strings: at prediction, a numbers column reads a string as the
    number it spells, and a ``ColumnValueWarning`` says when values may not match as fitted
    (a string that is no number in a numbers column; numbers in a strings column whose
    strings spell numbers their own way, as ``"007"``). A value unseen in training is
    simply ``≠ v``. A tree's node splits ``= v`` from the rest (``≠ v`` and missing
    together).
``"text"``
    Free text, turned into terms by the column's ``TextExpert``; the hypothesis tests the
    presence of one term, two blocks: present, absent (a missing text has no terms: absent).
    A tree's node splits the same two ways.
``"ignore"``
    Not read.

Inference, when a column's kind is not given (``infer_feature_types``), exactly:

1. a boolean or numeric dtype is ``continuous``;
2. a pandas ``category`` dtype is ``categorical``;
3. any other column (object, string) is read as strings, missing values apart; with ``n``
   non-missing values of which ``d`` are distinct, it is ``categorical`` if
   ``d <= max(2, min(50, n // 2))`` (few distinct values for its size), otherwise ``text`` if
   some value contains whitespace, otherwise ``categorical`` (many one-word values: codes,
   identifiers).

Pass ``feature_types`` for any column where this guess is wrong. Column names must be strings
for a model to be saved.

Dates and times (a ``datetime64``/``timedelta64`` column, or Python ``date``, ``time``,
``datetime``, ``timedelta`` or pandas ``Timestamp`` values) are refused with a message saying
how to turn them into numbers: which number matters (seconds since 1970, the day of the
week, the hour) is for the user to say. A ``ColumnKindWarning`` flags two guesses that are
often wrong: a categorical guess whose values are almost all distinct (an identifier: it can
only memorise rows) and a text guess with few distinct values (names with spaces, such as
cities, rather than sentences). The fitted estimator shows every column's kind in
``feature_kinds_``.
"""

import datetime
import math
import warnings
from dataclasses import fields

import numpy as np

from confboost.data.category_values import (
    fitted_values,
    is_missing,
    predicted_texts,
    value_text,
)
from confboost.data.dataset import CategoricalColumn, Dataset, TextColumn
from confboost.data.frame import Frame
from confboost.data.postings import TermVocabulary
from confboost.data.term_presence import DocumentTokens
from confboost.data.text_experts import TextExpert
from confboost.data.text_values import TextValues
from confboost.utils.dtypes import X_DTYPE
from confboost.utils.untrusted import fail, prefixed, read_list, read_str, require

FEATURE_KINDS = ("continuous", "categorical", "text", "ignore")

#: Most distinct values of an inferred categorical column (see the module docstring).
MAX_INFERRED_CATEGORIES = 50
#: An inferred categorical column with more than this share of distinct values (and at least
#: ``MIN_ROWS_TO_WARN`` values) looks like an identifier.
IDENTIFIER_SHARE = 0.9
#: An inferred text column with at most this share of distinct values looks like names.
FEW_TEXTS_SHARE = 0.1
MIN_ROWS_TO_WARN = 20


class ColumnKindWarning(UserWarning):
    """A column's inferred kind is probably not what the user meant (see the module doc)."""


def is_table(X):
    """Whether ``X`` is a table with named columns (a DataFrame or a mapping).

    A scipy DOK sparse matrix is a dict of (row, column) keys, not a table.
    """
    return hasattr(X, "columns") or (isinstance(X, dict) and not hasattr(X, "tocsr"))


def column_names(X):
    """The column labels of a DataFrame or the keys of a mapping, in order; ValueError when
    a label repeats (columns are read by name)."""
    names = list(X.columns) if hasattr(X, "columns") else list(X.keys())
    if len(set(names)) != len(names):
        seen, repeated = set(), []
        for name in names:
            if name in seen and name not in repeated:
                repeated.append(name)
            seen.add(name)
        raise ValueError(f"X has more than one column named {repeated[0]!r} (repeated: "
                         f"{repeated!r}); confboost reads columns by name: rename them")
    return names


def _values(X, name):
    column = X[name]
    return column.tolist() if hasattr(column, "tolist") else list(column)


def _continuous(X, name):
    """``continuous_values`` of a column; a 1-d numeric array goes in whole (converted at
    once, not value by value: a BoosTexter file's columns)."""
    column = X[name]
    numeric = (isinstance(column, np.ndarray) and column.ndim == 1
               and column.dtype.kind in "biuf")
    return continuous_values(column if numeric else _values(X, name), name)


def _is_numeric_column(X, name):
    if not hasattr(X, "columns"):
        column = X[name]
        if isinstance(column, TextValues) or (isinstance(column, list) and any(
                isinstance(value, str) for value in column)):
            return False  # strings: no array of them is numeric (nor is one made)
        values = np.asarray(column)
        return values.dtype.kind in "biuf"
    dtype = X[name].dtype
    return getattr(dtype, "kind", "O") in "biuf"


def _is_category_dtype(X, name):
    return hasattr(X, "columns") and str(X[name].dtype) == "category"


def _is_datetime_column(X, name):
    """Whether a column holds dates, times or durations (dtype or first present value)."""
    column = X[name]
    if isinstance(column, TextValues):
        return False
    # a list's first present value decides (no array of a text column's strings is made)
    dtype = getattr(column, "dtype", np.dtype(object))
    if getattr(dtype, "kind", "O") in "mM":
        return True
    if getattr(dtype, "kind", "O") != "O":
        return False
    first = next((value for value in column if not is_missing(value)), None)
    return isinstance(first, datetime.date | datetime.time | datetime.timedelta | np.datetime64
                      | np.timedelta64)


def _refuse_datetime(name):
    raise ValueError(
        f"column {name!r} holds dates or times, which confboost does not turn into numbers "
        "by itself (which number matters is yours to say): convert it first, e.g. "
        f"X[{name!r}] = X[{name!r}].astype('int64') // 10**9 (seconds since 1970; a "
        f"timedelta: .dt.total_seconds()), or X[{name!r}].dt.dayofweek, .dt.hour, .dt.month "
        f"as new columns; or pass feature_types={{{name!r}: 'ignore'}}")


def infer_kind(X, name):
    """The inferred kind of one column (rules in the module docstring)."""
    if _is_datetime_column(X, name):
        _refuse_datetime(name)
    if _is_numeric_column(X, name):
        return "continuous"
    if _is_category_dtype(X, name):
        return "categorical"
    present = [str(value) for value in _values(X, name) if not is_missing(value)]
    return string_kind(set(present), len(present))


def string_kind(distinct, n_present):
    """The kind of a column read as strings (rule 3 of the module docstring), from its
    ``distinct`` values (a set of str) and its number of non-missing values."""
    if len(distinct) <= max(2, min(MAX_INFERRED_CATEGORIES, n_present // 2)):
        return "categorical"
    if any(len(value.split()) != 1 or value != value.strip() for value in distinct):
        return "text"
    return "categorical"


#: The frame of the user's ``fit`` call, where a column-kind warning points: this function ←
#: ``FrameEncoder.from_table`` ← ``encode_table`` ← ``inputs.TableInput.read`` ←
#: ``fit_runs.Fit.read_inputs`` ← ``fit_runs.Fit.fit`` ← ``Booster._fit`` ← ``fit`` ← the user.
_FIT_CALLER = 9


def warn_doubtful_kinds(X, kinds, feature_types=None):
    """A ``ColumnKindWarning`` for each inferred kind that looks wrong (module docstring)."""
    given = feature_types or {}
    for name, kind in kinds.items():
        if name in given or kind not in ("categorical", "text") or _is_category_dtype(X, name):
            continue
        present = [str(value) for value in _values(X, name) if not is_missing(value)]
        warn_doubtful_kind(name, kind, len(present), len(set(present)), _FIT_CALLER + 1)


def warn_doubtful_kind(name, kind, n, distinct, stacklevel):
    """The ``ColumnKindWarning`` of an inferred kind, from the column's number of
    non-missing values ``n`` and of distinct ones (module docstring), if it looks wrong."""
    if n < MIN_ROWS_TO_WARN:
        return
    if kind == "categorical" and distinct > IDENTIFIER_SHARE * n:
        warnings.warn(
            f"column {name!r} looks like an identifier ({distinct} distinct values in {n} "
            "rows): as a categorical column it can only memorise rows; pass "
            f"feature_types={{{name!r}: 'ignore'}} (or 'text' or 'categorical' to keep "
            "it and silence this warning)", ColumnKindWarning, stacklevel=stacklevel)
    elif kind == "text" and distinct <= FEW_TEXTS_SHARE * n:
        warnings.warn(
            f"column {name!r} was read as text (its values have spaces) but has only "
            f"{distinct} distinct values in {n} rows: if they are names rather than "
            f"sentences, pass feature_types={{{name!r}: 'categorical'}} (or 'text' to "
            "silence this warning)", ColumnKindWarning, stacklevel=stacklevel)


def infer_feature_types(X, feature_types=None):
    """The kind of every column: ``feature_types`` where given, inferred elsewhere.

    Parameters
    ----------
    X : DataFrame or mapping of column name to values
    feature_types : dict of column name to kind, optional

    Returns
    -------
    kinds : dict of column name to {"continuous", "categorical", "text", "ignore"}
    """
    feature_types = {} if feature_types is None else dict(feature_types)
    names = column_names(X)
    unknown = [name for name in feature_types if name not in names]
    if unknown:
        raise ValueError(f"feature_types names columns that X does not have: {unknown!r}")
    kinds = {}
    for name in names:
        kind = feature_types.get(name)
        if kind is None:
            kind = infer_kind(X, name)
        elif kind != "ignore" and _is_datetime_column(X, name):
            _refuse_datetime(name)
        elif kind not in FEATURE_KINDS:
            raise ValueError(f"feature_types[{name!r}] must be one of {FEATURE_KINDS}, "
                             f"got {kind!r}")
        kinds[name] = kind
    return kinds


def continuous_values(values, name):
    """A float64 array of a column's values, NaN for missing; ValueError naming a bad value."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "biuf" and values.ndim == 1:
        # what the loop below makes of each value, at once (a BoosTexter file's columns)
        out = values.astype(X_DTYPE)
        infinite = np.flatnonzero(np.isinf(out))
        if infinite.size:
            row = int(infinite[0])
            raise ValueError(f"column {name!r}: row {row} holds {values[row]!r}; continuous "
                             "values must be finite (NaN is missing)")
        return out
    out = np.empty(len(values), dtype=X_DTYPE)
    for row, value in enumerate(values):
        if is_missing(value):
            out[row] = np.nan
            continue
        try:
            out[row] = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"column {name!r} is continuous but row {row} holds "
                             f"{value!r}, not a number") from None
        if not math.isfinite(out[row]):
            raise ValueError(f"column {name!r}: row {row} holds {value!r}; continuous values "
                             "must be finite (NaN is missing)")
    return out


def string_values(values):
    """Strings of a column's values, None for missing (``str``: the encoders fitted before
    ``value_text``, and the dask encoder, compare these)."""
    return [None if is_missing(value) else str(value) for value in values]


def _expert_to_dict(expert, name):
    if callable(expert.tokenizer):
        raise ValueError(f"text column {name!r} uses a callable tokenizer, which a model file "
                         "cannot hold; use a named tokenizer to save the model")
    return {"kind": expert.kind, "length": expert.length, "cutoff": expert.cutoff,
            "drop": expert.drop, "tokenizer": expert.tokenizer, "order": expert.order,
            "no_unk": bool(expert.no_unk)}


def column_experts(names, kinds, text_expert):
    """The ``TextExpert`` of each text column, by table position, from the ``text_expert``
    parameter: one expert for every text column, or one per column name (``TextExpert()``
    where absent); ValueError naming a wrong value or a column that is not text. The rule of
    ``FrameEncoder.from_table``, and of a Dask fit's encoder.

    Parameters
    ----------
    names : list of str
        The table's columns, in order.
    kinds : dict of str to str
        Each column's kind.
    text_expert : TextExpert, dict of column name to TextExpert, or None

    Returns
    -------
    dict of int to TextExpert
    """
    if text_expert is None or isinstance(text_expert, TextExpert):
        default, per_column = text_expert or TextExpert(), {}
    elif isinstance(text_expert, dict):
        default, per_column = TextExpert(), dict(text_expert)
        unknown = [name for name in per_column if kinds.get(name) != "text"]
        if unknown:
            raise ValueError(f"text_expert names columns that are not text: {unknown!r}")
    else:
        raise ValueError("text_expert must be None, a TextExpert, or a dict of column name "
                         f"to TextExpert, got {text_expert!r}")
    experts = {}
    for position, name in enumerate(names):
        if kinds[name] == "text":
            experts[position] = per_column.get(name, default)
            if not isinstance(experts[position], TextExpert):
                raise ValueError(f"text_expert[{name!r}] must be a TextExpert, got "
                                 f"{experts[position]!r}")
    return experts


class FrameEncoder:
    """The columns of a mixed table: their kinds and text experts.

    Parameters
    ----------
    names : list
        Column labels, in table order.
    kinds : list of str
        Kind of each column.
    experts : dict of int to TextExpert
        The expert of each text column, by table position.
    values : dict of int to (str, str or None), optional
        What each categorical column held at fit (``fitted_values``), by table position;
        its values are compared as ``value_text``. A categorical column absent from it
        compares ``str(value)`` (encoders made before ``value_text``, the dask encoder,
        the BoosTexter files' strings).
    """

    def __init__(self, names, kinds, experts, values=None):
        self.names = list(names)
        self.kinds = list(kinds)
        self.experts = dict(experts)
        self.values = dict(values or {})
        self.numeric_columns = [c for c, kind in enumerate(self.kinds) if kind == "continuous"]

    @classmethod
    def from_table(cls, X, feature_types=None, text_expert=None):
        """Kinds inferred or given, experts from ``text_expert``.

        Parameters
        ----------
        X : DataFrame or mapping
        feature_types : dict, optional
        text_expert : TextExpert, dict of column name to TextExpert, or None
            One expert for every text column, or one per column (absent: ``TextExpert()``).
        """
        kinds = infer_feature_types(X, feature_types)
        names = column_names(X)
        warn_doubtful_kinds(X, kinds, feature_types)
        experts = column_experts(names, kinds, text_expert)
        values = {position: fitted_values(_values(X, name))
                  for position, name in enumerate(names) if kinds[name] == "categorical"}
        return cls(names, [kinds[name] for name in names], experts, values)

    def _texts(self, X, position, fitting):
        """The texts of the categorical column at ``position`` (None for missing)."""
        name = self.names[position]
        fitted = getattr(self, "values", {}).get(position)  # pickles from before: none
        if fitted is None:
            return string_values(_values(X, name))
        if fitting:
            return [None if is_missing(value) else value_text(value)
                    for value in _values(X, name)]
        return predicted_texts(_values(X, name), fitted, name)

    def _check_columns(self, X):
        names = column_names(X)
        missing = [name for name, kind in zip(self.names, self.kinds, strict=True)
                   if kind != "ignore" and name not in names]
        if missing:
            raise ValueError(f"X lacks the columns {missing!r} that the model was fitted on")
        lengths = {len(X[name]) for name, kind in zip(self.names, self.kinds, strict=True)
                   if kind != "ignore"}
        if len(lengths) > 1:
            raise ValueError(f"the columns of X have different lengths: {sorted(lengths)}")
        return lengths.pop() if lengths else 0

    def fit_dataset(self, X, max_bins, random_state=None, sample_weight=None):
        """The ``Dataset`` of the training table (vocabularies and bins fitted here)."""
        n_samples = self._check_columns(X)
        matrix = (np.column_stack([_continuous(X, self.names[c]) for c in self.numeric_columns])
                  if self.numeric_columns else np.empty((n_samples, 0), dtype=X_DTYPE))
        numeric = Dataset.from_array(matrix, max_bins, random_state, sample_weight)
        categorical, text = [], []
        for position, (name, kind) in enumerate(zip(self.names, self.kinds, strict=True)):
            if kind == "categorical":
                values = self._texts(X, position, fitting=True)
                distinct = sorted({value for value in values if value is not None})
                code_of = {value: code for code, value in enumerate(distinct)}
                codes = np.array([-1 if value is None else code_of[value] for value in values],
                                 dtype=np.int32)
                categorical.append(CategoricalColumn(position, distinct, codes))
            elif kind == "text":
                documents = X[name]
                if not isinstance(documents, TextValues):
                    documents = string_values(_values(X, name))
                vocabulary = TermVocabulary()
                indptr, indices, _ = vocabulary.fit_postings(documents, self.experts[position])
                text.append(TextColumn(position, vocabulary.terms_, indptr, indices))
                del indptr, indices, vocabulary  # the column keeps each distinct list once
        positions = np.asarray(self.numeric_columns, dtype=np.intp)
        for column in numeric.exact:  # matrix columns to table positions
            column.column = int(positions[column.column])
        return Dataset(numeric.codes, numeric.n_bins, numeric.bin_mapper,
                       positions[numeric.numeric_columns], categorical, text,
                       n_samples, len(self.names), numeric.exact)

    def transform(self, X):
        """The ``Frame`` of a table with (at least) the fitted columns."""
        n_samples = self._check_columns(X)
        numeric = np.full((n_samples, len(self.names)), np.nan, dtype=X_DTYPE)
        for c in self.numeric_columns:
            numeric[:, c] = _continuous(X, self.names[c])
        categorical, text = {}, {}
        for position, (name, kind) in enumerate(zip(self.names, self.kinds, strict=True)):
            if kind == "categorical":
                categorical[position] = self._texts(X, position, fitting=False)
            elif kind == "text":  # tokens only: a term's presence is found when asked
                text[position] = DocumentTokens(string_values(_values(X, name)),
                                                self.experts[position])
        return Frame(numeric, categorical, text, self.numeric_columns)

    def to_dict(self):
        """The columns as JSON-ready data."""
        bad = [name for name in self.names if not isinstance(name, str)]
        if bad:
            raise ValueError(f"column names must be strings to save a model, got {bad!r}")
        return {"columns": [
            {"name": name, "kind": kind,
             **({"expert": _expert_to_dict(self.experts[c], name)} if kind == "text" else {}),
             **(_values_to_dict(self.values[c]) if c in self.values else {})}
            for c, (name, kind) in enumerate(zip(self.names, self.kinds, strict=True))]}

    @classmethod
    def from_dict(cls, data):
        """Inverse of ``to_dict``, for data from a file; ValueError naming the bad field."""
        names, kinds, experts, values = [], [], {}, {}
        columns = read_list(require(data, "columns", "frame"), "columns")
        for position, column in enumerate(columns):
            field = f"columns[{position}]"
            names.append(read_str(require(column, "name", field), f"{field}.name"))
            kind = require(column, "kind", field)
            if kind not in FEATURE_KINDS:
                fail(f"{field}.kind", f"must be one of {FEATURE_KINDS}", kind)
            kinds.append(kind)
            if kind == "text":
                experts[position] = expert_from_dict(require(column, "expert", field),
                                                     f"{field}.expert")
            if "values" in column:
                if kind != "categorical":
                    fail(f"{field}.values", "only a categorical column has values", kind)
                values[position] = _values_from_dict(column, field)
        if len(set(names)) != len(names):
            fail("columns", "must have distinct names", names)
        return cls(names, kinds, experts, values)


def _values_to_dict(fitted):
    kind, odd = fitted
    return {"values": kind, **({"unspelled": odd} if odd is not None else {})}


def _values_from_dict(column, field):
    """``fitted_values``' pair from a saved column (untrusted)."""
    kind = column["values"]
    if kind not in ("numbers", "strings"):
        fail(f"{field}.values", "must be 'numbers' or 'strings'", kind)
    odd = column.get("unspelled")
    if odd is not None:
        read_str(odd, f"{field}.unspelled")
        if kind != "strings":
            fail(f"{field}.unspelled", "only a strings column has one", odd)
    return kind, odd


def expert_from_dict(data, field):
    """A ``TextExpert`` from ``_expert_to_dict``'s output (untrusted); ValueError naming
    ``field``."""
    known = {spec.name for spec in fields(TextExpert)}
    if not isinstance(data, dict) or set(data) - known:
        fail(field, f"must be an object with fields {sorted(known)}", data)
    if not isinstance(data.get("tokenizer", "word"), str):
        fail(f"{field}.tokenizer", "must be a tokenizer name", data.get("tokenizer"))
    try:
        return TextExpert(**data)
    except ValueError as error:
        raise prefixed(f"{field}: ", error) from None


def text_expert_to_json(value):
    """The ``text_expert`` parameter as JSON-ready data (None, one expert, or a dict)."""
    if value is None:
        return None
    if isinstance(value, TextExpert):
        return {"expert": _expert_to_dict(value, "(all)")}
    if isinstance(value, dict):
        return {"per_column": {str(name): _expert_to_dict(expert, name)
                               for name, expert in value.items()}}
    raise ValueError(f"text_expert cannot be saved: {value!r}")


def text_expert_from_json(data, field="params.text_expert"):
    """Inverse of ``text_expert_to_json``, for data from a file; ValueError naming ``field``."""
    if data is None:
        return None
    if isinstance(data, dict) and set(data) == {"expert"}:
        return expert_from_dict(data["expert"], f"{field}.expert")
    if (isinstance(data, dict) and set(data) == {"per_column"}
            and isinstance(data["per_column"], dict)):
        return {name: expert_from_dict(expert, f"{field}.per_column[{name!r}]")
                for name, expert in data["per_column"].items()}
    fail(field, "must be null, {'expert': ...} or {'per_column': {...}}", data)


def is_mixed(X, feature_types=None):
    """Whether X is fitted as a table: a table (``is_table``) with a column that is not
    continuous (an all-continuous DataFrame takes the array path).

    Raises
    ------
    ValueError
        When ``feature_types`` is given and X is not a table.
    """
    if not is_table(X):
        if feature_types is not None:
            raise ValueError("feature_types needs X to be a DataFrame (or a dict of "
                             "columns) whose column names it refers to")
        return False
    if not hasattr(X, "columns"):
        return True
    kinds = infer_feature_types(X, feature_types)
    return any(kind != "continuous" for kind in kinds.values())


def encode_table(X, y, feature_types=None, text_expert=None):
    """The ``FrameEncoder`` of a table with categorical or text columns, fitted to X.

    Returns
    -------
    encoder : FrameEncoder
    y : ndarray
        y as an array (a sparse y densified).
    n_samples : int
        Rows of X (and of y, checked).
    """
    encoder = FrameEncoder.from_table(X, feature_types, text_expert)
    if all(kind == "ignore" for kind in encoder.kinds):
        raise ValueError("every column of X is ignored (feature_types): there is no "
                         "feature to boost on")
    n_samples = encoder._check_columns(X)
    y = np.asarray(y.toarray() if hasattr(y, "toarray") else y)
    if y.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} rows but y has {y.shape[0]}")
    return encoder, y, n_samples
