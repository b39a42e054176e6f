"""Checkpoints: a run killed at any round and resumed gives the uninterrupted model, bit for
bit."""

import json
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from confboost import BoostClassifier
from confboost.formats.model_json import model_document
from confboost.training.checkpoint import Checkpoint, _checksum
from tests.helpers import child_env

RNG = np.random.default_rng(5)
X = RNG.normal(size=(300, 5))
X[::9, 2] = np.nan
Y3 = np.digitize(X[:, 0] + 0.5 * RNG.normal(size=300), [-0.5, 0.5])
YL = np.column_stack([Y3 == 0, X[:, 1] > 0, X[:, 3] > 0.2]).astype(int)


def document(clf):
    return json.dumps(model_document(clf), sort_keys=True)


class Stop(Exception):
    pass


def stop_at(round_wanted):
    def callback(round_index, record):
        if round_index == round_wanted:
            raise Stop
    return callback


@pytest.mark.parametrize(("params", "y"), [
    ({"scheme": "mh"}, Y3),
    ({"scheme": "mr"}, YL),
    ({"scheme": "mo", "random_state": 0}, Y3),
    ({"scheme": "mr", "weak_learner": "tree", "max_leaves": 4}, Y3),
    ({"weak_learner": "product", "confidence": "discrete"}, Y3 > 0),
])
def test_an_interrupted_fit_resumes_to_the_same_model(tmp_path, params, y):
    whole = BoostClassifier(12, **params).fit(X, y)
    path = tmp_path / "run.ckpt"
    clf = BoostClassifier(12, **params)
    with pytest.raises(Stop):
        clf.fit(X, y, callbacks=[Checkpoint(path, every=3), stop_at(7)])
    assert path.exists()
    seen = []
    clf.fit(X, y, callbacks=[Checkpoint(path, every=3), lambda i, r: seen.append(i)])
    assert seen[0] == 6  # resumed after the checkpoint of round 6
    assert document(clf) == document(whole)


def test_a_checkpoint_of_another_run_is_refused(tmp_path):
    path = tmp_path / "run.ckpt"
    BoostClassifier(6).fit(X, Y3, callbacks=[Checkpoint(path, every=2)])
    with pytest.raises(ValueError, match=rf"^{path}: fingerprint: .*another run"):
        BoostClassifier(6, confidence="discrete").fit(X, Y3, callbacks=[Checkpoint(path)])
    with pytest.raises(ValueError, match="fingerprint"):
        BoostClassifier(6).fit(X[::-1], Y3, callbacks=[Checkpoint(path)])
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=rf"^{path}: "):
        BoostClassifier(6).fit(X, Y3, callbacks=[Checkpoint(path)])
    with pytest.raises(ValueError, match="every must be an integer"):
        Checkpoint(path, every=0)


def test_the_loop_alone_saves_and_resumes_a_checkpoint(tmp_path):
    # a checkpoint is an ordinary callback: the loop without an estimator honours it
    from confboost.data.dataset import Dataset
    from confboost.engine.boosting import run_boosting
    from confboost.engine.learners import make_learner
    from confboost.engine.schemes.mh import MHScheme
    from confboost.kernels.criterion_numpy import MODES

    signs = np.where(Y3[:, None] == np.arange(3), 1, -1).astype(np.int8)

    def boost(callbacks):
        dataset = Dataset.from_array(X, 32)
        learner = make_learner("stump", dataset, MODES["real"], 1e-3)
        return run_boosting(dataset, MHScheme(signs, np.ones(300), True), learner, 8, "auto",
                            MODES["real"], 1e-3, callbacks)

    path = tmp_path / "loop.ckpt"
    with pytest.raises(Stop):
        boost([Checkpoint(path, every=2), stop_at(5)])
    seen = []
    hypotheses, alphas, _ = boost([Checkpoint(path, every=2), lambda i, r: seen.append(i)])
    whole, whole_alphas, _ = boost([])
    assert seen[0] == 6  # the checkpoint (order -100) saved round 6 before stop_at raised
    np.testing.assert_array_equal(alphas, whole_alphas)


CHILD = textwrap.dedent("""
    import os, signal, sys
    import numpy as np
    from confboost import BoostClassifier
    from confboost.training.checkpoint import Checkpoint
    path, out, kill_at = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 5))
    y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=300), [-0.5, 0.5])

    def kill(round_index, record):
        if round_index == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    clf = BoostClassifier(15, scheme="mr").fit(X, y, callbacks=[Checkpoint(path, every=2), kill])
    clf.save(out)
""")


