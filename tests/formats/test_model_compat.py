"""Model files written by an earlier release load and predict exactly as they did.

The fixtures in ``tests/fixtures/models`` were written by confboost at 656e022, before the
engine redesign, by ``make_fixtures.py`` beside them: one file per weak learner
and scheme (stump, tree, Hamming tree, product, MR, MO, and a table with categorical and
text columns under stumps, trees and Hamming trees), with the ``decision_function`` and
``predict`` outputs of the estimator that saved it.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from confboost import load

FIXTURES = Path(__file__).parents[1] / "fixtures" / "models"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())


def _input(rows):
    """The stored input: a dict of columns (mixed tables) or a float matrix, null = NaN."""
    if isinstance(rows, dict):
        return {name: (np.array([np.nan if v is None else v for v in values], dtype=float)
                       if all(v is None or isinstance(v, (int, float)) for v in values)
                       else values)
                for name, values in rows.items()}
    return np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_old_model_file_predicts_as_saved(name):
    expected = EXPECTED[name]
    clf = load(FIXTURES / f"{name}.json")
    X = _input(expected["X"])
    np.testing.assert_allclose(clf.decision_function(X), expected["decision_function"],
                               rtol=1e-12, atol=1e-12)
    assert np.asarray(clf.predict(X)).tolist() == expected["predict"]
    staged = list(clf.staged_decision_function(X))
    assert len(staged) == clf.n_estimators_
    np.testing.assert_allclose(staged[-1], expected["decision_function"], rtol=1e-12,
                               atol=1e-12)


def test_fixtures_cover_every_saved_hypothesis_type():
    types = set()
    for name in EXPECTED:
        document = json.loads((FIXTURES / f"{name}.json").read_text())
        types |= {h["type"] for h in document["model"]["hypotheses"]}
    assert types == {"stump", "tree", "hamming_tree", "product", "categorical", "term",
                     "mixed_tree", "mixed_hamming_tree"}
