"""Checkpoints of a fit on the cluster: the local ``Checkpoint`` file, with what rebuilds the
shards' state in place of the state itself.

On one machine a checkpoint saves the scheme's state arrays (D or v, and f). On the
cluster they are on the shards, one piece a worker, so the checkpoint saves what makes
them instead: every change the run made to the shards' schemes through its reducer
(``Reducer.apply``: the scheme's step function and its arguments, the round's blocks
among them), recorded by ``RecordingReducer`` (not the calls that only read the shards,
``READS``: MR's pair masses and multi-label cut histograms). Those arguments are numbers and small
arrays (a round's update factors) and the values the reducer keeps on the shards (a
round's blocks: the function that makes them from a shard's rows and its arguments, a
stump's feature row and threshold bin, a tree's node arrays). A resume makes those values
again through the reducer's ``rows`` and replays the changes on every shard in one
``apply``: each shard's D, f (and MR's v) are then those the recorded rounds left on
its rows, by the same operations in the same order, and the later rounds are the
uninterrupted fit's (to rounding where the new fit places the partitions on other
workers, as any two fits may). The rounds' training blocks are saved too, so the
training cover of the restored rounds is summed after the run as the others' are.

Only functions of a fixed list are read back from a file (``FUNCTIONS``: the schemes'
shard steps and the learners' block functions); a file naming another is refused.
"""

import types

import numpy as np

from confboost.dask.cluster_label_trees import label_tree_blocks
from confboost.dask.collective import tree_code_blocks
from confboost.engine.callbacks import TrainingCallback
from confboost.engine.learners.categorical import value_blocks
from confboost.engine.learners.product import product_blocks, product_term_signs, sign_patterns
from confboost.engine.learners.stump import stump_train_blocks
from confboost.engine.learners.term import term_blocks
from confboost.engine.schemes.mh import apply_round
from confboost.engine.schemes.mr import block_pair_masses, pair_normalise, pair_round
from confboost.engine.schemes.mr_cut import cut_histograms
from confboost.training.checkpoint import Checkpoint, run_fingerprint

#: The functions a checkpoint of a cluster fit may name: the schemes' steps on a shard
#: (``Reducer.apply``) and the functions of the values kept on the shards (``Reducer.rows``).
FUNCTIONS = {f"{function.__module__}:{function.__qualname__}": function for function in (
    apply_round, pair_round, pair_normalise, block_pair_masses, stump_train_blocks,
    value_blocks, term_blocks, product_term_signs, product_blocks, sign_patterns,
    tree_code_blocks, label_tree_blocks)}

#: The schemes' ``Reducer.apply`` functions that change no shard's state: a resume has
#: nothing to replay for them, so they are not recorded (``block_pair_masses`` stays in
#: ``FUNCTIONS`` for the checkpoints that recorded it).
READS = frozenset((block_pair_masses, cut_histograms))


class RecordingReducer:
    """A reducer that passes every call to ``inner`` and keeps the changes (``apply``, but
    ``READS``) and how each value kept on the shards (``rows``) was made.

    Parameters
    ----------
    inner : Reducer
    """

    def __init__(self, inner):
        self.inner = inner
        self.steps = []  # (function, args) of every change, in order
        self.made = {}  # id of a value of ``rows`` -> (value, function, args)
        self.blocks = []  # each round's (training blocks, product sign patterns)

    def sum(self, function, dataset, weights, labels, *args, out=None):
        return self.inner.sum(function, dataset, weights, labels, *args, out=out)

    def rows(self, function, dataset, *args):
        value = self.inner.rows(function, dataset, *args)
        self.made[id(value)] = (value, function, args)
        return value

    def apply(self, function, scheme, *args):
        if function not in READS:
            self.steps.append((function, args))
        return self.inner.apply(function, scheme, *args)

    def kept(self, value):
        """(function, args) that made ``value`` if the reducer keeps it on the shards:
        one of ``rows``', or a recipe of a round on the shards (``collective.OnShards``:
        its ``function`` and ``args``); None for a plain value."""
        made = self.made.get(id(value))
        if made is not None and made[0] is value:
            return made[1:]
        if callable(getattr(value, "function", None)) and isinstance(
                getattr(value, "args", None), (tuple, list)):
            return value.function, tuple(value.args)
        return None


class RoundBlocks(TrainingCallback):
    """Keeps each round's training blocks (and a product's sign patterns) on the run's
    ``RecordingReducer``, for its checkpoints.

    Parameters
    ----------
    recorder : RecordingReducer
    """

    #: Before the checkpoint's save (``Checkpoint.order``).
    order = -150

    def __init__(self, recorder):
        self.recorder = recorder

    def after_iteration(self, env):
        fit = env.record["fit"]
        self.recorder.blocks.append((fit.train_blocks, getattr(fit, "train_patterns", None)))
        return False


