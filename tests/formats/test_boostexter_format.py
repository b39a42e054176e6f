"""The BoosTexter / icsiboost .names and .data format: reading, writing, every error."""

import math
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from confboost.data.postings import TextExpert
from confboost.formats.boostexter import (
    BoosTexterData,
    BoosTexterFormatError,
    ColumnSpec,
    NamesSpec,
    read_data,
    read_names,
    read_stem,
    write_data,
    write_names,
)

NAMES = (
    "| a comment, then a blank line\r\n"
    "\r\n"
    "earn, acq , money-fx.  \r\n"
    "age: continuous.\r\n"
    "   | an indented comment\r\n"
    "title: text.\r\n"
    "body: text:expert_type=sgram expert_length=3 cutoff=2 drop=^the.. \r\n"
    "colour: red, green , blue.\r\n"
    "id: ignore.\r\n"
)
DATA = (
    "\ufeff35, Oil prices rise, the price of oil rose, red, 17, earn.\r\n"
    "| a comment line\r\n"
    "?, , ?, ?, whatever, acq money-fx .\r\n"
    "\r\n"
    "  -1.5e2 ,Bank rate,cut again,blue,?,money-fx earn acq.  \r\n"
)


def _write(path, text):
    path.write_bytes(text.encode("utf-8"))
    return path


def _assert_data_equal(actual, expected):
    assert list(actual.columns) == list(expected.columns)
    for name, values in expected.columns.items():
        if isinstance(values, np.ndarray):
            np.testing.assert_array_equal(actual.columns[name], values)
            assert actual.columns[name].dtype == np.float64
        else:
            assert actual.columns[name] == values
    if expected.labels is None:
        assert actual.labels is None
    else:
        np.testing.assert_array_equal(actual.labels, expected.labels)
        assert actual.labels.dtype == np.int8


def test_read_stem_hand_written(tmp_path):
    _write(tmp_path / "news.names", NAMES)
    _write(tmp_path / "news.data", DATA)
    _write(tmp_path / "news.test", "1, a, b, green, 3, acq.\n")
    spec, train, dev, test = read_stem(tmp_path / "news")
    assert spec == NamesSpec(
        classes=["earn", "acq", "money-fx"],
        columns=[
            ColumnSpec("age", "continuous"),
            ColumnSpec("title", "text", expert=TextExpert()),
            ColumnSpec("body", "text", expert=TextExpert("sgram", 3, cutoff=2, drop="^the.")),
            ColumnSpec("colour", "categorical", values=("red", "green", "blue")),
            ColumnSpec("id", "ignore"),
        ],
    )
    expected = BoosTexterData(
        columns={
            "age": np.array([35.0, np.nan, -150.0]),
            "title": ["Oil prices rise", None, "Bank rate"],
            "body": ["the price of oil rose", None, "cut again"],
            "colour": ["red", None, "blue"],
        },
        labels=np.array([[1, 0, 0], [0, 1, 1], [1, 1, 1]]),
        line_numbers=np.array([1, 3, 5]),
    )
    _assert_data_equal(train, expected)
    np.testing.assert_array_equal(train.line_numbers, [1, 3, 5])
    assert dev is None
    np.testing.assert_array_equal(test.labels, [[0, 1, 0]])


def test_round_trip_hand_written(tmp_path):
    _write(tmp_path / "a.names", NAMES)
    _write(tmp_path / "a.data", DATA)
    spec = read_names(tmp_path / "a.names")
    data = read_data(tmp_path / "a.data", spec)
    write_names(tmp_path / "b.names", spec)
    write_data(tmp_path / "b.data", spec, data)
    assert read_names(tmp_path / "b.names") == spec
    _assert_data_equal(read_data(tmp_path / "b.data", spec), data)
    assert (tmp_path / "b.names").read_text() == (
        "earn, acq, money-fx.\nage: continuous.\ntitle: text.\n"
        "body: text:expert_type=sgram expert_length=3 cutoff=2 drop=^the..\n"
        "colour: red, green, blue.\nid: ignore.\n"
    )


