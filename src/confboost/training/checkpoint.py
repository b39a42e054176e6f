"""Checkpoints of the boosting loop: save its state every N rounds, resume after a crash.

A ``Checkpoint`` is a training callback (``engine/callbacks.py``). Every ``every`` rounds
it writes everything the loop (``boosting.BoostingRun``) needs to go on: the rounds so far
(hypotheses and their α, the history records, Π Z_t), the scheme's state arrays (MH and MO:
the weights D_t and the scores f; MR: v and f) and the scheme's per-round lists (MR's
multi-label thresholds). Before the first round of a run, it looks for its file and, if it
is there, puts the saved state back (``BoostingRun.restore``); the model is then the one an
uninterrupted run gives, bit for bit (every reduction is order-fixed,
``kernels/weight_update.py``), and so are the held-out scores, early stopping and
``best_iteration_``: the held-out records replay the restored rounds (``round_scores.py``).
The file is written atomically (``utils.files.write_atomic``), so a kill while saving leaves
the previous checkpoint whole. A checkpoint remembers a fingerprint of the run (binned
data, labels, starting weights, parameters but the round count and threads: the run's
``identity``) and refuses to resume another. A resume checks the file as ``load`` checks a
model file (``restore``: every member, the
history against the model, the state arrays' shapes and signs, the columns the saved
hypotheses read against the run's data; a zip member may not claim more bytes than the
file holds), and a bad file is one ``ValueError`` naming it.

A caller may keep per-round lists of its own beside the run (``per_round``: the command
line's ``wh-err`` of each round, whose running product it prints): they are saved with the
rounds and put back in place on resume, so what the caller derives from past rounds is the
uninterrupted run's too. Version 2 of the file holds them under ``extras``; version 1 (no
such lists) is still read by a run that keeps none.
"""

import hashlib
import io
import json
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from confboost.engine.boosting import HISTORY_KEYS
from confboost.engine.callbacks import TrainingCallback
from confboost.engine.model import MAX_SCORE, BoostedModel
from confboost.utils.files import check_regular_file, write_atomic
from confboost.utils.untrusted import (
    MAX_ENTRIES,
    fail,
    finite_float,
    read_float,
    read_int,
    require,
)

FORMAT_NAME = "confboost-checkpoint"
#: Version 2 adds the caller's per-round lists (``per_round``) to ``extras``.
FORMAT_VERSION = 2
#: The versions ``restore`` reads.
READ_VERSIONS = (1, 2)

#: The scheme attributes that carry the loop's state from one round to the next.
STATE_ARRAYS = ("weights", "v", "scores")
#: The scheme's per-round lists a checkpoint keeps (MR's multi-label thresholds).
SCHEME_LISTS = ("thresholds",)


