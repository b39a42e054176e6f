"""A fit is all or nothing and a save is atomic (issue 14, items 2 and 3)."""

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import confboost
from confboost import BoostClassifier
from confboost.utils.files import write_atomic

RNG = np.random.default_rng(1)
X = RNG.normal(size=(80, 5))
Y = (X[:, 0] + X[:, 1] > 0).astype(int)
Y3 = np.digitize(X[:, 2], [-0.4, 0.4])


def child_env():
    """The environment of a child Python that imports this very confboost."""
    source = str(Path(confboost.__file__).parents[1])
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        [source, *filter(None, [os.environ.get("PYTHONPATH")])])}


def snapshot(estimator):
    return dict(estimator.__dict__)


def assert_unchanged(estimator, before, X_check):
    assert estimator.__dict__.keys() == before.keys()
    for key, value in before.items():
        assert estimator.__dict__[key] is value, key


@pytest.fixture
def ctrl_c_raises():
    """SIGINT raises KeyboardInterrupt during the test, as at a terminal.

    A suite started as a background job of a non-interactive shell inherits SIGINT ignored;
    without this the interrupt would never arrive and the tests would fail for the shell's
    sake, not the code's.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def interrupt_at(round_wanted):
    """A callback that sends this process SIGINT at a round (Ctrl-C mid-fit)."""
    def callback(round_index, record):
        if round_index == round_wanted:
            os.kill(os.getpid(), signal.SIGINT)
    return callback


def test_a_refit_that_raises_keeps_the_previous_model():
    clf = BoostClassifier(10).fit(X, Y)
    before, scores = snapshot(clf), clf.decision_function(X)
    with pytest.raises(ValueError, match="non-zero"):
        clf.fit(X[:, :3], Y3, sample_weight=np.zeros(len(Y3)))
    assert_unchanged(clf, before, X)
    np.testing.assert_array_equal(clf.decision_function(X), scores)
    assert clf.n_features_in_ == 5 and list(clf.classes_) == [0, 1]


@pytest.mark.parametrize("first", [True, False])
def test_sigint_mid_fit_leaves_the_estimator_as_it_was(first, ctrl_c_raises):
    clf = BoostClassifier(20, scheme="mr", weak_learner="tree", max_leaves=3)
    if not first:
        clf.fit(X, Y)
    before = snapshot(clf)
    scores = None if first else clf.decision_function(X)
    with pytest.raises(KeyboardInterrupt):
        clf.fit(X[:, :4], Y3, callbacks=[interrupt_at(5)])
    assert_unchanged(clf, before, X)
    if first:
        with pytest.raises(NotFittedError):
            clf.predict(X)
    else:
        np.testing.assert_array_equal(clf.decision_function(X), scores)
    # and the estimator still fits afterwards
    assert clf.fit(X[:, :4], Y3).n_features_in_ == 4


def test_an_interrupted_mixed_fit_keeps_the_numeric_model(ctrl_c_raises):
    pd = pytest.importorskip("pandas")
    clf = BoostClassifier(5).fit(X, Y)
    before = snapshot(clf)
    table = pd.DataFrame({"colour": np.where(Y > 0, "red", "blue"), "size": X[:, 0]})
    with pytest.raises(KeyboardInterrupt):
        clf.fit(table, Y, callbacks=[interrupt_at(1)])
    assert_unchanged(clf, before, X)
    assert not hasattr(clf, "encoder_")


def test_write_atomic_keeps_the_old_file_when_the_write_fails(tmp_path):
    path = tmp_path / "model.json"
    path.write_text("old")

    with pytest.raises(TypeError):
        write_atomic(path, 12345)  # not text: fails mid-write
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json"]
    write_atomic(path, "new")
    assert path.read_text() == "new"


def test_a_save_killed_mid_write_leaves_the_previous_model(tmp_path):
    # The child saves a good model, then is killed with SIGKILL while writing a second one
    # (its write blocks on a pipe-backed hook): the good file stays loadable.
    path = tmp_path / "model.json"
    BoostClassifier(5).fit(X, Y).save(path)
    good = path.read_bytes()
    child = textwrap.dedent(f"""
        import os, sys, time
        import numpy as np
        import confboost.utils.files as files
        from confboost import BoostClassifier
        def stall(fd):
            print("writing", flush=True)
            time.sleep(60)
        files.os.fsync = stall
        rng = np.random.default_rng(2)
        X = rng.normal(size=(50, 3))
        BoostClassifier(3).fit(X, X[:, 0] > 0).save({str(path)!r})
    """)
    process = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE,
                               text=True, env=child_env())
    assert process.stdout.readline().strip() == "writing"
    process.kill()
    process.wait()
    assert path.read_bytes() == good
    confboost.load(path)
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "model.json"]
    assert all(name.startswith(".model.json.") for name in leftovers)
