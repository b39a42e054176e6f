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


@pytest.fixture(scope="module")
def warnings_on_reading():
    """{reader: {name: the FutureWarnings' messages}} of reading every pickle in one fresh
    process per reader (``pickle``, ``joblib``), on first use.

    There the old paths are imported for the first time; before each file the old paths
    are dropped from ``sys.modules``, so each file's reading imports them again and warns
    (the warnings are once per import of a path), as in a process of its own.
    """
    found = {}

    def read(reader):
        if reader not in found:
            load = {"pickle": "pickle.loads(open(path, 'rb').read())",
                    "joblib": "joblib.load(path)"}[reader]
            code = (f"import {reader}, warnings, json, sys\n"
                    "from confboost import _legacy\n"
                    "warnings.simplefilter('always')\n"
                    "found = {}\n"
                    "for name, path in json.loads(sys.argv[1]).items():\n"
                    "    for old in _legacy.MOVED:\n"
                    "        sys.modules.pop(old, None)\n"
                    "    with warnings.catch_warnings(record=True) as caught:\n"
                    f"        {load}\n"
                    "    found[name] = [str(w.message) for w in caught\n"
                    "                   if issubclass(w.category, FutureWarning)]\n"
                    "print(json.dumps(found))\n")
            paths = {name: str(PICKLES / f"{name}.{'pkl' if reader == 'pickle' else 'joblib'}")
                     for name in sorted(EXPECTED)}
            out = subprocess.run([sys.executable, "-c", code, json.dumps(paths)],
                                 capture_output=True, text=True, check=True).stdout
            found[reader] = json.loads(out.strip().splitlines()[-1])
        return found[reader]

    return read


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("reader", ["pickle", "joblib"])
def test_a_file_pickled_before_the_move_predicts_the_same(name, reader, warnings_on_reading):
    path = PICKLES / f"{name}.{'pkl' if reader == 'pickle' else 'joblib'}"
    messages = warnings_on_reading(reader)[name]
    assert messages and all(" moved to confboost." in m for m in messages)
    clf = pickle.loads(path.read_bytes()) if reader == "pickle" else joblib.load(path)
    decision = np.asarray(clf.decision_function(_rows(EXPECTED[name]["X"])))
    # to 1e-12, as test_model_compat's: MO's decoding takes NumPy's exp and log and a BLAS
    # matrix product, whose last bits depend on the CPU (a Zen 3 host, no AVX-512, reads 4
    # of mo_multiclass's 240 values one unit in the last place from the fixtures' host)
    np.testing.assert_allclose(decision, np.asarray(EXPECTED[name]["decision_function"]),
                               rtol=1e-12, atol=1e-12)
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
