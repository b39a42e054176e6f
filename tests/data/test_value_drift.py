"""A categorical column's values compare at prediction as they were fitted, whatever dtype
the column arrives in (``data/category_values.py``), or a warning says why they may not."""

import io
import json
import warnings

import numpy as np
import pandas as pd
import pytest

import confboost
from confboost import BoostClassifier
from confboost.data.category_values import (
    ColumnValueWarning,
    fitted_values,
    predicted_texts,
    value_text,
)
from confboost.formats.model_json import save_document

RNG = np.random.default_rng(0)
N = 300
CODE = RNG.integers(200, 210, N)
Y = (CODE % 2 == 0).astype(int)
KINDS = {"code": "categorical"}


def _fit(column):
    return BoostClassifier(20, feature_types=KINDS).fit(pd.DataFrame({"code": column}), Y)


def _quiet_predict(clf, column):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ColumnValueWarning)
        return clf.predict(pd.DataFrame({"code": column}))


@pytest.mark.parametrize("fitted", ["int", "object-int", "str"])
@pytest.mark.parametrize("predicted", ["float64", "float32", "float-with-nan", "str", "int"])
def test_a_column_arriving_in_another_dtype_predicts_as_fitted(fitted, predicted):
    column = {"int": pd.Series(CODE), "object-int": pd.Series(CODE, dtype=object),
              "str": pd.Series([str(c) for c in CODE])}[fitted]
    clf = _fit(column)
    assert (clf.predict(pd.DataFrame({"code": column})) == Y).all()
    later = {"float64": CODE.astype(np.float64), "float32": CODE.astype(np.float32),
             "float-with-nan": np.where(np.arange(N) == 0, np.nan, CODE),
             "str": [str(c) for c in CODE], "int": CODE}[predicted]
    predictions = _quiet_predict(clf, pd.Series(later))
    assert (predictions[1:] == Y[1:]).all()  # was 0.47: every value unseen


def test_string_ids_read_back_from_a_csv_as_numbers_still_match(tmp_path):
    table = pd.DataFrame({"code": [str(c) for c in CODE]})
    clf = _fit(table["code"])
    path = tmp_path / "rows.csv"
    table.iloc[:50].assign(code=table["code"].where(np.arange(N) != 3)).to_csv(path,
                                                                               index=False)
    back = pd.read_csv(path)
    assert back["code"].dtype == np.float64  # the NaN made the codes floats
    predictions = _quiet_predict(clf, back["code"])
    assert (np.delete(predictions, 3) == np.delete(Y[:50], 3)).all()


def test_the_fitted_kind_survives_a_model_file(tmp_path):
    clf = _fit(pd.Series(CODE, dtype=object))
    path = tmp_path / "m.json"
    clf.save(path)
    column = json.loads(path.read_text())["frame"]["columns"][0]
    assert column["values"] == "numbers"
    loaded = confboost.load(path)
    assert (_quiet_predict(loaded, pd.Series(CODE.astype(float))) == Y).all()
    with pytest.warns(ColumnValueWarning, match="fitted with numbers"):
        loaded.predict(pd.DataFrame({"code": ["x"] * N}))


def test_a_model_file_without_the_fitted_kind_compares_str_as_before(tmp_path):
    clf = _fit(pd.Series(CODE.astype(float)))
    path = tmp_path / "m.json"
    clf.save(path)
    document = json.loads(path.read_text())
    del document["frame"]["columns"][0]["values"]
    for hypothesis in document["model"]["hypotheses"]:  # as an older release spelt them
        hypothesis["value"] = str(float(hypothesis["value"]))
    save_document(path, {k: v for k, v in document.items()
                         if k not in ("format", "version", "checksum")})
    loaded = confboost.load(path)
    assert (loaded.predict(pd.DataFrame({"code": CODE.astype(float)})) == Y).all()


def test_numbers_against_strings_that_spell_them_otherwise_warn():
    clf = _fit(pd.Series([f"{c:04d}" for c in CODE]))
    with pytest.warns(ColumnValueWarning, match=r"'0\d+'.*dtype=str") as caught:
        clf.predict(pd.DataFrame({"code": CODE}))
    assert caught[0].filename == __file__


def test_a_string_that_is_no_number_in_a_numbers_column_warns_and_is_unseen():
    clf = _fit(pd.Series(CODE))
    column = pd.Series(CODE, dtype=object)
    column[5] = "abc"
    with pytest.warns(ColumnValueWarning, match="'abc', which is no number") as caught:
        predictions = clf.predict(pd.DataFrame({"code": column}))
    assert caught[0].filename == __file__
    assert (np.delete(predictions, 5) == np.delete(Y, 5)).all()


@pytest.mark.parametrize("value, text", [
    (202, "202"), (202.0, "202"), (np.float32(202), "202"), (np.int8(-3), "-3"),
    (np.float32(0.1), "0.1"), (0.1, "0.1"), (2.0**60, str(2.0**60)), (True, "True"),
    ("007", "007"), (-0.0, "0"), (1e20, "1e+20")])
def test_value_text(value, text):
    assert value_text(value) == text


def test_fitted_values_and_their_reading():
    assert fitted_values([1, 2.0, None, np.nan]) == ("numbers", None)
    assert fitted_values(["a", "007", "7"]) == ("strings", "007")
    assert fitted_values(["a", "7", 3]) == ("strings", None)
    with pytest.warns(ColumnValueWarning, match="'x', which is no number"):
        texts = predicted_texts([" 7 ", 7.0, None, "x"], ("numbers", None), "c")
    assert texts == ["7", "7", None, "x"]


@pytest.mark.parametrize("make", [
    lambda: pd.DataFrame([[1.0, "a"], [2.0, "b"]], columns=["x", "x"]),
    lambda: pd.DataFrame([[1.0, 2.0], [2.0, 3.0]], columns=["x", "x"]),
])
def test_duplicate_column_names_are_refused_at_fit(make):
    X = pd.concat([make()] * 10, ignore_index=True)
    with pytest.raises(ValueError, match="more than one column named 'x'"):
        BoostClassifier(2).fit(X, np.arange(len(X)) % 2)


def test_duplicate_column_names_are_refused_at_predict():
    X = pd.DataFrame({"x": np.arange(20.0), "c": ["a", "b"] * 10})
    clf = BoostClassifier(2).fit(X, np.arange(20) % 2)
    bad = pd.concat([X, X[["c"]]], axis=1)
    with pytest.raises(ValueError, match="more than one column named 'c'"):
        clf.predict(bad)


def test_a_csv_round_trip_of_the_whole_table(tmp_path):
    table = pd.DataFrame({"code": pd.Series(CODE, dtype=object),
                          "ids": [str(c) for c in CODE]})
    clf = BoostClassifier(20, feature_types={"code": "categorical", "ids": "categorical"})
    clf.fit(table, Y)
    text = io.StringIO()
    table.to_csv(text, index=False)
    text.seek(0)
    back = pd.read_csv(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ColumnValueWarning)
        assert (clf.predict(back) == Y).all()
