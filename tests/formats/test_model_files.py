"""Model files are untrusted input: every bad file is one ValueError naming the file and the
field, never a crash, an out-of-bounds read, a hang or a NaN prediction."""

import json
import math
import os
import random
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import confboost
from confboost import BoostClassifier
from confboost.engine import learners
from confboost.engine.model import BoostedModel
from confboost.formats.model_json import save_document
from tests.helpers import child_env, json_paths

RNG = np.random.default_rng(0)
N = 60
X_NUM = RNG.normal(size=(N, 4))
X_NUM[::7, 1] = np.nan
Y_BIN = (X_NUM[:, 0] > 0).astype(int)
Y_MULTI = np.digitize(X_NUM[:, 2], [-0.5, 0.5])
Y_LABELS = np.column_stack([Y_BIN, X_NUM[:, 3] > 0, X_NUM[:, 2] < 0]).astype(int)
TABLE = pd.DataFrame({
    "size": X_NUM[:, 0],
    "colour": np.where(X_NUM[:, 1] > 0, "red", "blue").astype(object),
    "text": [f"w{i % 5} w{i % 3} free" if i % 4 else "cheap now" for i in range(N)],
})
Y_TABLE = np.where(TABLE["size"] > 1.0, 3, np.where(
    TABLE["text"] == "cheap now", 2, np.where(TABLE["colour"] == "red", 1, 0)))


def _fits():
    """(name, estimator, X, y) of every hypothesis type and scheme, small and quick."""
    yield "stump-mh", BoostClassifier(4), X_NUM, Y_MULTI
    yield "stump-mr", BoostClassifier(4, scheme="mr"), X_NUM, Y_MULTI
    yield "stump-mo", BoostClassifier(4, scheme="mo", random_state=0), X_NUM, Y_MULTI
    yield "stump-mr-multilabel", BoostClassifier(4, scheme="mr"), X_NUM, Y_LABELS
    yield "stump-binary-discrete", BoostClassifier(4, confidence="discrete"), X_NUM, Y_BIN
    yield "tree", BoostClassifier(3, weak_learner="tree", max_leaves=4), X_NUM, Y_MULTI
    yield ("hamming_tree", BoostClassifier(3, weak_learner="hamming_tree", max_leaves=4),
           X_NUM, Y_MULTI)
    yield "product", BoostClassifier(3, weak_learner="product"), X_NUM, Y_BIN
    yield ("label_trees", BoostClassifier(3, weak_learner="label_trees", max_leaves=4),
           X_NUM, Y_MULTI)
    text = {"text": "text"}
    yield "mixed-stumps", BoostClassifier(8, feature_types=text), TABLE, Y_TABLE
    yield ("mixed_tree", BoostClassifier(3, weak_learner="tree", max_leaves=4,
                                         feature_types=text), TABLE, Y_MULTI)
    yield ("mixed_hamming_tree", BoostClassifier(3, weak_learner="hamming_tree", max_leaves=4,
                                                 feature_types=text), TABLE, Y_LABELS)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """Saved model files of every kind: {name: (path, X)}."""
    folder = tmp_path_factory.mktemp("models")
    out = {}
    for name, estimator, X, y in _fits():
        path = folder / f"{name}.json"
        estimator.fit(X, y).save(path)
        out[name] = (path, X)
    return out


def rewrite(path, document):
    """Write an edited document with a valid checksum (as a careful attacker would)."""
    save_document(path, {key: value for key, value in document.items()
                         if key not in ("format", "version", "checksum")})


def edited(path, tmp_path, edit):
    document = json.loads(path.read_text())
    edit(document)
    target = tmp_path / "edited.json"
    rewrite(target, document)
    return target


def test_every_kind_round_trips_with_its_checksum(saved):
    kinds = set()
    for path, X in saved.values():
        loaded = confboost.load(path)
        kinds |= {type(h).type_name for h in loaded.model_.hypotheses}
        assert np.isfinite(loaded.decision_function(X)).all()
    assert kinds == set(learners.HYPOTHESIS_TYPES)


