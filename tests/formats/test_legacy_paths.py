"""The module paths of confboost 0.1: pickles written before the move load and predict the
same, and an old path imports as the module it became, with a warning naming the new one."""

import importlib
import json
import pickle
import subprocess
import sys
from pathlib import Path

import joblib
import numpy as np
import pytest

from confboost import _legacy

PICKLES = Path(__file__).parents[1] / "fixtures" / "pickles"
EXPECTED = json.loads((PICKLES / "expected.json").read_text())


def _rows(X):
    """The fixture's rows as the estimator read them (null = missing)."""
    if isinstance(X, dict):
        return {name: [np.nan if value is None and name == "number" else value
                       for value in values] for name, values in X.items()}
    return np.array([[np.nan if value is None else value for value in row] for row in X])


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("reader", ["pickle", "joblib"])
def test_a_file_pickled_before_the_move_predicts_the_same(name, reader):
    path = PICKLES / f"{name}.{'pkl' if reader == 'pickle' else 'joblib'}"
    # Each pickle is read in a fresh process: there the old paths are imported for the
    # first time, so the warnings are raised (they are once per process and path).
    read = {"pickle": "pickle.loads(open(sys.argv[1], 'rb').read())",
            "joblib": "joblib.load(sys.argv[1])"}[reader]
    code = (f"import {reader}, warnings, json, sys\n"
            "warnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as caught:\n"
            f"    {read}\n"
            "print(json.dumps([str(w.message) for w in caught"
            " if issubclass(w.category, FutureWarning)]))\n")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                         text=True, check=True).stdout
    messages = json.loads(out.strip().splitlines()[-1])
    assert messages and all(" moved to confboost." in m for m in messages)
    clf = pickle.loads(path.read_bytes()) if reader == "pickle" else joblib.load(path)
    decision = np.asarray(clf.decision_function(_rows(EXPECTED[name]["X"])))
    np.testing.assert_array_equal(decision, np.asarray(EXPECTED[name]["decision_function"]))
    assert type(clf).__module__ == "confboost.estimators.classifier"


@pytest.mark.parametrize("old", sorted(_legacy.MOVED))
def test_an_old_path_is_the_new_module(old):
    new = importlib.import_module(_legacy.MOVED[old])
    with pytest.warns(FutureWarning, match=f"{old} moved to {_legacy.MOVED[old]}"):
        sys.modules.pop(old, None)
        module = importlib.import_module(old)
    assert module is new
    assert module.__spec__.name == _legacy.MOVED[old]


def test_an_old_package_has_no_second_copy_of_its_modules():
    from confboost.engine.learners.stump import StumpHypothesis

    with pytest.warns(FutureWarning):
        sys.modules.pop("confboost.learners.stump", None)
        old = importlib.import_module("confboost.learners.stump")
    assert old.StumpHypothesis is StumpHypothesis


def test_the_finder_answers_only_for_old_paths():
    finder = _legacy.MovedModuleFinder()
    assert finder.find_spec("numpy") is None
    assert finder.find_spec("confboost.engine.model") is None
    assert finder.find_spec("confboost.model").name == "confboost.model"
