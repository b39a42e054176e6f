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
``identity``) and refuses to resume another; its content is checked like a model file's.
"""

import hashlib
import io
import json
from pathlib import Path

import numpy as np

from confboost.engine.callbacks import TrainingCallback
from confboost.engine.model import BoostedModel
from confboost.utils.files import write_atomic
from confboost.utils.untrusted import fail, read_float, read_int

FORMAT_NAME = "confboost-checkpoint"
FORMAT_VERSION = 1

#: The scheme attributes that carry the loop's state from one round to the next.
STATE_ARRAYS = ("weights", "v", "scores")


class Checkpoint(TrainingCallback):
    """Save the boosting loop's state to ``path`` every ``every`` rounds; resume from it.

    Parameters
    ----------
    path : str or Path
        The checkpoint file (NumPy ``.npz`` data, no pickles). If it exists when the fit
        starts, the fit resumes from it.
    every : int, default=10
        Rounds between two saves.

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

    def __init__(self, path, every=10):
        if not isinstance(every, (int, np.integer)) or isinstance(every, bool) or every < 1:
            raise ValueError(f"every must be an integer >= 1, got {every!r}")
        self.path = Path(path)
        self.every = int(every)
        self._fingerprint = None
        self._extras = {}

    def before_training(self, env):
        """Tie the checkpoint to the run of ``env`` and, when the run has not started and
        the file exists, restore the run from it."""
        run = env.run
        self._fingerprint = run_fingerprint(*dataset_parts(run.dataset),
                                            run.scheme.labels.signs, *run.identity,
                                            run.smoothing)
        self._extras = {"thresholds": getattr(run.scheme, "thresholds", [])}
        if not run.hypotheses:
            restored = self.restore(run.scheme, env.end_round)
            if restored is not None:
                run.restore(*restored)
        return False

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
        document = {
            "format": FORMAT_NAME, "version": FORMAT_VERSION,
            "fingerprint": self._fingerprint, "round": len(run.hypotheses),
            "product_z": float(run.product_z), "model": run.model().to_dict(),
            "history": {key: [_plain(v) for v in values] for key, values in records.items()},
            "extras": {key: [_plain(v) for v in values] for key, values in self._extras.items()},
        }
        arrays = {f"state_{name}": getattr(scheme, name) for name in STATE_ARRAYS
                  if isinstance(getattr(scheme, name, None), np.ndarray)}
        text = json.dumps(document, allow_nan=False)
        arrays["document"] = np.array(text)
        arrays["checksum"] = np.array(_checksum(text, arrays))
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, buffer.getvalue())

    def restore(self, scheme, n_rounds):
        """The saved rounds, with the scheme's state restored in place; None if there is
        no checkpoint file yet.

        Returns
        -------
        None or (hypotheses, records, product_z)

        Raises
        ------
        ValueError
            Naming the file, when it is not a checkpoint of this run or is corrupt.
        """
        if not self.path.exists():
            return None
        where = f"{self.path}: "
        try:
            with np.load(self.path, allow_pickle=False) as stored:
                arrays = {name: stored[name] for name in stored.files}
        except Exception as error:  # zip, header and format errors of a damaged file
            raise ValueError(f"{where}not a checkpoint file ({error})") from None
        try:
            text = str(arrays.pop("document"))
            checksum = str(arrays.pop("checksum"))
            if checksum != _checksum(text, {**arrays, "document": np.array(text)}):
                raise ValueError("checksum: the content does not match (corrupt file)")
            document = json.loads(text, parse_constant=_refuse)
            if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
                raise ValueError(f"format: not a {FORMAT_NAME} file")
            if document.get("fingerprint") != self._fingerprint:
                raise ValueError("fingerprint: the checkpoint was made by another run (other "
                                 "data, labels, weights or parameters)")
            start = read_int(document.get("round"), "round", 1, n_rounds + 1)
            product_z = read_float(document.get("product_z"), "product_z", low=0.0)
            model = BoostedModel.from_dict(document.get("model"))
            if len(model) != start or model.n_labels != scheme.labels.n_labels:
                fail("model", f"must hold {start} rounds of {scheme.labels.n_labels} labels",
                     (len(model), model.n_labels))
            records = _read_lists(document.get("history"), "history", start)
            extras = _read_lists(document.get("extras"), "extras", start, empty=True)
            if set(extras) != set(self._extras):
                fail("extras", f"must be {sorted(self._extras)}", sorted(extras))
            for name in STATE_ARRAYS:
                target = getattr(scheme, name, None)
                if not isinstance(target, np.ndarray):
                    continue
                saved = arrays.get(f"state_{name}")
                if (saved is None or saved.shape != target.shape or saved.dtype != target.dtype
                        or not np.isfinite(saved).all()):
                    fail(f"state_{name}", f"must be finite {target.dtype} of shape "
                                          f"{target.shape}", getattr(saved, "shape", None))
                np.copyto(target, saved)
        except ValueError as error:
            raise ValueError(f"{where}{error}") from None
        refresh = getattr(scheme, "_refresh_learner_weights", None)
        if refresh is not None:
            refresh()  # MR's learner weights d follow from v (Eq. 30)
        for key, values in extras.items():
            self._extras[key][:] = values
        return list(model.hypotheses), records, product_z


def run_fingerprint(*parts):
    """SHA-256 of a run's inputs: arrays (their dtype, shape and bytes) and JSON data."""
    digest = hashlib.sha256()
    for part in parts:
        if isinstance(part, np.ndarray):
            digest.update(f"{part.dtype.str}{part.shape}".encode())
            digest.update(np.ascontiguousarray(part).tobytes())
        else:
            digest.update(json.dumps(part, sort_keys=True, default=repr).encode())
    return digest.hexdigest()


def dataset_parts(dataset):
    """The arrays and lists that define a ``Dataset`` (for ``run_fingerprint``)."""
    parts = [dataset.codes, np.asarray(dataset.n_bins), np.asarray(dataset.numeric_columns)]
    if dataset.bin_mapper is not None:
        parts += [np.asarray(t, dtype=np.float64) for t in dataset.bin_mapper.thresholds_]
    for column in dataset.categorical:
        parts += [column.column, list(column.values), column.codes]
    for column in dataset.text:
        parts += [column.column, list(column.terms), column.indptr, column.indices]
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
