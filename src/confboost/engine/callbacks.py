"""The training-callback protocol: what the boosting loop calls, when, and with what.

As LightGBM's and XGBoost's callbacks, a callback is an object with up to three hooks, each
given a ``CallbackEnv``:

- ``before_training(env)``: once, before the first round of a call to ``BoostingRun.run``
  (a checkpoint restores the run here, a held-out record replays the rounds already run);
  returning True says the run has nothing left to do (a restored run that had stopped);
- ``after_iteration(env)``: after every round; returning True stops the loop once every
  callback has seen the round (XGBoost's rule);
- ``after_training(env)``: once, after the last round of the call.

Callbacks run in ascending ``order`` (LightGBM's attribute; 0 when absent), and in the order
given among equal ``order``. ``TrainingCallback`` is a base class with hooks that do nothing;
an object need not derive from it, any of the three methods is enough.

A plain function is a callback too, called after every round, and chosen by its signature:

- ``f(round_index, record)`` (two parameters): the round's index (0-based) and its record
  (a dict of the history keys of ``boosting.HISTORY_KEYS`` and ``"fit"``, the round's
  ``PartitionFit``);
- ``f(env)`` (one parameter, LightGBM's form): the ``CallbackEnv``.

Either returns True to stop the loop. A callable whose signature cannot be read is taken as
the two-parameter form.
"""

import inspect
from dataclasses import dataclass, field

#: The hooks of the protocol, in the order a run calls them.
HOOKS = ("before_training", "after_iteration", "after_training")


@dataclass
class CallbackEnv:
    """What each hook of a callback is given (LightGBM's ``CallbackEnv``).

    Attributes
    ----------
    run : BoostingRun
        The run so far: ``run.hypotheses``, ``run.alphas``, ``run.history``, ``run.scheme``
        (whose ``scores`` are f on the training rows) and ``run.dataset``.
    round_index : int
        ``after_iteration``: the round just run, 0-based. ``before_training``: the number
        of rounds already run (0, or more for a warm start or a restored run).
        ``after_training``: the number of rounds run in all.
    begin_round, end_round : int
        The first round of this call (0, or the rounds a warm start or a checkpoint brought)
        and the number of rounds asked for in all.
    record : dict or None
        ``after_iteration`` only: the round's record, the history keys and ``"fit"``.
    evals_result : dict of str to dict of str to list of float
        The scores on each evaluation set so far, by set name and metric name
        (``evals_result_`` of the estimator); filled by the held-out records.
    estimator : object or None
        The estimator being fitted, as a fitted view with the attributes a fit knows
        before its rounds (``classes_``, ``n_features_in_``, ``encoder_``, ``code_``, ...)
        but no model yet; None when the loop runs outside an estimator.
    """

    run: object
    round_index: int
    begin_round: int
    end_round: int
    record: dict | None = None
    evals_result: dict = field(default_factory=dict)
    estimator: object = None

    @property
    def model(self):
        """The model of the rounds run so far (``BoostedModel``), built when asked."""
        return self.run.model()


class TrainingCallback:
    """A base class for callbacks, with hooks that do nothing (XGBoost's ``TrainingCallback``).

    Attributes
    ----------
    order : int
        Callbacks run in ascending order (LightGBM's ``order``).
    """

    order = 0

    def before_training(self, env):
        """Before the first round of a run. Returns True when no round is left to run."""
        return False

    def after_iteration(self, env):
        """After each round. Returns True to stop the loop."""
        return False

    def after_training(self, env):
        """After the last round of a run."""


class FunctionCallback(TrainingCallback):
    """A plain function as a callback: ``f(round_index, record)`` or ``f(env)``.

    Parameters
    ----------
    function : callable
    takes_env : bool
        Whether ``function`` takes the ``CallbackEnv`` (one parameter).
    """

    def __init__(self, function, takes_env):
        self.function = function
        self.takes_env = takes_env
        self.order = getattr(function, "order", 0)

    def after_iteration(self, env):
        if self.takes_env:
            return self.function(env)
        return self.function(env.round_index, env.record)


def takes_env(function):
    """Whether a plain callable takes one parameter (the env), not two (index, record).

    Raises
    ------
    TypeError
        When it takes neither one nor two positional arguments.
    """
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # builtins without a signature: the documented form
        return False
    positional = [p for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    variadic = any(p.kind is p.VAR_POSITIONAL for p in signature.parameters.values())
    if len(required) == 1 and not variadic:
        return True
    if len(required) <= 2 and (len(positional) >= 2 or variadic):
        return False
    raise TypeError(f"a callback function takes (round_index, record) or (env); "
                    f"{function!r} takes {signature}")


def as_callback(callback):
    """``callback`` as an object of the protocol: itself when it has a hook, a
    ``FunctionCallback`` when it is a plain callable.

    Raises
    ------
    TypeError
        When it is neither.
    """
    if any(callable(getattr(callback, hook, None)) for hook in HOOKS):
        return callback
    if callable(callback):
        return FunctionCallback(callback, takes_env(callback))
    raise TypeError(f"a callback is a callable or an object with {', '.join(HOOKS)}; "
                    f"got {callback!r}")


class CallbackList:
    """The callbacks of a run, sorted by ``order``, each hook called on all of them.

    Parameters
    ----------
    callbacks : iterable
        Callbacks and plain functions (``as_callback``).
    """

    def __init__(self, callbacks=()):
        callbacks = [as_callback(callback) for callback in callbacks]
        self.callbacks = sorted(callbacks, key=lambda c: getattr(c, "order", 0))

    def _call(self, hook, env):
        stop = False
        for callback in self.callbacks:
            method = getattr(callback, hook, None)
            if method is not None:
                stop = bool(method(env)) or stop
        return stop

    def before_training(self, env):
        """Every callback's ``before_training``; True when one says no round is left."""
        return self._call("before_training", env)

    def after_iteration(self, env):
        """Every callback's ``after_iteration``; True when one asks to stop."""
        return self._call("after_iteration", env)

    def after_training(self, env):
        """Every callback's ``after_training``."""
        self._call("after_training", env)
