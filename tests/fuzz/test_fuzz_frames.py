"""Fuzzer of DataFrame columns (``data/columns.py``): every random table fits and predicts
finite scores, or is refused with one line naming the column, and the predictions do not
drift when the table comes back in other dtypes (integers as floats, everything through a
CSV file), as ``data/category_values.py`` promises.

Columns are drawn from: floats with NaN, integers, nullable integers, booleans, objects
mixing numbers, strings and None, categories, words, sentences, long strings, dates, and
infinities; names may repeat or not be strings. Short run in ``make test``, long run in
``make fuzz``.
"""

import functools
import io
import warnings

import numpy as np
import pandas as pd

from confboost import BoostClassifier
from confboost.data.category_values import ColumnValueWarning
from confboost.data.columns import ColumnKindWarning

from .fuzzing import Bound, Tally, cases, generator, run_case

N = 40
WORDS = ["red", "green", "blue", "a b", "x", "007", "7", "1.5", ""]


def _column(rng, kind):
    rows = range(N)
    if kind == "float":
        return [rng.choice([rng.uniform(-5, 5), float("nan")]) for _ in rows]
    if kind == "int":
        return np.array([rng.randrange(-3, 4) for _ in rows], dtype=np.int64)
    if kind == "nullable":
        return pd.array([rng.choice([rng.randrange(3), None]) for _ in rows], dtype="Int64")
    if kind == "bool":
        return np.array([rng.random() < 0.5 for _ in rows])
    if kind == "mixed":
        return pd.Series([rng.choice([1, 2.0, "a", None, float("nan"), "2", True])
                          for _ in rows], dtype=object)
    if kind == "category":
        return pd.Categorical([rng.choice(["p", "q", "r"]) for _ in rows])
    if kind == "codes":
        return pd.Series([rng.choice([200, 201, 202]) for _ in rows], dtype=object)
    if kind == "words":
        return [rng.choice(WORDS) for _ in rows]
    if kind == "sentences":
        return [" ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 5))) for _ in rows]
    if kind == "long":
        return ["w" * rng.randrange(1, 3000) for _ in rows]
    if kind == "date":
        return pd.date_range("2020-01-01", periods=N)
    return [rng.choice([1.0, float("inf"), -float("inf")]) for _ in rows]  # "infinite"


KINDS = ["float", "int", "nullable", "bool", "mixed", "category", "codes", "words",
         "sentences", "long", "date", "infinite"]


def _table(rng):
    n_columns = rng.randrange(1, 5)
    names = [rng.choice(["a", "b", "c", "d", 0, 1]) for _ in range(n_columns)]
    if rng.random() < 0.8:  # mostly distinct names
        names = [f"c{i}" for i in range(n_columns)]
    columns = [_column(rng, rng.choice(KINDS)) for _ in range(n_columns)]
    table = pd.DataFrame({i: column for i, column in enumerate(columns)})
    table.columns = names
    return table


def _drifted(table):
    """The table as it might come back: integers as floats, and through a CSV file."""
    floats = table.copy()
    for name in floats.columns:
        if floats[name].dtype.kind in "iu":
            floats[name] = floats[name].astype(np.float64)
    text = io.StringIO()
    table.to_csv(text, index=False)
    text.seek(0)
    return floats, pd.read_csv(text, keep_default_na=True)


def _case(table, y, drift):
    """Fit and predict the table (and its drifted copies, with ``drift``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ColumnKindWarning)
        clf = BoostClassifier(3).fit(table, y)
    scores = clf.decision_function(table)
    assert np.isfinite(scores).all()
    if drift and len(set(table.columns)) == len(table.columns):
        floats, read_back = _drifted(table)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ColumnValueWarning)
            assert np.array_equal(clf.predict(floats), clf.predict(table)), \
                "integers read as floats changed a prediction"
            _read_back_agrees(clf, table, read_back)
    return clf


def test_fuzzed_tables():
    rng = generator("frames")
    tally = Tally("frames")
    for number in range(cases(30)):
        table = _table(rng)
        y = np.array([rng.randrange(3) for _ in range(N)])
        y[:3] = [0, 1, 2]
        drift = rng.random() < 0.5
        run_case(functools.partial(_case, table, y, drift), tally,
                 input_size=int(table.memory_usage(deep=True).sum()),
                 bound=Bound(seconds=120, base_mb=96, per_byte=64), what=f"case {number}",
                 errors=(ValueError, TypeError))
    print(tally.report())
    assert tally.accepted and tally.refused


def _read_back_agrees(clf, table, read_back):
    """Predictions on the CSV's table equal the original's where every categorical column
    read back spells its values as they were (a CSV cannot keep '007' apart from 7, nor a
    missing value apart from '')."""
    kinds = dict(zip(clf.encoder_.names, clf.encoder_.kinds, strict=True)) \
        if hasattr(clf, "encoder_") else {}
    for name, kind in kinds.items():
        if kind == "text":
            return
        if kind == "categorical":
            before = [str(v) for v in table[name].tolist()]
            if any(v in ("", "nan", "None", "<NA>") or v != v.strip() or
                   (v.lstrip("-").replace(".", "", 1).isdigit() and str(float(v)) != v
                    and str(int(float(v))) != v) for v in before):
                return
            if table[name].dtype == bool or any(v in ("True", "False") for v in before):
                return
    if hasattr(clf, "encoder_") or all(read_back.dtypes == table.dtypes):
        try:
            got = clf.predict(read_back)
        except ValueError:
            return  # a column read back as another kind (text as numbers): refused
        assert np.array_equal(got, clf.predict(table)), "a CSV round trip changed a prediction"