def test_sigkill_at_a_random_round_then_resume_is_bit_identical(tmp_path):
    kill_at = int(np.random.default_rng().integers(1, 14))
    path, out, whole = (str(tmp_path / name) for name in ("run.ckpt", "m.json", "w.json"))
    run = [sys.executable, "-c", CHILD, path]
    killed = subprocess.run([*run, out, str(kill_at)], env=child_env(), capture_output=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()[-2000:]
    assert not os.path.exists(out)
    resumed = subprocess.run([*run, out, "-1"], env=child_env(), capture_output=True)
    assert resumed.returncode == 0, resumed.stderr.decode()[-2000:]
    os.remove(path)
    fresh = subprocess.run([*run, whole, "-1"], env=child_env(), capture_output=True)
    assert fresh.returncode == 0, fresh.stderr.decode()[-2000:]
    with open(out) as one, open(whole) as two:
        assert json.load(one) == json.load(two), f"killed at round {kill_at}"


@pytest.mark.parametrize("kind", ["eval_set", "validation_fraction", "scorer"])
def test_a_resumed_fit_with_early_stopping_is_the_uninterrupted_fit(tmp_path, kind):
    # the held-out records replay the restored rounds: the scores, the stopping round and
    # best_iteration_ are those of one run
    Xv, yv = X[:100] + 0.1, Y3[:100]
    params = {"n_iter_no_change": 6, "random_state": 0}
    fit = {}
    if kind == "eval_set":
        fit = {"eval_set": [(Xv, yv), (X[100:], Y3[100:])], "eval_names": ["dev", "test"]}
    elif kind == "validation_fraction":
        params["early_stopping"] = True
    else:
        params["scoring"] = "neg_log_loss"
        fit = {"eval_set": [(Xv, yv)]}
    whole = BoostClassifier(60, **params).fit(X, Y3, **fit)
    assert 6 < whole.n_iter_ < 60  # stopped by the rule
    for stop in (1, whole.n_iter_ - 1):  # early on; at the stopping round
        path = tmp_path / f"{kind}{stop}.ckpt"
        with pytest.raises(Stop):
            BoostClassifier(60, **params).fit(
                X, Y3, callbacks=[Checkpoint(path, every=1), stop_at(stop)], **fit)
        resumed = BoostClassifier(60, **params).fit(X, Y3, callbacks=[Checkpoint(path)],
                                                    **fit)
        assert document(resumed) == document(whole)
        assert resumed.best_iteration_ == whole.best_iteration_
        assert resumed.n_iter_ == whole.n_iter_
        np.testing.assert_array_equal(resumed.validation_score_, whole.validation_score_)
        np.testing.assert_array_equal(resumed.train_score_, whole.train_score_)
        assert resumed.evals_result_ == whole.evals_result_
        assert resumed.best_score_ == whole.best_score_
        np.testing.assert_array_equal(resumed.predict_proba(X), whole.predict_proba(X))


def test_a_run_that_had_stopped_resumes_to_no_more_rounds(tmp_path):
    params = {"n_iter_no_change": 3, "random_state": 0}
    fit = {"eval_set": [(X[:100] + 0.1, Y3[:100])]}
    path = tmp_path / "done.ckpt"
    whole = BoostClassifier(60, **params).fit(X, Y3, callbacks=[Checkpoint(path, every=1)],
                                              **fit)
    assert whole.n_iter_ < 60  # stopped by the rule, its last round saved
    rounds = []
    again = BoostClassifier(60, **params).fit(
        X, Y3, callbacks=[Checkpoint(path), lambda i, r: rounds.append(i)], **fit)
    assert rounds == [] and again.n_iter_ == whole.n_iter_
    assert document(again) == document(whole)


class Objectives:
    """A caller's per-round list, appended before the checkpoint's turn."""

    order = -200

    def __init__(self):
        self.values = []

    def after_iteration(self, env):
        self.values.append(float(env.record["z"]) / 2)
        return False


def _rewrite_version(path, version, drop=()):
    with np.load(path) as stored:
        members = {name: stored[name] for name in stored.files}
    text = json.loads(str(members["document"]))
    text["version"] = version
    for key in drop:
        del text["extras"][key]
    text = json.dumps(text)
    members["document"] = np.array(text)
    members["checksum"] = np.array(_checksum(text, members))
    with open(path, "wb") as handle:
        np.savez(handle, **members)


def test_a_callers_per_round_list_is_saved_and_put_back_in_place(tmp_path):
    path = tmp_path / "run.ckpt"
    whole = Objectives()
    BoostClassifier(9).fit(X, Y3, callbacks=[whole])
    first = Objectives()
    with pytest.raises(Stop):
        BoostClassifier(9).fit(X, Y3, callbacks=[
            first, Checkpoint(path, every=2, per_round={"half_z": first.values}),
            stop_at(5)])
    again = Objectives()
    keep = again.values
    BoostClassifier(9).fit(X, Y3, callbacks=[
        again, Checkpoint(path, every=2, per_round={"half_z": again.values})])
    assert again.values is keep and again.values == whole.values


def test_a_per_round_list_that_lags_is_refused_when_saving(tmp_path):
    lagging = []
    with pytest.raises(ValueError, match=r"per_round\['late'\] holds 0 entries after 1 "):
        BoostClassifier(3).fit(X, Y3, callbacks=[
            Checkpoint(tmp_path / "a.ckpt", every=1, per_round={"late": lagging})])
    with pytest.raises(ValueError, match="per_round: 'thresholds' must name a list"):
        Checkpoint(tmp_path / "a.ckpt", per_round={"thresholds": []})


def test_version_1_checkpoints_resume_a_run_that_keeps_no_list(tmp_path):
    path = tmp_path / "run.ckpt"
    whole = BoostClassifier(8).fit(X, Y3)
    with pytest.raises(Stop):
        BoostClassifier(8).fit(X, Y3, callbacks=[Checkpoint(path, every=2), stop_at(5)])
    _rewrite_version(path, 1)
    clf = BoostClassifier(8).fit(X, Y3, callbacks=[Checkpoint(path, every=2)])
    assert document(clf) == document(whole)
    _rewrite_version(path, 1)
    with pytest.raises(ValueError, match=rf"{path}: extras\['wh_err'\]: missing, the run"):
        BoostClassifier(8).fit(X, Y3, callbacks=[Checkpoint(path, per_round={"wh_err": []})])
    for version in (3, 1.0, True, "2"):
        _rewrite_version(path, version)
        with pytest.raises(ValueError, match=rf"{path}: version: must be one of \(1, 2\)"):
            BoostClassifier(8).fit(X, Y3, callbacks=[Checkpoint(path)])


def test_a_fit_interrupted_while_calibrating_resumes_to_the_same_model(tmp_path, monkeypatch):
    from confboost.training import fit_runs

    params = {"early_stopping": True, "validation_fraction": 0.25, "n_iter_no_change": 3}
    whole = BoostClassifier(10, **params).fit(X, Y3)
    path = tmp_path / "run.ckpt"

    def killed(*args, **kwargs):
        raise Stop

    with monkeypatch.context() as patch:
        patch.setattr(fit_runs.Fit, "calibrate", killed)
        with pytest.raises(Stop):
            BoostClassifier(10, **params).fit(X, Y3, callbacks=[Checkpoint(path, every=1)])
    clf = BoostClassifier(10, **params).fit(X, Y3, callbacks=[Checkpoint(path, every=1)])
    assert document(clf) == document(whole)
    np.testing.assert_array_equal(clf.predict_proba(X), whole.predict_proba(X))


@pytest.mark.parametrize("entries", [[0.5], [True, False, True, False], [0.5] * 5])
def test_a_per_round_list_of_other_length_or_flags_is_refused(tmp_path, entries):
    path = tmp_path / "run.ckpt"
    kept = Objectives()
    with pytest.raises(Stop):
        BoostClassifier(8).fit(X, Y3, callbacks=[
            kept, Checkpoint(path, every=4, per_round={"half_z": kept.values}), stop_at(4)])
    with np.load(path) as stored:
        members = {name: stored[name] for name in stored.files}
    text = json.loads(str(members["document"]))
    text["extras"]["half_z"] = entries
    text = json.dumps(text)
    members["document"] = np.array(text)
    members["checksum"] = np.array(_checksum(text, members))
    with open(path, "wb") as handle:
        np.savez(handle, **members)
    again = Objectives()
    wanted = rf"{path}: extras\['half_z'\]: must have 4 (entries|numbers)"
    with pytest.raises(ValueError, match=wanted):
        BoostClassifier(8).fit(X, Y3, callbacks=[
            again, Checkpoint(path, per_round={"half_z": again.values})])
