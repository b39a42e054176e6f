"""A model loaded from its file has every public fitted attribute the fitted estimator has,
equal; a file without the fit's scores (an older version) loads without them, and reading
one says why (formats/fit_scores.py)."""

import json
import pickle

import numpy as np
import pytest
from sklearn.base import clone

import confboost
from confboost import BoostClassifier
from confboost.formats.fit_scores import FIELDS
from tests.formats.test_model_files import TABLE, X_NUM, Y_LABELS, Y_MULTI, Y_TABLE, edited

#: ROC AUC on a set of one class warns that it is undefined: that NaN is the point here.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")


def _cases():
    """(name, estimator, X, y, fit keywords): every scheme, learner kind and way of holding
    data out, calibrated or not."""
    half = len(X_NUM) // 2
    held_out = {"eval_set": [(X_NUM[half:], Y_MULTI[half:]), (X_NUM[:half], Y_MULTI[:half])],
                "eval_names": ["dev", "train-half"]}
    yield "stump-mh", BoostClassifier(5), X_NUM, Y_MULTI, {}
    yield "no-calibration", BoostClassifier(5, calibration=None), X_NUM, Y_MULTI, {}
    yield ("early-stopping", BoostClassifier(30, early_stopping=True, validation_fraction=0.3,
                                             n_iter_no_change=2), X_NUM, Y_MULTI, {})
    yield ("eval-set-scorer", BoostClassifier(6, scoring="accuracy"), X_NUM, Y_MULTI,
           held_out)
    one_class = Y_MULTI == 1  # ROC AUC is NaN on a set of one class
    yield ("nan-scores", BoostClassifier(4, scoring="roc_auc"), X_NUM, Y_MULTI > 0,
           {"eval_set": (X_NUM[one_class], Y_MULTI[one_class] > 0)})
    yield "mo", BoostClassifier(4, scheme="mo", random_state=0), X_NUM, Y_MULTI, {}
    yield "mr-multilabel", BoostClassifier(4, scheme="mr"), X_NUM, Y_LABELS, {}
    yield "tree", BoostClassifier(3, weak_learner="tree", max_leaves=4), X_NUM, Y_MULTI, {}
    yield "product", BoostClassifier(3, weak_learner="product"), X_NUM, Y_MULTI > 0, {}
    yield "discrete-mr", BoostClassifier(4, confidence="discrete", scheme="mr"), X_NUM, Y_MULTI, {}
    yield ("text-stumps", BoostClassifier(6, feature_types={"text": "text"}), TABLE, Y_TABLE,
           {})
    yield ("hamming-tree-table", BoostClassifier(3, weak_learner="hamming_tree", max_leaves=4,
                                                 feature_types={"text": "text"}),
           TABLE, Y_TABLE, {})


def _public_fitted(estimator):
    """Every public fitted attribute an estimator answers: instance attributes and
    properties with scikit-learn's trailing underscore."""
    names = {name for name in vars(estimator) if name.endswith("_") and not name.startswith("_")}
    names |= {name for name in dir(type(estimator))
              if name.endswith("_") and not name.startswith("_")}
    out = {}
    for name in sorted(names):
        try:
            out[name] = getattr(estimator, name)
        except AttributeError:
            continue
    return out


def _same(a, b, where):
    """Assert ``a`` and ``b`` hold the same data (arrays, containers, model objects)."""
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype.kind == b.dtype.kind, where
        np.testing.assert_array_equal(a, b, err_msg=where)  # NaN equals NaN here
    elif isinstance(a, float) and np.isnan(a):
        assert isinstance(b, float) and np.isnan(b), where
    elif isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), where
        for key in a:
            _same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, list | tuple):
        assert type(a) is type(b) and len(a) == len(b), where
        for position, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{position}]")
    elif hasattr(a, "to_dict"):
        assert type(a) is type(b), where
        _same(a.to_dict(), b.to_dict(), where)
    elif hasattr(a, "__dict__") and not isinstance(a, type):
        assert type(a) is type(b), where
        _same(vars(a), vars(b), where)
    else:
        assert a == b and type(a) is type(b), f"{where}: {a!r} != {b!r}"


@pytest.mark.parametrize("case", list(_cases()), ids=lambda case: case[0])
def test_a_loaded_model_has_every_fitted_attribute_of_the_fitted_one(case, tmp_path):
    _, estimator, X, y, keywords = case
    estimator.fit(X, y, **keywords)
    estimator.save(tmp_path / "m.json")
    loaded = confboost.load(tmp_path / "m.json")
    fitted = _public_fitted(estimator)
    assert set(FIELDS.values()) <= set(fitted)
    assert set(_public_fitted(loaded)) == set(fitted)
    for name, value in fitted.items():
        _same(value, getattr(loaded, name), name)


def test_scores_that_are_nan_or_infinite_are_saved_and_read_back(tmp_path):
    _, estimator, X, y, keywords = next(c for c in _cases() if c[0] == "nan-scores")
    estimator.fit(X, y, **keywords)
    assert np.isnan(estimator.validation_score_).all()
    estimator.save(tmp_path / "m.json")  # was: "Out of range float values", no file named
    document = json.loads((tmp_path / "m.json").read_text())
    assert document["validation_score"][0] is None
    loaded = confboost.load(tmp_path / "m.json")
    assert np.isnan(loaded.history_["validation_score"]).all()
    edit = edited(tmp_path / "m.json", tmp_path,
                  lambda d: d["history"].update(validation_score=["inf", "-inf", None, 0.5]))
    np.testing.assert_array_equal(confboost.load(edit).history_["validation_score"],
                                  [np.inf, -np.inf, np.nan, 0.5])
    for bad in (["nan"] * 4, [None, True, 0, 0], ["1e999"] * 4, [None] * 3):
        edit = edited(tmp_path / "m.json", tmp_path,
                      lambda d, bad=bad: d["history"].update(validation_score=bad))
        with pytest.raises(ValueError, match=rf"{edit}: history\['validation_score'\]"):
            confboost.load(edit)