class Checkpoint(TrainingCallback):
    """Save the boosting loop's state to ``path`` every ``every`` rounds; resume from it.

    Parameters
    ----------
    path : str or Path
        The checkpoint file (NumPy ``.npz`` data, no pickles). If it exists when the fit
        starts, the fit resumes from it.
    every : int, default=10
        Rounds between two saves.
    per_round : dict of str to list, optional
        Lists the caller keeps beside the run, one number a round, appended by a callback
        of lower ``order`` than the checkpoint's (so each holds the round's entry when the
        checkpoint saves it). They are saved with the rounds and, on resume, filled back in
        place; a file without one of them is refused.

    Examples
    --------
    >>> from confboost import BoostClassifier
    >>> from confboost.training.checkpoint import Checkpoint
    >>> from sklearn.datasets import load_iris
    >>> import tempfile, os
    >>> X, y = load_iris(return_X_y=True)
    >>> path = os.path.join(tempfile.mkdtemp(), "run.ckpt")
    >>> clf = BoostClassifier(20).fit(X, y, callbacks=[Checkpoint(path, every=5)])
    >>> os.path.exists(path)
    True
    """

    #: First among callbacks: the run is restored before the others see it.
    order = -100

    def __init__(self, path, every=10, per_round=None):
        if not isinstance(every, (int, np.integer)) or isinstance(every, bool) or every < 1:
            raise ValueError(f"every must be an integer >= 1, got {every!r}")
        per_round = dict(per_round or {})
        for name, values in per_round.items():
            if not isinstance(name, str) or name in SCHEME_LISTS or not isinstance(values, list):
                raise ValueError(f"per_round: {name!r} must name a list, other than "
                                 f"{SCHEME_LISTS}")
        self.path = Path(path)
        self.every = int(every)
        self.per_round = per_round
        self._fingerprint = None
        self._extras = {}

    def before_training(self, env):
        """Tie the checkpoint to the run of ``env`` and, when the run has not started and
        the file exists, restore the run from it."""
        run = env.run
        self._fingerprint = self._run_fingerprint(run)
        self._extras = {"thresholds": getattr(run.scheme, "thresholds", []), **self.per_round}
        if not run.hypotheses:
            restored = self.restore(run.scheme, env.end_round, run.dataset)
            if restored is not None:
                run.restore(*restored)
        return False

    def _run_fingerprint(self, run):
        """The fingerprint of ``run``: its binned data, labels, identity and smoothing."""
        return run_fingerprint(*dataset_parts(run.dataset), run.scheme.labels.signs,
                               *run.identity, run.smoothing)

    def _saved_beside(self, run):
        """What is saved beside the run's state: (JSON data, dict of arrays), kept under
        the document's ``beside`` and the members ``beside_<name>``; nothing here (a
        checkpoint whose state is elsewhere says what rebuilds it)."""
        return None, {}

    def _restore_beside(self, data, arrays):
        """Take what ``_saved_beside`` saved (read back, not yet checked); here there is
        none, and a file that holds some is another kind of run's."""
        if data is not None or arrays:
            raise ValueError("beside: the checkpoint was made by another kind of run (a "
                             "distributed fit)")

    def after_iteration(self, env):
        """Save the run every ``every`` rounds."""
        n_done = env.round_index + 1
        if n_done % self.every == 0:
            run = env.run
            self.save(run)
        return False

    def save(self, run):
        """Write the state of ``run`` (a ``BoostingRun``) after its rounds so far,
        atomically."""
        scheme, records = run.scheme, run.records
        for name, values in self.per_round.items():
            if len(values) != len(run.hypotheses):
                raise ValueError(f"per_round[{name!r}] holds {len(values)} entries after "
                                 f"{len(run.hypotheses)} rounds: a callback of lower order "
                                 "than the checkpoint's must append one each round")
        document = {
            "format": FORMAT_NAME, "version": FORMAT_VERSION,
            "fingerprint": self._fingerprint, "round": len(run.hypotheses),
            "product_z": float(run.product_z), "model": run.model().to_dict(),
            "history": {key: [_plain(v) for v in values] for key, values in records.items()},
            "extras": {key: [_plain(v) for v in values] for key, values in self._extras.items()},
        }
        arrays = {f"state_{name}": getattr(scheme, name) for name in STATE_ARRAYS
                  if isinstance(getattr(scheme, name, None), np.ndarray)}
        beside, beside_arrays = self._saved_beside(run)
        if beside is not None:
            document["beside"] = beside
        arrays.update({f"beside_{name}": array for name, array in beside_arrays.items()})
        text = json.dumps(document, allow_nan=False)
        arrays["document"] = np.array(text)
        arrays["checksum"] = np.array(_checksum(text, arrays))
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, buffer.getvalue())

    def restore(self, scheme, n_rounds, dataset=None):
        """The saved rounds, with the scheme's state restored in place; None if there is
        no checkpoint file yet.

        Parameters
        ----------
        scheme : scheme object
            Its state arrays (``STATE_ARRAYS``) are overwritten with the saved ones.
        n_rounds : int
            The rounds the run asks for; the checkpoint must hold fewer.
        dataset : Dataset, optional
            The run's data: every column a saved hypothesis reads must exist in it with its
            kind (``column_kinds``).

        Returns
        -------
        None or (hypotheses, records, product_z)

        Raises
        ------
        ValueError
            One line naming the file, when it is not a checkpoint of this run or is
            corrupt; memory and time stay linear in the file's size.
        """
        if not self.path.exists():
            return None
        check_regular_file(self.path)  # a device or a pipe has no size to bound the read
        try:
            document, arrays = _read_file(self.path)
            beside = {name.removeprefix("beside_"): arrays.pop(name) for name in list(arrays)
                      if name.startswith("beside_")}
            columns = None if dataset is None else column_kinds(dataset)
            saved = self._check(document, arrays, scheme, n_rounds, columns)
            self._restore_beside(document.get("beside"), beside)
        except ValueError as error:
            raise ValueError(f"{self.path}: {error}") from None
        model, records, extras, product_z, start = saved
        for name, array in arrays.items():
            if name.startswith("state_"):
                np.copyto(getattr(scheme, name.removeprefix("state_")), array)
        refresh = getattr(scheme, "_refresh_learner_weights", None)
        if refresh is not None:
            refresh()  # MR's learner weights d follow from v (Eq. 30)
        for key, values in extras.items():
            self._extras[key][:] = values
        return list(model.hypotheses), records, product_z

    def _check(self, document, arrays, scheme, n_rounds, columns):
        """Every field of a read checkpoint checked against the run; nothing changed yet."""

        if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
            raise ValueError(f"format: not a {FORMAT_NAME} file")
        if type(document.get("version")) is not int or document["version"] not in READ_VERSIONS:
            fail("version", f"must be one of {READ_VERSIONS}", document.get("version"))
        if document.get("fingerprint") != self._fingerprint:
            raise ValueError("fingerprint: the checkpoint was made by another run (other "
                             "data, labels, weights or parameters)")
        start = read_int(document.get("round"), "round", 1, MAX_ENTRIES)
        if start > n_rounds:
            raise ValueError(f"round: the checkpoint holds {start} rounds, more than the "
                             f"{n_rounds} asked for (ask for at least {start})")
        product_z = read_float(document.get("product_z"), "product_z", low=0.0)
        n_labels = scheme.labels.n_labels
        model = BoostedModel.from_dict(require(document, "model", "checkpoint"))
        if len(model) != start or model.n_labels != n_labels:
            fail("model", f"must hold {start} rounds of {n_labels} labels",
                 (len(model), model.n_labels))
        if columns is not None:
            try:
                model.check_columns(list(columns))
            except ValueError as error:
                raise ValueError(f"model.{error} (the run's data lacks it)") from None
        records = _read_lists(require(document, "history", "checkpoint"), "history", start)
        if set(records) != set(HISTORY_KEYS):
            fail("history", f"must have the keys {HISTORY_KEYS}", sorted(records))
        if not np.array_equal(np.asarray(records["alpha"], dtype=np.float64), model.alphas):
            fail("history['alpha']", "must be the model's alphas", records["alpha"][:4])
        if any(isinstance(z, bool) or not 0.0 <= z for z in records["z"]):
            fail("history['z']", "must hold numbers >= 0", records["z"][:4])
        extras = _read_lists(require(document, "extras", "checkpoint"), "extras", start,
                             empty=True)
        for name in self.per_round:
            if name not in extras:
                raise ValueError(f"extras[{name!r}]: missing, the run that wrote the checkpoint "
                                 "did not keep it (start over without resuming)")
            if len(extras[name]) != start or any(isinstance(v, bool) for v in extras[name]):
                fail(f"extras[{name!r}]", f"must have {start} numbers", extras[name][:4])
        if set(extras) != set(self._extras):
            fail("extras", f"must be {sorted(self._extras)}", sorted(extras))
        wanted = {f"state_{name}" for name in STATE_ARRAYS
                  if isinstance(getattr(scheme, name, None), np.ndarray)}
        if set(arrays) != wanted:
            fail("members", f"must be document, checksum and {sorted(wanted)}", sorted(arrays))
        for name, saved in arrays.items():
            target = getattr(scheme, name.removeprefix("state_"))
            if (saved.shape != target.shape or saved.dtype != target.dtype
                    or not np.isfinite(saved).all()):
                fail(name, f"must be finite {target.dtype} of shape {target.shape}",
                     saved.shape)
            if name != "state_scores" and not (saved >= 0).all():
                fail(name, "must hold weights >= 0", float(saved.min()))
            if not (np.abs(saved) < MAX_SCORE).all():
                fail(name, f"must hold numbers below {MAX_SCORE:g}", float(np.abs(saved).max()))
        return model, records, extras, product_z, start


