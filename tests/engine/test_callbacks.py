"""The training-callback protocol (engine/callbacks.py): hooks, order, environment, and the
plain-function forms."""

import numpy as np
import pytest

from confboost import BoostClassifier
from confboost.engine.boosting import HISTORY_KEYS
from confboost.engine.callbacks import (
    CallbackEnv,
    CallbackList,
    FunctionCallback,
    TrainingCallback,
    as_callback,
    takes_env,
)

RNG = np.random.default_rng(3)
X = RNG.normal(size=(120, 4))
Y = np.digitize(X[:, 0] + 0.3 * RNG.normal(size=120), [-0.4, 0.4])


class Log(TrainingCallback):
    """Writes every hook call to a shared list."""

    def __init__(self, name, log, order=0, stop_at=None):
        self.name, self.log, self.order, self.stop_at = name, log, order, stop_at

    def before_training(self, env):
        self.log.append((self.name, "before", env.round_index, env.begin_round, env.end_round))
        return False

    def after_iteration(self, env):
        self.log.append((self.name, "after", env.round_index))
        return env.round_index == self.stop_at

    def after_training(self, env):
        self.log.append((self.name, "end", env.round_index))


def test_hooks_run_in_order_and_a_true_after_iteration_stops_after_every_callback_saw_it():
    log = []
    callbacks = [Log("late", log, order=5), Log("early", log, order=-5, stop_at=2),
                 Log("middle", log)]
    clf = BoostClassifier(10).fit(X, Y, callbacks=callbacks)
    assert len(clf.model_) == 3  # stopped after round index 2
    assert log[:3] == [("early", "before", 0, 0, 10), ("middle", "before", 0, 0, 10),
                       ("late", "before", 0, 0, 10)]
    assert log[3:6] == [("early", "after", 0), ("middle", "after", 0), ("late", "after", 0)]
    assert [entry[0] for entry in log if entry[1] == "after" and entry[2] == 2] == [
        "early", "middle", "late"]  # the round that stops is seen by all
    assert log[-3:] == [("early", "end", 3), ("middle", "end", 3), ("late", "end", 3)]


def test_equal_orders_keep_the_order_given():
    log = []
    names = ["c", "a", "b"]
    BoostClassifier(2).fit(X, Y, callbacks=[Log(name, log) for name in names])
    assert [entry[0] for entry in log if entry[1] == "before"] == names


def test_the_environment_holds_the_run_its_model_the_record_and_the_results():
    seen = []

    class Look(TrainingCallback):
        def after_iteration(self, env):
            assert isinstance(env, CallbackEnv)
            assert set(HISTORY_KEYS) <= set(env.record) and "fit" in env.record
            assert len(env.run.hypotheses) == env.round_index + 1
            assert len(env.model) == env.round_index + 1
            # the estimator view knows the classes before the end of the fit, not the model
            assert list(env.estimator.classes_) == [0, 1, 2]
            assert not hasattr(env.estimator, "model_")
            seen.append((env.round_index, env.model.decision_function(X),
                         {name: {m: list(v) for m, v in sets.items()}
                          for name, sets in env.evals_result.items()}))
            return False

    clf = BoostClassifier(5, early_stopping=False).fit(X, Y, callbacks=[Look()],
                                                       eval_set=[(X[:40], Y[:40])])
    staged = list(clf.staged_decision_function(X))
    for (round_index, f, results), expected in zip(seen, staged, strict=True):
        np.testing.assert_allclose(f, expected)
        # the records (order -50) have scored this round before the user's callbacks
        assert len(results["valid_0"]["loss"]) == round_index + 1
    assert len(clf.evals_result_["valid_0"]["loss"]) == 5


def test_a_plain_function_and_a_one_argument_callback_both_work():
    plain, one = [], []

    def with_env(env):
        one.append(env.round_index)
        return env.round_index == 3

    clf = BoostClassifier(8).fit(X, Y, callbacks=[lambda i, record: plain.append(
        (i, record["z"])), with_env])
    assert one == [0, 1, 2, 3] and len(clf.model_) == 4
    assert [i for i, _ in plain] == [0, 1, 2, 3]
    np.testing.assert_array_equal([z for _, z in plain], clf.history_["z"])


def test_a_function_is_told_apart_by_its_signature():
    def two(round_index, record):
        return None

    def one(env):
        return None

    def with_default(round_index, record, extra=None):
        return None

    def star(*args):
        return None

    assert takes_env(one) and not takes_env(two) and not takes_env(with_default)
    assert not takes_env(star)
    assert not takes_env(print)  # no signature: the documented (round_index, record) form
    with pytest.raises(TypeError, match=r"takes \(round_index, record\) or \(env\)"):
        takes_env(lambda a, b, c: None)
    with pytest.raises(TypeError, match="a callback is a callable"):
        as_callback(3)
    assert isinstance(as_callback(one), FunctionCallback)
    marked = Log("x", [])
    assert as_callback(marked) is marked


def test_an_object_with_some_hooks_only_is_a_callback():
    calls = []

    class OnlyEnd:
        order = 1

        def after_training(self, env):
            calls.append(env.round_index)

    BoostClassifier(3).fit(X, Y, callbacks=[OnlyEnd()])
    assert calls == [3]


def test_a_function_order_attribute_is_honoured():
    log = []

    def first(i, record):
        log.append("first")

    def second(i, record):
        log.append("second")
    first.order = -1
    callbacks = CallbackList([second, first])
    env = CallbackEnv(None, 0, 0, 1, {})
    callbacks.after_iteration(env)
    assert log == ["first", "second"]