def test_unlabelled_files_and_unknown_values(tmp_path):
    spec = NamesSpec(["a", "b"], [ColumnSpec("x", "continuous"), ColumnSpec("c", "categorical",
                                                                            values=("u", "v"))])
    path = _write(tmp_path / "x.test", "1, u\n2, w\n")
    data = read_data(path, spec, labels_required=False, unknown_values="missing")
    assert data.labels is None
    assert data.columns["c"] == ["u", None]
    labelled = read_data(_write(tmp_path / "y.test", "1, u, a.\n"), spec, labels_required=False)
    np.testing.assert_array_equal(labelled.labels, [[1, 0]])
    # as icsiboost's -C reads them: each line with or without labels, zeros for the latter
    mixed = read_data(_write(tmp_path / "m.test", "1, u\n2, v, b a.\n3, u\n"), spec,
                      labels_required=False)
    np.testing.assert_array_equal(mixed.labels, [[0, 0], [1, 1], [0, 0]])
    empty = read_data(_write(tmp_path / "z.data", "| nothing\n\n"), spec)
    assert empty.labels.shape == (0, 2) and empty.columns["x"].shape == (0,)
    with pytest.raises(ValueError, match="unknown_values"):
        read_data(path, spec, unknown_values="ignore")


SPEC_TEXT = "a, b, c.\nx: continuous.\nt: text.\nk: u, v.\n"


def _names_error(tmp_path, text):
    path = _write(tmp_path / "bad.names", text)
    with pytest.raises(BoosTexterFormatError) as info:
        read_names(path)
    return str(info.value).removeprefix(str(path)), info.value


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("a, b\nx: continuous.\n", ":1: ", "the class list must end with '.', got 'a, b'"),
        ("|c\n .\nx: text.\n", ":2: ", "empty class list"),
        ("a, , b.\nx: text.\n", ":1: ", "empty class name"),
        ("a, b, a.\nx: text.\n", ":1: ", "duplicate class 'a'"),
        ("a, b c.\nx: text.\n", ":1: ", "class names may not contain whitespace, got 'b c'"),
        ("", "", "empty class list: the file declares no classes"),
        ("| only\n\n", "", "empty class list"),
        ("a.\n", "", "declares no columns"),
        ("a.\nx continuous.\n", ":2: ", "expected a column definition 'name: type.'"),
        ("a.\nx: continuous\n", ":2: column 'x' (1): ", "must end with '.'"),
        ("a.\nx: text.\n\ny: number.\n", ":4: column 'y' (2): ",
         "expected a column type (continuous, text, ignore, or at least two comma-separated "
         "values), got 'number'"),
        ("a.\nx: .\n", ":2: column 'x' (1): ", "expected a column type"),
        ("a.\nx: text.\ny: text.\nx: continuous.\n", ":4: column 'x' (3): ",
         "duplicate column name (first declared on line 2)"),
        ("a.\nk: u, v, u.\n", ":2: column 'k' (1): ", "duplicate value 'u'"),
        ("a.\nk: u, ?.\n", ":2: column 'k' (1): ",
         "expected a value (not empty, not '?'), got '?'"),
        ("a.\nk: u, , v.\n", ":2: column 'k' (1): ", "expected a value"),
        ("a.\nt: text:expert_type=trigram.\n", ":2: column 't' (1): ", "kind must be one of"),
        ("a.\nt: text:expert_length=x.\n", ":2: column 't' (1): ",
         "expert_length: expected a non-negative integer, got 'x'"),
        ("a.\nt: text:expert_length=0.\n", ":2: column 't' (1): ",
         "length must be an integer in [1, 64]"),
        ("a.\nt: text:cutoff=-1.\n", ":2: column 't' (1): ", "cutoff: expected a non-negative"),
        ("a.\nt: text:drop=(.\n", ":2: column 't' (1): ", "not a valid regular expression"),
        ("a.\nt: text:no_unk=2.\n", ":2: column 't' (1): ", "no_unk: expected 0 or 1, got '2'"),
        ("a.\nt: text:unk=1.\n", ":2: column 't' (1): ", "expected a text option among"),
        ("a.\nt: text:cutoff.\n", ":2: column 't' (1): ", "expected a text option 'key=value'"),
        ("a.\nt: text:cutoff=1 cutoff=2.\n", ":2: column 't' (1): ", "given twice"),
        ("a.\nt: text:tokenizer=spaces.\n", ":2: column 't' (1): ", "tokenizer must be one of"),
    ],
)
def test_names_errors(tmp_path, text, where, message):
    shown, error = _names_error(tmp_path, text)
    assert shown.startswith(where)
    assert message in shown
    assert isinstance(error, ValueError)


def test_names_error_attributes(tmp_path):
    _, error = _names_error(tmp_path, "a.\nx: text.\ny: foo.\n")
    assert (error.line, error.column, error.column_index) == (3, "y", 2)
    assert error.path == str(tmp_path / "bad.names")