def column_kinds(dataset):
    """The kind of each column of a ``Dataset`` (``"ignore"`` where it holds none), as
    ``Checkpoint.restore`` checks a saved model against it."""
    kinds = ["ignore"] * dataset.n_columns
    for column in dataset.numeric_columns:
        kinds[int(column)] = "continuous"
    for column in dataset.categorical:
        kinds[column.column] = "categorical"
    for column in dataset.text:
        kinds[column.column] = "text"
    for column in dataset.exact:
        kinds[column.column] = "continuous"
    return kinds


def _read_file(path):
    """The JSON document and the state arrays of a checkpoint file, its checksum checked.

    A checkpoint is an uncompressed ``.npz`` (a zip of ``.npy`` members): every member's
    size is checked against the file's before it is read, so memory follows the size.
    """
    size = path.stat().st_size
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
        if sum(info.file_size for info in infos) > size:
            raise ValueError("its members claim more bytes than the file holds")
        with np.load(path, allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in stored.files}
    except ValueError as error:
        raise ValueError(f"not a checkpoint file ({error})") from None
    except Exception as error:  # zip, header and format errors of a damaged file
        raise ValueError(f"not a checkpoint file ({type(error).__name__}: {error})") from None
    for member in ("document", "checksum"):
        if member not in arrays:
            raise ValueError(f"{member}: missing (a checkpoint holds document, checksum and "
                             "the state arrays)")
        if arrays[member].dtype.kind != "U" or arrays[member].shape != ():
            fail(member, "must be one string", arrays[member].dtype.str)
    text = str(arrays.pop("document"))
    checksum = str(arrays.pop("checksum"))
    if checksum != _checksum(text, {**arrays, "document": np.array(text)}):
        raise ValueError("checksum: the content does not match (corrupt file)")
    try:
        document = json.loads(text, parse_constant=_refuse, parse_float=finite_float)
    except RecursionError:
        raise ValueError("document: JSON nested too deep") from None
    except ValueError as error:
        raise ValueError(f"document: invalid JSON ({error})") from None
    return document, arrays


