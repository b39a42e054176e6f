"""Fuzzer of model files (``formats/model_json.py``): every mutated file loads and predicts
finite scores, or is refused with one line naming the file, in memory that follows its size.

Mutations, on saved models of every hypothesis type and scheme: a JSON value replaced by an
odd one, deleted, scaled, negated, a list grown or repeated a thousandfold, a count made
huge; then the checksum re-signed (as a careful forger would), or not; or raw bytes flipped,
cut or a ``1e999`` spliced in. Short run in ``make test``, long run in ``make fuzz``
(``tests/fuzz/fuzzing.py``).
"""

import copy
import functools
import json

import numpy as np
import pandas as pd
import pytest

import confboost
from confboost import BoostClassifier
from confboost.estimators.booster import Booster
from confboost.formats.model_json import read_model, save_document
from tests.helpers import json_paths

from .fuzzing import Bound, Tally, cases, generator, run_case

RNG = np.random.default_rng(1)
N = 50
X_NUM = RNG.normal(size=(N, 4))
X_NUM[::6, 2] = np.nan
Y_BIN = (X_NUM[:, 0] > 0).astype(int)
Y_MULTI = np.digitize(X_NUM[:, 1], [-0.5, 0.5])
Y_LABELS = np.column_stack([Y_BIN, X_NUM[:, 3] > 0]).astype(int)
TABLE = pd.DataFrame({
    "size": X_NUM[:, 0],
    "code": pd.Series(np.where(X_NUM[:, 1] > 0, 7, 3), dtype=object),
    "text": [f"w{i % 5} w{i % 3} free" if i % 4 else "cheap now" for i in range(N)],
})
KINDS = {"text": "text", "code": "categorical"}

ODD = [None, True, 0, -1, 3, 2**31, 2**63, 10**400, 0.5, -0.0, 1e308, 5e-324, "inf", "nan",
       "", "x" * 2000, "(a+)+b", [], [0], [[0.0]], {}, {"type": "stump"}, 49_999_999]


def _fits():
    yield BoostClassifier(3), X_NUM, Y_MULTI
    yield BoostClassifier(3, scheme="mr"), X_NUM, Y_LABELS
    yield BoostClassifier(3, scheme="mo", random_state=0), X_NUM, Y_MULTI
    yield BoostClassifier(3, weak_learner="tree", max_leaves=3), X_NUM, Y_MULTI
    yield BoostClassifier(2, weak_learner="hamming_tree", max_leaves=3), X_NUM, Y_MULTI
    yield BoostClassifier(2, weak_learner="product"), X_NUM, Y_BIN
    yield BoostClassifier(6, feature_types=KINDS, calibration="temperature"), TABLE, Y_MULTI


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz-models")
    out = []
    for number, (estimator, X, y) in enumerate(_fits()):
        path = folder / f"base{number}.json"
        estimator.fit(X, y).save(path)
        out.append((path.read_bytes(), X))
    return out


def _mutate(document, rng):
    """One random change of a JSON document, in place."""
    paths = [path for path in json_paths(document, 5) if path]
    path = rng.choice(paths)
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    key, value = path[-1], parent[path[-1]]
    action = rng.choice(["odd", "odd", "delete", "scale", "negate", "grow", "repeat", "huge"])
    if action == "delete":
        del parent[key]
    elif action in ("scale", "negate") and isinstance(value, int | float) \
            and not isinstance(value, bool):
        parent[key] = value * rng.choice([1e300, 1e-300, 7.0]) if action == "scale" \
            else -value - 1
    elif action == "grow" and isinstance(value, list):
        parent[key] = value + value[:1]
    elif action == "repeat" and isinstance(value, list) and value:
        parent[key] = value * 1000  # a list far longer than the model
    elif action == "huge":
        parent[key] = rng.choice([10**7, 2**40, 49_999_999])
    else:
        parent[key] = copy.deepcopy(rng.choice(ODD))


def _mutated_bytes(raw, rng):
    if rng.random() < 0.75:
        document = json.loads(raw)
        for _ in range(rng.choice([1, 1, 2, 3])):
            _mutate(document, rng)
        if rng.random() < 0.85 and isinstance(document, dict):
            body = {key: value for key, value in document.items()
                    if key not in ("format", "version", "checksum")}
            return ("resigned", body)
        return ("raw", json.dumps(document).encode())
    raw = bytearray(raw)
    choice = rng.random()
    where = rng.randrange(len(raw))
    if choice < 0.4:
        raw[where] ^= 1 << rng.randrange(8)
    elif choice < 0.7:
        del raw[where:]
    else:
        raw[where:where] = b"1e999"
    return ("raw", bytes(raw))


def _predicts(estimator, X):
    scores = estimator.decision_function(X)
    assert np.isfinite(scores).all(), "a loaded model predicts non-finite scores"
    return scores


def _case(path, reader, X):
    """Read the file as ``reader`` says and predict X: finite scores, or a ValueError
    naming the file."""
    if reader == "booster":  # the command line's reader: a table's model only
        estimator = read_model(path, Booster)[0]
        if not hasattr(estimator, "encoder_"):
            return None
    else:
        estimator = confboost.load(path)
    try:
        return _predicts(estimator, X)
    except ValueError as error:  # X refused by the model read: name the file too
        raise ValueError(f"{path}: X refused: {error}") from None


def test_fuzzed_model_files(models, tmp_path):
    rng = generator("model-json")
    tally = Tally("model-json")
    for number in range(cases(40)):
        raw, X = models[rng.randrange(len(models))]
        kind, content = _mutated_bytes(raw, rng)
        path = tmp_path / f"case{number % 50}.json"
        if kind == "resigned":
            try:
                save_document(path, content)
            except ValueError:  # the mutation put a NaN where JSON has none
                continue
        else:
            path.write_bytes(content)
        reader = rng.choice(["load", "booster"])
        run_case(functools.partial(_case, path, reader, X), tally,
                 input_size=path.stat().st_size, named=(str(path),),
                 bound=Bound(seconds=60, base_mb=64, per_byte=64), what=f"case {number}")
    print(tally.report())
    assert tally.accepted and tally.refused