def test_the_scores_of_a_held_out_fit_are_kept(tmp_path):
    _, estimator, X, y, keywords = next(c for c in _cases() if c[0] == "early-stopping")
    estimator.fit(X, y, **keywords)
    assert estimator.best_iteration_ is not None and estimator.best_score_
    assert len(estimator.validation_score_) == estimator.n_iter_ + 1
    estimator.save(tmp_path / "m.json")
    loaded = confboost.load(tmp_path / "m.json")
    assert loaded.best_score_ == estimator.best_score_
    np.testing.assert_array_equal(loaded.validation_score_, estimator.validation_score_)


def test_a_file_without_the_scores_loads_and_says_why_each_is_absent(tmp_path):
    estimator = BoostClassifier(4).fit(X_NUM, Y_MULTI)
    estimator.save(tmp_path / "m.json")
    older = edited(tmp_path / "m.json", tmp_path,
                   lambda document: [document.pop(field) for field in FIELDS])
    loaded = confboost.load(older)
    np.testing.assert_array_equal(loaded.predict(X_NUM), estimator.predict(X_NUM))
    for attribute in FIELDS.values():
        assert not hasattr(loaded, attribute)
        with pytest.raises(AttributeError, match=f"{attribute} is not known for this model: "
                                                 "the file it was loaded from does not hold it"):
            getattr(loaded, attribute)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_'"):
        loaded.no_such_  # noqa: B018
    copy = pickle.loads(pickle.dumps(loaded))
    with pytest.raises(AttributeError, match="train_score_ is not known"):
        copy.train_score_  # noqa: B018
    assert clone(loaded).get_params() == loaded.get_params()
    loaded.fit(X_NUM, Y_MULTI)  # a refit has them again
    assert loaded.n_iter_ == 4 and not hasattr(loaded, "_unsaved_")


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d.update(n_iter=2), r"n_iter: must be an integer in \[4,"),
    (lambda d: d.update(n_iter=True), "n_iter: must be an integer"),
    (lambda d: d.update(train_score=[0.0, 1.0]), "train_score: must be empty or hold"),
    (lambda d: d.update(validation_score=[0.0] * 4 + ["x"]), "validation_score"),
    (lambda d: d.update(evals_result={"a": {"loss": [1.0]}}), r"evals_result\['a'\]"),
    (lambda d: d.update(evals_result={"a": [1.0, 2.0]}), r"evals_result\['a'\]: must be an"),
    (lambda d: d.update(evals_result={str(i): {} for i in range(65)}), "at most 64"),
    (lambda d: d.update(evals_result={"x" * 1001: {}}), "evals_result name"),
    (lambda d: d.update(best_score={"a": {"loss": 1.0}}), "best_score: must be empty without"),
    (lambda d: d.update(best_score={"a": {"loss": "1"}}), r"best_score\['a'\]\['loss'\]"),
    (lambda d: [d.pop("n_iter"), d.update(evals_result={"a": {"loss": []}})],
     "evals_result: must be empty without n_iter"),
])
def test_bad_scores_are_refused_naming_the_file_and_field(tmp_path, edit, message):
    BoostClassifier(4).fit(X_NUM, Y_MULTI).save(tmp_path / "m.json")
    bad = edited(tmp_path / "m.json", tmp_path, edit)
    with pytest.raises(ValueError, match=message) as error:
        confboost.load(bad)
    assert str(error.value).startswith(f"{bad}: ")


def test_the_cli_model_keeps_its_scores(tmp_path):
    from confboost.cli import main
    from tests.helpers import write_stem

    stem = write_stem(tmp_path)
    assert main(["train", "-S", str(stem), "-n", "6", "--optimal-iterations"]) == 0
    document = json.loads((tmp_path / "t.model.json").read_text())
    loaded = confboost.load(tmp_path / "t.model.json")
    assert loaded.n_iter_ == document["n_iter"] == 6
    assert len(loaded.model_) <= 6


def test_a_model_json_cannot_hold_is_refused_at_save_naming_the_file(tmp_path):
    estimator = BoostClassifier(3).fit(X_NUM, Y_MULTI)
    estimator.history_["z"] = estimator.history_["z"].copy()
    estimator.history_["z"][0] = np.nan
    path = tmp_path / "m.json"
    with pytest.raises(ValueError, match=f"{path}: cannot save this model"):
        estimator.save(path)
    assert not path.exists()


def test_a_property_that_raises_keeps_its_own_message_on_a_loaded_model(tmp_path):
    estimator = BoostClassifier(3).fit(X_NUM, Y_MULTI)
    estimator.save(tmp_path / "m.json")
    loaded = confboost.load(tmp_path / "m.json")
    del loaded.history_["z"]  # as a model read from .shyp: no Z_t
    with pytest.raises(AttributeError, match="this model has no Z_t"):
        loaded.feature_importances_  # noqa: B018