@pytest.mark.parametrize("feature", [10**6, 4, -1, 2**40, 1.5, True, "0"])
def test_stump_feature_out_of_range_is_refused_at_load(saved, tmp_path, feature):
    path, _ = saved["stump-mh"]

    def edit(document):
        document["model"]["hypotheses"][0]["feature"] = feature

    bad = edited(path, tmp_path, edit)
    with pytest.raises(ValueError, match=rf"^{bad}: model\.hypotheses\[0\]\.feature: must be"):
        confboost.load(bad)


def test_tree_feature_and_mixed_column_kinds_are_checked_against_the_model(saved, tmp_path):
    path, _ = saved["tree"]

    def edit(document):
        document["model"]["hypotheses"][1]["column"][0] = 4

    with pytest.raises(ValueError, match=r"hypotheses\[1\]\.column: must be a continuous "
                                         r"column of the model's 4, got 4"):
        confboost.load(edited(path, tmp_path, edit))
    path, _ = saved["mixed-stumps"]
    document = json.loads(path.read_text())
    term = next(i for i, h in enumerate(document["model"]["hypotheses"]) if h["type"] == "term")
    document["model"]["hypotheses"][term]["column"] = 1  # the categorical column
    rewrite(tmp_path / "m.json", document)
    with pytest.raises(ValueError, match=rf"hypotheses\[{term}\]\.column: must be a text "
                                         "column"):
        confboost.load(tmp_path / "m.json")


def test_label_count_classes_and_code_are_checked(saved, tmp_path):
    path, _ = saved["stump-mh"]
    cases = [
        (lambda d: d["model"]["hypotheses"][0]["values"][0].append(0.5),
         r"model\.hypotheses\[0\]\.values: must have rows of equal length"),
        (lambda d: d["model"].update(n_labels=2), r"model\.hypotheses\[0\]\.values: must have"),
        (lambda d: d["classes"].append(3), r"model\.n_labels: must be 4"),
        (lambda d: d["classes"].__setitem__(1, 0), r"classes: must be distinct"),
        (lambda d: d["history"]["z"].pop(), r"history\['z'\]: must have 4 entries"),
        (lambda d: d["model"]["alphas"].__setitem__(0, 1e300),
         r"model\.alphas: with the values, \|f\| could reach"),
        (lambda d: d["params"].update(max_bins="x"), r"params: The 'max_bins' parameter"),
        (lambda d: d["params"].update(evil=1), r"params: has unknown parameters"),
        (lambda d: d.update(model=[]), r"model\.model: must be a JSON object"),
        (lambda d: d["model"].update(hypotheses={}), r"model\.hypotheses: must be a list"),
        (lambda d: d["model"]["hypotheses"].__setitem__(0, 7),
         r"model\.hypotheses\[0\]: must be a JSON object"),
        (lambda d: d.update(smoothing="0.1"), r"smoothing: must be a finite number"),
    ]
    for edit, message in cases:
        with pytest.raises(ValueError, match=message):
            confboost.load(edited(path, tmp_path, edit))
    path, _ = saved["stump-mo"]
    for code in ([[1, 1]] * 3, [[1, 2, 1]] * 3, "random", [[1], [-1]]):
        with pytest.raises(ValueError, match=r"(code|classes)"):
            confboost.load(edited(path, tmp_path, lambda d, c=code: d.update(code=c)))