def _data_error(tmp_path, text, **kwargs):
    spec = read_names(_write(tmp_path / "ok.names", SPEC_TEXT))
    path = _write(tmp_path / "bad.data", text)
    with pytest.raises(BoosTexterFormatError) as info:
        read_data(path, spec, **kwargs)
    return str(info.value).removeprefix(str(path))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1, t, u, a.\n2, t, u\n", ":2: expected 4 comma-separated fields (3 columns, then the "
                                   "labels), got 3 (values may not contain commas)"),
        ("1, t, with, comma, u, a.\n", ":1: expected 4 comma-separated fields"),
        ("|c\n1, t, u, a.\nabc, t, u, a.\n", ":3: column 'x' (1): expected a number, got 'abc'"),
        ("1e999, t, u, a.\n", ":1: column 'x' (1): expected a finite number, got '1e999'"),
        ("nan, t, u, a.\n", ":1: column 'x' (1): expected a number, got 'nan'"),
        ("1_000, t, u, a.\n", ":1: column 'x' (1): expected a number, got '1_000'"),
        ("\u0663, t, u, a.\n", ":1: column 'x' (1): expected a number, got '\u0663'"),
        ("1, t, w, a.\n", ":1: column 'k' (3): expected one of the declared values 'u, v', "
                          "got 'w'"),
        ("1, t, u, a d.\n", ":1: labels: expected a declared class ('a b c'), got 'd'"),
        ("1, t, u, a b\n", ":1: labels: expected labels ending with '.', got 'a b'"),
        ("1, t, u, .\n", ":1: labels: expected at least one label before '.', got '.'"),
        ("1, t, u, \n", ":1: labels: expected labels ending with '.', got ''"),
        (b"1, t, u, a.\n2, \xff, u, a.\n".decode("latin-1"), None),
    ],
)
def test_data_errors(tmp_path, text, expected):
    if expected is None:  # invalid UTF-8: write the raw bytes
        spec = read_names(_write(tmp_path / "ok.names", SPEC_TEXT))
        path = tmp_path / "bad.data"
        path.write_bytes(text.encode("latin-1"))
        with pytest.raises(BoosTexterFormatError, match=re.escape(f"{path}:2: not valid UTF-8")):
            read_data(path, spec)
        return
    assert _data_error(tmp_path, text).startswith(expected)


def test_data_errors_with_optional_labels(tmp_path):
    shown = _data_error(tmp_path, "1, t\n", labels_required=False)
    assert shown.startswith(":1: expected 3 or 4 comma-separated fields")


def test_missing_file_is_not_a_format_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_stem(tmp_path / "absent")


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("t", "a, b", "may not contain ','"),
        ("t", "a\nb", "may not contain '\\n'"),
        ("t", " padded", "without surrounding whitespace"),
        ("t", "", "non-empty"),
        ("t", "?", "not '?'"),
        ("k", "w", "must be declared"),
        ("x", math.inf, "must be finite"),
    ],
)
def test_write_data_refuses_what_would_not_read_back(tmp_path, column, value, message):
    spec = read_names(_write(tmp_path / "ok.names", SPEC_TEXT))
    columns = {"x": np.array([1.0]), "t": ["text"], "k": ["u"]}
    columns[column] = np.array([value]) if column == "x" else [value]
    data = BoosTexterData(columns, np.array([[1, 0, 0]]), np.array([1]))
    with pytest.raises(ValueError, match=re.escape(message)):
        write_data(tmp_path / "out.data", spec, data)


def test_write_refuses_unlabelled_examples_and_bad_names(tmp_path):
    spec = read_names(_write(tmp_path / "ok.names", SPEC_TEXT))
    data = BoosTexterData({"x": np.array([1.0]), "t": [None], "k": [None]},
                          np.array([[0, 0, 0]]), np.array([1]))
    with pytest.raises(ValueError, match="at least one label"):
        write_data(tmp_path / "out.data", spec, data)
    text_first = NamesSpec(["a"], [ColumnSpec("t", "text")])
    data = BoosTexterData({"t": ["|not a comment"]}, np.array([[1]]), np.array([1]))
    with pytest.raises(ValueError, match="may not start with '|'"):
        write_data(tmp_path / "out.data", text_first, data)
    for bad in (NamesSpec(["a b"], spec.columns), NamesSpec(["a"], [ColumnSpec("x:y", "text")]),
                NamesSpec(["a"], [ColumnSpec("t", "text", expert=TextExpert(tokenizer=str.split))]),
                NamesSpec(["a"], [ColumnSpec("t", "text", expert=TextExpert(drop="a b"))])):
        with pytest.raises(ValueError):
            write_names(tmp_path / "out.names", bad)