def run_fingerprint(*parts):
    """SHA-256 of a run's inputs: arrays (their dtype, shape and bytes) and JSON data."""
    digest = hashlib.sha256()
    for part in parts:
        if isinstance(part, np.ndarray):
            digest.update(f"{part.dtype.str}{part.shape}".encode())
            digest.update(np.ascontiguousarray(part).tobytes())
        else:
            for piece in _json_pieces(part):
                digest.update(piece.encode())
    return digest.hexdigest()


def _json_pieces(part, chunk=65536):
    """``json.dumps(part, sort_keys=True, default=repr)`` in pieces that join to it: a dict's
    lists (sequences whose slices are lists) are written a chunk of values at a time, so a
    table's text columns are never one string."""
    if not (isinstance(part, dict) and all(isinstance(value, Sequence) and not isinstance(
            value, str | bytes) for value in part.values())):
        yield json.dumps(part, sort_keys=True, default=repr)
        return
    yield "{"
    for index, key in enumerate(sorted(part)):
        values = part[key]
        yield (", " if index else "") + json.dumps(key) + ": ["
        for start in range(0, len(values), chunk):
            yield (", " if start else "") + json.dumps(values[start:start + chunk],
                                                       sort_keys=True, default=repr)[1:-1]
        yield "]"
    yield "}"


def dataset_parts(dataset):
    """The arrays and lists that define a ``Dataset`` (for ``run_fingerprint``)."""
    parts = [dataset.codes, np.asarray(dataset.n_bins), np.asarray(dataset.numeric_columns)]
    if dataset.bin_mapper is not None:
        parts += [np.asarray(t, dtype=np.float64) for t in dataset.bin_mapper.thresholds_]
    for column in dataset.categorical:
        parts += [column.column, list(column.values), column.codes]
    for column in dataset.text:
        parts += [column.column, list(column.terms), column.term_list, column.distinct_indptr,
                  column.distinct_indices]
    for column in dataset.exact:
        parts += [column.column, column.values, column.ranks]
    return parts


def _plain(value):
    """A history entry as JSON data (NumPy scalars to Python ones)."""
    return value.item() if hasattr(value, "item") else value


def _checksum(text, arrays):
    digest = hashlib.sha256(text.encode("utf-8"))
    for name in sorted(arrays):
        if name in ("document", "checksum"):
            continue
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(arrays[name]).tobytes())
    return digest.hexdigest()


def _refuse(name):
    raise ValueError(f"the number {name} (JSON has no such literal)")


def _read_lists(value, field, length, empty=False):
    """A dict of per-round lists, each of ``length`` finite numbers or flags (or none, with
    ``empty``: a list the run does not keep)."""
    if not isinstance(value, dict):
        fail(field, "must be an object", value)
    out = {}
    for key, entries in value.items():
        if not isinstance(entries, list) or len(entries) not in (length, 0 if empty else length):
            fail(f"{field}[{key!r}]", f"must have {length} entries", entries)
        for entry in entries:
            if not isinstance(entry, bool):
                read_float(entry, f"{field}[{key!r}]")
        out[key] = list(entries)
    return out