def test_corrupt_files_are_refused_naming_the_file(saved, tmp_path):
    path, _ = saved["stump-mh"]
    text = path.read_text()
    bad = tmp_path / "bad.json"
    cases = [
        (text.replace('"alphas": [', '"alphas": [NaN, ', 1), "invalid JSON: the number NaN"),
        (text.replace('"alphas": [', '"alphas": [Infinity, ', 1), "the number Infinity"),
        ("[" * 100_000 + "]" * 100_000, "nested too deep|no 'confboost-model' header"),
        (text[: len(text) // 2], "invalid JSON"),
        (text.replace("0.", "1.", 1), "checksum: the content does not match"),
        ("", "invalid JSON"),
    ]
    for content, message in cases:
        bad.write_text(content)
        with pytest.raises(ValueError, match=rf"^{bad}: .*({message})"):
            confboost.load(bad)
    bad.write_bytes(b'{"format": "confboost-model", "x": "\xff\xfe"}')
    with pytest.raises(ValueError, match=rf"^{bad}: not a confboost model file \(not UTF-8"):
        confboost.load(bad)
    with pytest.raises(ValueError, match="is a folder"):
        confboost.load(tmp_path)


def test_deep_nesting_inside_a_valid_document_is_a_value_error(saved, tmp_path):
    path, _ = saved["stump-mh"]
    document = json.loads(path.read_text())
    deep = 0.5
    for _ in range(50):
        deep = [deep]
    document["model"]["hypotheses"][0]["values"] = deep
    rewrite(tmp_path / "deep.json", document)
    with pytest.raises(ValueError, match=r"hypotheses\[0\]\.values"):
        confboost.load(tmp_path / "deep.json")


def test_version_2_files_without_checksum_still_load(saved, tmp_path):
    path, X = saved["tree"]
    document = json.loads(path.read_text())
    del document["checksum"]
    document["version"] = 2
    old = tmp_path / "v2.json"
    old.write_text(json.dumps(document))
    np.testing.assert_array_equal(confboost.load(old).decision_function(X),
                                  confboost.load(path).decision_function(X))


def test_infinite_thresholds_round_trip_exactly(tmp_path):
    from confboost.engine.learners import ProductHypothesis, StumpHypothesis, TreeHypothesis

    hypotheses = [StumpHypothesis(0, -np.inf, [[1.0], [-1.0], [0.0]]),
                  StumpHypothesis(1, np.inf, [[0.5], [-1.0], [0.0]]),
                  TreeHypothesis([0], [0], [-np.inf], [None], [False], [-1], [-2],
                                 [[0.25], [-0.25]]),
                  ProductHypothesis([0, 1], [np.inf, -np.inf], [True, False], [[1.0], [-1.0]])]
    model = BoostedModel(hypotheses, [1.0, 1.0, 1.0, 1.0], 1)
    back = BoostedModel.from_dict(json.loads(json.dumps(model.to_dict())))
    assert [h.to_dict() for h in back.hypotheses] == [h.to_dict() for h in hypotheses]
    assert back.hypotheses[0].threshold == -np.inf
    X = np.array([[-1e308, 1e308], [0.0, np.nan], [np.nan, -5.0]])
    np.testing.assert_array_equal(back.decision_function(X), model.decision_function(X))


def test_predict_checks_the_columns_the_model_reads():
    model = BoostedModel([learners.StumpHypothesis(3, 0.0, [[1.0], [-1.0], [0.0]])],
                         [1.0], 1)
    with pytest.raises(ValueError, match="X has 2 columns, but the model reads column 3"):
        model.decision_function(np.zeros((5, 2)))
    import scipy.sparse

    with pytest.raises(ValueError, match="model reads column 3"):
        model.decision_function(scipy.sparse.csr_matrix(np.zeros((5, 2))))


# -- fuzz: mutate saved models, load and predict in a subprocess -------------------------

RUNNER = textwrap.dedent("""
    import json, sys
    import numpy as np, pandas as pd
    import confboost
    for line in sys.stdin:
        path, data = json.loads(line)
        X = np.load(data) if data.endswith(".npy") else pd.DataFrame(json.load(open(data)))
        try:
            estimator = confboost.load(path)
        except ValueError as error:
            outcome = "refused" if str(error).startswith(path + ": ") else "unnamed"
        else:
            try:  # a valid model of other data: X is refused, by a clean ValueError
                scores = np.asarray(estimator.decision_function(X))
                proba = estimator.predict_proba(X)
                estimator.predict(X)
            except ValueError as error:
                outcome = "X refused: " + str(error)
            else:
                ok = not np.isnan(scores).any() and np.isfinite(proba).all()
                outcome = "predicted" if ok else "nan"
        print(json.dumps([path, outcome]), flush=True)
""")

#: Values a mutation writes into a model file: wrong types, edges, huge and negative numbers.
ODD_VALUES = [None, True, False, 0, 1, -1, 2, 3, 4, 255, 256, 10**6, 2**31, 2**63, -(2**63),
              10**400, 0.5, -0.0, 1e308, -1e308, 5e-324, "inf", "-inf", "nan", "", "x" * 20000,
              "(a+)+b", [], [0], [[0.0]], [[1.0] * 3] * 3, {}, {"type": "stump"}]


def _mutate(document, path, action, odd):
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    if action == "delete":
        if isinstance(parent, dict):
            del parent[key]
        else:
            parent.pop(key)
    elif action == "scale" and isinstance(parent[key], (int, float)) and not isinstance(
            parent[key], bool):
        parent[key] = parent[key] * 1e300 if parent[key] else 1e-300
    elif action == "negate" and isinstance(parent[key], (int, float)):
        parent[key] = -parent[key] - 1
    elif action == "grow" and isinstance(parent[key], list):
        parent[key] = parent[key] + parent[key][:1]
    else:
        parent[key] = odd


ACTIONS = ["replace", "delete", "scale", "negate", "grow"]


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "2")), deadline=None,
          derandomize=True, phases=[Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_fuzzed_model_files_are_refused_or_predict_finite(saved, tmp_path, seed):
    # hypothesis draws the seed of 200 mutations, each loaded and predicted in one
    # subprocess (a crash there cannot take pytest down, and names the file).
    # FUZZ_EXAMPLES=25 runs more seeds (about 4 minutes).
    rng = random.Random(seed)
    mutations = [(rng.randrange(10**6), rng.randrange(10**6), rng.choice(ACTIONS),
                  rng.choice(ODD_VALUES), rng.random() < 0.8, rng.randrange(10**6))
                 for _ in range(200)]
    names = sorted(saved)
    data = {}
    for name, (_, X) in saved.items():
        if isinstance(X, np.ndarray):
            data[name] = str(tmp_path / f"{name}.npy")
            np.save(data[name], X)
        else:
            data[name] = str(tmp_path / f"{name}.table.json")
            with open(data[name], "w") as stream:
                json.dump({c: [None if isinstance(v, float) and math.isnan(v) else v
                               for v in X[c].tolist()] for c in X.columns}, stream)
    jobs = []
    for number, (which, where, action, odd, resign, byte) in enumerate(mutations):
        name = names[which % len(names)]
        source = saved[name][0]
        target = tmp_path / f"fuzz{number}.json"
        if not resign and byte % 3 == 0:  # raw corruption: a flipped or truncated byte
            raw = bytearray(source.read_bytes())
            position = byte % len(raw)
            raw[position] ^= 1 << (byte % 7)
            target.write_bytes(bytes(raw[: len(raw) - byte % 2 * position // 2]))
        else:
            document = json.loads(source.read_text())
            paths = [p for p in json_paths(document) if p]
            _mutate(document, paths[where % len(paths)], action, odd)
            if resign:
                rewrite(target, document)
            else:
                target.write_text(json.dumps(document))
        jobs.append(json.dumps([str(target), data[name]]))
    result = subprocess.run([sys.executable, "-c", RUNNER], input="\n".join(jobs) + "\n",
                            capture_output=True, text=True, timeout=240, env=child_env())
    outcomes = [json.loads(line) for line in result.stdout.splitlines()]
    done = {path for path, _ in outcomes}
    crashed = next((json.loads(job)[0] for job in jobs if json.loads(job)[0] not in done), None)
    assert result.returncode == 0, (f"load/predict of {crashed} ended the interpreter "
                                    f"(status {result.returncode}): {result.stderr[-3000:]}")
    bad = [(path, outcome) for path, outcome in outcomes
           if outcome not in ("refused", "predicted") and not outcome.startswith("X refused")]
    assert not bad, bad
    assert len(outcomes) == len(jobs)
    assert {"refused", "predicted"} <= {outcome for _, outcome in outcomes}