def test_column_spec_validation():
    with pytest.raises(ValueError, match="column kind"):
        ColumnSpec("x", "number")
    with pytest.raises(ValueError, match="at least two distinct values"):
        ColumnSpec("x", "categorical", values=("a",))
    with pytest.raises(ValueError, match="only categorical"):
        ColumnSpec("x", "text", values=("a", "b"))
    with pytest.raises(ValueError, match="only text"):
        ColumnSpec("x", "continuous", expert=TextExpert())
    assert ColumnSpec("x", "text").expert == TextExpert()


# --- hypothesis: round trips of random specs and data, and fuzzing of the readers ---------

plain = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters=",:|\r\n"), min_size=1
).map(str.strip).filter(lambda s: s and s != "?")
class_name = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=",|"),
                     min_size=1, max_size=5).filter(lambda name: name.split() == [name])
experts = st.builds(
    TextExpert,
    kind=st.sampled_from(["ngram", "fgram", "sgram"]),
    length=st.integers(1, 4),
    cutoff=st.integers(0, 3),
    drop=st.sampled_from([None, "^a", "x.", r"\d+"]),
    tokenizer=st.sampled_from(["word", "whitespace"]),
    no_unk=st.booleans(),
)


@st.composite
def spec_and_data(draw):
    classes = draw(st.lists(class_name, min_size=1, max_size=4, unique=True))
    names = draw(st.lists(plain, min_size=1, max_size=5, unique=True))
    columns = []
    for name in names:
        kind = draw(st.sampled_from(["continuous", "text", "categorical", "ignore"]))
        if kind == "categorical":
            values = draw(st.lists(plain, min_size=2, max_size=4, unique=True)
                          .filter(lambda v: not v[0].startswith("text")))
            columns.append(ColumnSpec(name, kind, values=tuple(values)))
        elif kind == "text":
            columns.append(ColumnSpec(name, kind, expert=draw(experts)))
        else:
            columns.append(ColumnSpec(name, kind))
    spec = NamesSpec(classes, columns)
    n = draw(st.integers(0, 5))
    data_columns = {}
    for index, column in enumerate(columns):
        first = index == 0
        if column.kind == "continuous":
            numbers = st.one_of(st.just(math.nan), st.floats(allow_nan=False, allow_infinity=False))
            data_columns[column.name] = np.array(draw(st.lists(numbers, min_size=n, max_size=n)),
                                                 dtype=np.float64)
        elif column.kind == "categorical":
            choice = st.one_of(st.none(), st.sampled_from(column.values))
            if first:
                choice = choice.filter(lambda v: v is None or not v.startswith("|"))
            data_columns[column.name] = draw(st.lists(choice, min_size=n, max_size=n))
        elif column.kind == "text":
            text = st.one_of(st.none(), plain)
            data_columns[column.name] = draw(st.lists(text, min_size=n, max_size=n))
    labels = np.array(draw(st.lists(
        st.lists(st.integers(0, 1), min_size=len(classes), max_size=len(classes))
        .filter(any), min_size=n, max_size=n)), dtype=np.int8).reshape(n, len(classes))
    return spec, BoosTexterData(data_columns, labels, np.arange(1, n + 1))


@settings(max_examples=60, deadline=None)
@given(spec_and_data())
def test_round_trip_random(spec_data):
    spec, data = spec_data
    with tempfile.TemporaryDirectory() as directory:
        stem = Path(directory) / "stem"
        write_names(f"{stem}.names", spec)
        write_data(f"{stem}.data", spec, data)
        read_spec, train, dev, test = read_stem(stem)
    assert read_spec == spec
    assert dev is None and test is None
    _assert_data_equal(train, data)


format_pieces = list("ab ,.:|?=\t-1e\r\u00e9") + ["text", "continuous", "ignore", "expert_type=",
                                                 "expert_length=", "cutoff=", "drop=", "sgram"]
format_like = st.lists(st.sampled_from(format_pieces), max_size=12).map("".join)
lines = st.lists(st.one_of(format_like, st.text()), max_size=6)
separators = st.sampled_from(["\n", "\r\n"])


@pytest.fixture(scope="module")
def fuzz_directory():
    with tempfile.TemporaryDirectory() as directory:
        yield Path(directory)


@settings(max_examples=200, deadline=2000,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=lines, separator=separators, raw=st.binary(max_size=20))
def test_read_names_fuzz(fuzz_directory, lines, separator, raw):
    path = fuzz_directory / "fuzz.names"
    for content in (separator.join(lines).encode("utf-8"), raw):
        path.write_bytes(content)
        try:
            spec = read_names(path)
        except BoosTexterFormatError:
            continue
        assert spec.classes and spec.columns


