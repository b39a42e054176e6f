"""A fit is all or nothing and a save is atomic."""

import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import confboost
from confboost import BoostClassifier
from confboost.utils.files import write_atomic
from tests.helpers import child_env

RNG = np.random.default_rng(1)
X = RNG.normal(size=(80, 5))
Y = (X[:, 0] + X[:, 1] > 0).astype(int)
Y3 = np.digitize(X[:, 2], [-0.4, 0.4])


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


def test_the_estimator_is_unchanged_until_the_fit_ends():
    # every fitted attribute appears in one step: a callback sees the estimator as it was
    clf = BoostClassifier(6).fit(X, Y)
    before = snapshot(clf)
    seen = []

    def look(round_index, record):
        seen.append(clf.__dict__ == before and all(clf.__dict__[k] is v
                                                   for k, v in before.items()))
    clf.fit(X[:, :4], Y3, callbacks=[look])
    assert seen == [True] * 6
    assert clf.n_features_in_ == 4 and list(clf.classes_) == [0, 1, 2]


def test_a_pickle_taken_mid_fit_is_fitted_only_if_it_predicts():
    import pickle

    from sklearn.utils.validation import check_is_fitted

    clf = BoostClassifier(8)
    pickles = []
    clf.fit(X, Y, callbacks=[lambda i, r: pickles.append(pickle.dumps(clf))])
    for data in pickles:  # the first fit: never fitted mid-fit
        with pytest.raises(NotFittedError):
            check_is_fitted(pickle.loads(data))
    expected = clf.predict_proba(X)
    pickles.clear()
    clf.set_params(scheme="mo", random_state=0).fit(
        X, Y3, callbacks=[lambda i, r: pickles.append(pickle.dumps(clf))])
    for data in pickles:  # a refit: the previous model, whole
        old = pickle.loads(data)
        check_is_fitted(old)
        np.testing.assert_array_equal(old.predict_proba(X), expected)


def test_a_thread_predicting_during_refits_sees_one_model_or_the_other():
    import threading

    # two fits that share nothing: classes, scheme, code, columns read
    first = {"n_estimators": 30, "scheme": "mh"}
    second = {"n_estimators": 30, "scheme": "mo", "code_length": 5, "random_state": 0}
    answers = [BoostClassifier(**first).fit(X, Y).predict_proba(X),
               BoostClassifier(**second).fit(X, Y3).predict_proba(X)]
    clf = BoostClassifier(**first).fit(X, Y)
    stop, failures, outcomes = threading.Event(), [], set()

    def predict_until_stopped():
        while not stop.is_set():
            try:
                p = clf.predict_proba(X)
            except Exception as error:  # AttributeError, IndexError: a half-fitted model
                failures.append(repr(error))
                return
            match = [i for i, a in enumerate(answers)
                     if a.shape == p.shape and np.array_equal(a, p)]
            if not match:
                failures.append(f"an answer of neither model, shape {p.shape}")
                return
            outcomes.add(match[0])

    thread = threading.Thread(target=predict_until_stopped)
    thread.start()
    try:
        for _ in range(3):
            clf.set_params(**second).fit(X, Y3)
            clf.set_params(**first, code_length=None, random_state=None).fit(X, Y)
    finally:
        stop.set()
        thread.join()
    assert failures == []
    assert outcomes  # the thread did predict
