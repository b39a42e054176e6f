"""Fuzzer of checkpoints (``training/checkpoint.py``'s reader): a fit given a mutated
checkpoint resumes to a model predicting finite scores, or is refused with one line naming
the file, in memory that follows the file's size.

Mutations, on the checkpoint of a short fit: its JSON document changed as a model file's
(``test_fuzz_model_json._mutate``) and re-signed or not; a state array of another shape,
dtype, with a NaN, or missing; a member added; raw bytes flipped or cut; a zip member
compressed to claim far more than the file holds. Short run in ``make test``, long run in
``make fuzz``.
"""

import functools
import io
import json
import zipfile

import numpy as np

from confboost import BoostClassifier
from confboost.training.checkpoint import Checkpoint, _checksum

from .fuzzing import Bound, Tally, cases, generator, run_case
from .test_fuzz_model_json import _mutate

RNG = np.random.default_rng(2)
X = RNG.normal(size=(60, 3))
Y = np.digitize(X[:, 0], [-0.4, 0.4])


def _members(raw):
    with np.load(io.BytesIO(raw), allow_pickle=False) as stored:
        return {name: stored[name] for name in stored.files}


def _pack(members, resign):
    if resign and "document" in members:
        text = str(members["document"])
        members["checksum"] = np.array(_checksum(text, members))
    buffer = io.BytesIO()
    np.savez(buffer, **members)
    return buffer.getvalue()


def _mutated(raw, rng):
    choice = rng.random()
    if choice < 0.2:
        raw = bytearray(raw)
        where = rng.randrange(len(raw))
        if rng.random() < 0.5:
            raw[where] ^= 1 << rng.randrange(8)
        else:
            del raw[where:]
        return bytes(raw)
    members = _members(raw)
    if choice < 0.6:
        document = json.loads(str(members["document"]))
        for _ in range(rng.choice([1, 2])):
            _mutate(document, rng)
        try:
            members["document"] = np.array(json.dumps(document, allow_nan=False))
        except ValueError:
            pass
    elif choice < 0.85:
        name = rng.choice(sorted(members))
        array = members[name]
        action = rng.choice(["shape", "dtype", "nan", "delete", "add"])
        if action == "shape":
            members[name] = np.resize(array, (array.size + 1,))
        elif action == "dtype" and array.dtype.kind == "f":
            members[name] = array.astype(np.float32)
        elif action == "nan" and array.dtype.kind == "f" and array.size:
            array = array.copy()
            array.flat[rng.randrange(array.size)] = rng.choice([np.nan, np.inf])
            members[name] = array
        elif action == "delete":
            del members[name]
        else:
            members["state_extra"] = np.zeros(3)
    else:  # a compressed member claiming far more than the file holds
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, array in members.items():
                if name == "state_weights":
                    continue
                stream = io.BytesIO()
                np.save(stream, array)
                archive.writestr(f"{name}.npy", stream.getvalue())
            stream = io.BytesIO()
            np.save(stream, np.zeros(2**22))
            archive.writestr("state_weights.npy", stream.getvalue())
        return buffer.getvalue()
    return _pack(members, resign=rng.random() < 0.8)


class Kept:
    """A caller's per-round list (as the command line's wh-err), saved in the checkpoint."""

    order = -200

    def __init__(self):
        self.values = []

    def after_iteration(self, env):
        self.values.append(float(env.record["z"]))
        return False


def _fit(path, n_rounds):
    kept = Kept()
    clf = BoostClassifier(n_rounds).fit(X, Y, callbacks=[
        kept, Checkpoint(path, every=2, per_round={"kept": kept.values})])
    return clf, kept.values


def _case(path):
    clf, kept = _fit(path, 6)
    assert np.isfinite(clf.decision_function(X)).all()
    assert len(kept) == clf.n_iter_ and np.isfinite(kept).all()
    return clf


def test_fuzzed_checkpoints(tmp_path):
    rng = generator("checkpoint")
    tally = Tally("checkpoint")
    base = tmp_path / "base.ckpt"
    _fit(base, 4)
    raw = base.read_bytes()
    for number in range(cases(30)):
        path = tmp_path / f"case{number % 20}.ckpt"
        path.write_bytes(_mutated(raw, rng))
        size = path.stat().st_size

        run_case(functools.partial(_case, path), tally, input_size=size, named=(str(path),),
                 bound=Bound(seconds=120, base_mb=64, per_byte=32), what=f"case {number}")
    print(tally.report())
    assert tally.accepted and tally.refused