@settings(max_examples=200, deadline=2000,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=lines, separator=separators, labels_required=st.booleans())
def test_read_data_fuzz(fuzz_directory, lines, separator, labels_required):
    spec = NamesSpec(["a", "b"], [ColumnSpec("x", "continuous"), ColumnSpec("t", "text"),
                                  ColumnSpec("k", "categorical", values=("a", "e"))])
    path = fuzz_directory / "fuzz.data"
    path.write_bytes(separator.join(lines).encode("utf-8"))
    try:
        data = read_data(path, spec, labels_required=labels_required)
    except BoosTexterFormatError:
        return
    n = len(data.line_numbers)
    assert data.columns["x"].shape == (n,) and len(data.columns["t"]) == n
    assert data.labels is None or data.labels.shape == (n, 2)


number_pieces = st.lists(st.sampled_from(
    ["1", "23", ".", "e", "E", "+", "-", " ", "\t", "?", "inf", "nan", "_", "1e999", "\u0661",
     "\u00a0", "\x1c", "x"]), max_size=5).map("".join)
number_lines = st.lists(
    st.tuples(number_pieces, number_pieces, st.sampled_from(["a", "e", "?", "z", " a "]),
              st.sampled_from(["a.", "b a.", "a", "c.", " b .", ""]))
    .map(lambda t: ",".join(t[:3]) + ("," + t[3] if t[3] else "")), min_size=1, max_size=6)


@settings(max_examples=300, deadline=2000)
@given(lines=number_lines, labels_required=st.booleans(),
       unknown=st.sampled_from(["error", "missing"]), single=st.booleans())
def test_column_reading_equals_line_reading(lines, labels_required, unknown, single):
    # read_data's column-by-column path gives what the reference line-by-line reading gives,
    # or steps aside (None) so that the reference names the first bad field
    from confboost.formats.data_file import _read_columns, _read_rows

    spec = NamesSpec(["a", "b"], [ColumnSpec("x", "continuous"), ColumnSpec("y", "continuous"),
                                  ColumnSpec("k", "categorical", values=("a", "e"))])
    numbered = list(enumerate(lines, start=1))
    try:
        expected = _read_rows("f", numbered, spec, labels_required, unknown, single)
    except BoosTexterFormatError as error:
        expected = error
    got = _read_columns("f", numbered, spec, labels_required, unknown, single)
    if isinstance(expected, BoosTexterFormatError):
        assert got is None
        return
    if got is not None:
        _assert_data_equal(got, expected)
        np.testing.assert_array_equal(got.line_numbers, expected.line_numbers)


def test_column_reading_reads_a_plain_file(tmp_path):
    # the path a well-formed numeric file takes (satimage's shape) is the column one
    from confboost.formats.data_file import _read_columns

    spec = NamesSpec(["a", "b"], [ColumnSpec("x", "continuous"), ColumnSpec("y", "continuous"),
                                  ColumnSpec("t", "text")])
    lines = list(enumerate([" 1.5 , ?, w v , a.", "-2e3,,?,b a.", "+.5, 7., x, b ."], start=1))
    data = _read_columns("f", lines, spec, True, "error")
    np.testing.assert_array_equal(data.columns["x"], [1.5, -2000.0, 0.5])
    np.testing.assert_array_equal(data.columns["y"], [np.nan, np.nan, 7.0])
    assert data.columns["t"] == ["w v", None, "x"]
    np.testing.assert_array_equal(data.labels, [[1, 0], [1, 1], [0, 1]])


def test_single_reading_is_strtof():
    # icsiboost reads a number with strtof: the float32 nearest its text, rounded once (a
    # float64 rounded again to float32 differs where it lies halfway between two float32)
    import ctypes
    import ctypes.util
    from decimal import Decimal, localcontext

    from confboost.formats.data_file import as_single

    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.strtof.restype, libc.strtof.argtypes = ctypes.c_float, [ctypes.c_char_p, ctypes.c_void_p]
    rng = np.random.default_rng(0)
    texts = [repr(float(x)) for x in rng.normal(size=500) * 1000] + ["19.85", " 0.1 ", "-7"]
    with localcontext() as context:
        context.prec = 60
        for halfway in (1 + 2**-24, 3 + 3 * 2**-23, -(1 + 2**-24)):
            exact = Decimal(halfway)
            texts += [str(exact), str(exact + Decimal("1e-30")), str(exact - Decimal("1e-30"))]
    values = np.array([float(text) for text in texts])
    expected = [libc.strtof(text.strip().encode(), None) for text in texts]
    np.testing.assert_array_equal(as_single(values, texts), expected)
    assert (values.astype(np.float32) != np.float32(expected)).any()  # the cases that matter
