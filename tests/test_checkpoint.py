"""Checkpoints: a run killed at any round and resumed gives the uninterrupted model, bit for
bit (issue 14, item 4)."""

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
from confboost.training.checkpoint import Checkpoint

from .test_fit_atomic import child_env

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


def test_a_loop_that_does_not_know_checkpoints_refuses_one(tmp_path):
    # e.g. a fit that passes its callbacks straight to the loop: no silent run without them
    with pytest.raises(ValueError, match="does not save checkpoints"):
        Checkpoint(tmp_path / "c")(0, {})


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