class Encoder:
    """Values as JSON data and arrays (``encode``) and back (``decode``).

    Parameters
    ----------
    recorder : RecordingReducer
    """

    def __init__(self, recorder):
        self.recorder = recorder
        self.arrays = {}

    def encode(self, value):
        made = self.recorder.kept(value)
        if made is not None:
            return {"kept": _name(made[0]), "args": [self.encode(arg) for arg in made[1]]}
        if callable(value):
            return {"function": _name(value)}
        if isinstance(value, np.ndarray) or (isinstance(value, float)
                                              and not np.isfinite(value)):
            name = str(len(self.arrays))
            self.arrays[name] = np.asarray(value)
            return {"array": name}
        if isinstance(value, np.generic):
            return self.encode(value.item())
        if isinstance(value, (tuple, list)):
            return {"list": [self.encode(item) for item in value]}
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        raise ValueError(f"a checkpoint cannot hold a {type(value).__name__} among a "
                         "cluster fit's steps")

    def decode(self, data, dataset, arrays):
        """A value of ``encode`` (from an untrusted file): kept values made again through
        the recorder's ``rows`` on ``dataset``; ValueError naming what is wrong."""
        if not isinstance(data, dict):
            if data is None or isinstance(data, (bool, int, float, str)):
                return data
            raise ValueError(f"beside: {type(data).__name__} is not a saved value")
        if set(data) == {"kept", "args"} and isinstance(data["args"], list):
            return self.recorder.rows(_function(data["kept"]), dataset,
                                      *[self.decode(arg, dataset, arrays)
                                        for arg in data["args"]])
        if set(data) == {"function"}:
            return _function(data["function"])
        if set(data) == {"array"}:
            if data["array"] not in arrays:
                raise ValueError(f"beside: array {data['array']!r} is missing")
            array = arrays[data["array"]]
            return float(array) if array.shape == () else array
        if set(data) == {"list"} and isinstance(data["list"], list):
            return tuple(self.decode(item, dataset, arrays) for item in data["list"])
        raise ValueError(f"beside: {sorted(data)!r} is not a saved value")


def _name(function):
    name = f"{function.__module__}:{function.__qualname__}"
    if FUNCTIONS.get(name) is not function:
        raise ValueError(f"a checkpoint cannot name {name} among a cluster fit's steps")
    return name


def _function(name):
    if not isinstance(name, str) or name not in FUNCTIONS:
        raise ValueError(f"beside: {name!r} is not a function a checkpoint may name")
    return FUNCTIONS[name]


def replay_steps(scheme, plan, *kept):
    """A shard's scheme changed by the recorded steps, in order: ``plan`` holds each
    step's function and arguments, an argument ``("kept", i)`` being ``kept[i]`` (this
    shard's part of a value kept on the shards)."""
    for function, args in plan:
        function(scheme, *[kept[arg[1]] if isinstance(arg, tuple) and arg[:1] == ("kept",)
                           else arg for arg in args])
    return 0.0


class ClusterCheckpoint(Checkpoint):
    """The ``Checkpoint`` of a run on the cluster (see the module docstring).

    Parameters
    ----------
    checkpoint : Checkpoint
        The user's: its file, period and per-round lists.
    recorder : RecordingReducer
        The run's reducer.
    cover : ClusterCover
        The run's cover callback: the restored rounds' blocks are handed to it.
    token : str
        The training collections' token (``ShardedInputs.token``), part of the fingerprint.
    """

    def __init__(self, checkpoint, recorder, cover, token):
        super().__init__(checkpoint.path, checkpoint.every, checkpoint.per_round)
        self.recorder = recorder
        self.cover = cover
        self.token = token
        self._saved = None

    def _run_fingerprint(self, run):
        header = run.dataset
        parts = [self.token, np.asarray(header.n_bins), np.asarray(header.numeric_columns)]
        if header.bin_mapper is not None:
            parts += [np.asarray(t, dtype=np.float64) for t in header.bin_mapper.thresholds_]
        parts += [[column.column, list(column.values)] for column in header.categorical]
        parts += [[column.column, list(column.terms)] for column in header.text]
        return run_fingerprint(*parts, *run.identity, run.smoothing)

    def before_training(self, env):
        run = env.run
        fresh = not run.hypotheses
        done = super().before_training(env)
        if fresh and run.hypotheses:  # restored: the shards' state made again
            encoder = Encoder(self.recorder)
            data, arrays = self._saved
            steps = [encoder.decode(step, run.dataset, arrays) for step in data["steps"]]
            blocks = [encoder.decode(each, run.dataset, arrays) for each in data["blocks"]]
            if len(blocks) != len(run.hypotheses) or not all(
                    isinstance(step, tuple) and len(step) == 2 and callable(step[0])
                    and isinstance(step[1], tuple) for step in steps) or not all(
                    isinstance(each, tuple) and len(each) == 2 for each in blocks):
                raise ValueError(f"{self.path}: beside: must hold the steps and the blocks "
                                 f"of {len(run.hypotheses)} rounds")
            self.recorder.inner.change(replay_steps, *self._plan(steps))
            self.recorder.steps[:0] = steps
            self.recorder.blocks[:0] = blocks
            self.cover.fits[:0] = [types.SimpleNamespace(hypothesis=hypothesis,
                                                         train_blocks=train_blocks,
                                                         train_patterns=patterns)
                                   for hypothesis, (train_blocks, patterns)
                                   in zip(run.hypotheses, blocks, strict=True)]
        return done

    def _plan(self, steps):
        """``replay_steps``' arguments for ``steps``: the plan, then the values kept on
        the shards among their arguments (top-level arguments: each shard reads its part)."""
        kept, plan = [], []
        for function, args in steps:
            marked = []
            for arg in args:
                if self.recorder.kept(arg) is None:
                    marked.append(arg)
                else:
                    marked.append(("kept", len(kept)))
                    kept.append(arg)
            plan.append((function, marked))
        return (plan, *kept)

    def _saved_beside(self, run):
        encoder = Encoder(self.recorder)
        data = {"steps": [encoder.encode(step) for step in self.recorder.steps],
                "blocks": [encoder.encode(each) for each in self.recorder.blocks]}
        return data, encoder.arrays

    def _restore_beside(self, data, arrays):
        if not (isinstance(data, dict) and isinstance(data.get("steps"), list)
                and isinstance(data.get("blocks"), list)):
            raise ValueError("beside: a checkpoint of a cluster fit holds the steps and "
                             "blocks of its rounds")
        self._saved = (data, arrays)
