"""Files cost what they hold, their numbers and sections are checked, and what is written is
what the readers accept (model files, checkpoints, ``write_atomic``)."""

import io
import json
import os
import stat
import tracemalloc
import zipfile

import numpy as np
import pytest

import confboost
from confboost import BoostClassifier
from confboost.formats.model_json import read_model, save_document, save_estimator
from confboost.training.checkpoint import Checkpoint
from confboost.utils.files import check_regular_file, write_atomic
from confboost.utils.untrusted import MAX_STRING

RNG = np.random.default_rng(3)
X = RNG.normal(size=(80, 3))
Y_BIN = (X[:, 0] > 0).astype(int)
Y_MULTI = np.digitize(X[:, 1], [-0.4, 0.4])


def _document(path):
    return json.loads(path.read_text())


def _resigned(path, document):
    """``document`` written to ``path`` with a valid checksum (as a careful forger would)."""
    save_document(path, {key: value for key, value in document.items()
                         if key not in ("format", "version", "checksum")})
    return path


@pytest.fixture(scope="module")
def binary_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("robust") / "binary.json"
    BoostClassifier(4).fit(X, Y_BIN).save(path)
    return path


def _peak_mb(call):
    """(outcome, peak traced memory in MB) of ``call()``: its value or the error raised."""
    tracemalloc.start()
    try:
        try:
            outcome = call()
        except ValueError as error:
            outcome = error
        return outcome, tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def test_a_small_file_declaring_many_features_is_refused_in_little_memory(binary_file,
                                                                          tmp_path):
    document = _document(binary_file)
    document.update(n_features_in=49_999_999, feature_kinds=None, feature_names_in=None)
    path = _resigned(tmp_path / "wide.json", document)
    assert path.stat().st_size < 4000
    outcome, peak = _peak_mb(lambda: confboost.load(path))
    assert isinstance(outcome, ValueError)
    assert str(outcome).startswith(f"{path}: n_features_in")
    assert peak < 16  # was 763 MB (a word per declared feature)


def test_declared_features_backed_by_the_file_still_load(binary_file, tmp_path):
    document = _document(binary_file)
    document.update(n_features_in=3, feature_kinds=None, feature_names_in=None)
    loaded = confboost.load(_resigned(tmp_path / "v.json", document))
    assert loaded.n_features_in_ == 3
    assert np.array_equal(loaded.predict(X), BoostClassifier(4).fit(X, Y_BIN).predict(X))


def test_loading_reserves_memory_for_the_file_not_for_the_size_limit(binary_file):
    outcome, peak = _peak_mb(lambda: confboost.load(binary_file))
    assert not isinstance(outcome, Exception)
    assert peak < 16  # was 2 GiB: read(MAX_FILE_BYTES + 1) reserved the whole limit


def test_a_hamming_vote_of_the_wrong_length_is_refused_before_any_table_is_built(tmp_path):
    path = tmp_path / "hamming.json"
    BoostClassifier(2, weak_learner="hamming_tree", max_leaves=4).fit(X, Y_MULTI).save(path)
    document = _document(path)
    hypothesis = document["model"]["hypotheses"][0]
    hypothesis["vote"] = [1.0, -1.0] * 100_000
    hypothesis["leaf_values"] = [0.5] * len(hypothesis["leaf_values"])
    hypothesis["kind"] = hypothesis["kind"] * 1  # same tree
    target = _resigned(tmp_path / "vote.json", document)
    outcome, peak = _peak_mb(lambda: confboost.load(target))
    assert isinstance(outcome, ValueError)
    assert "hypotheses[0].vote: must have shape (3,)" in str(outcome)
    assert peak < 64  # the whole JSON parse, no (leaves x 200,000) table


def test_a_number_beyond_float64_is_refused_naming_the_file(binary_file, tmp_path):
    text = binary_file.read_text().replace('"smoothing": ', '"smoothing": 1e999, "x": ', 1)
    path = tmp_path / "inf.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=r"inf\.json: .*1e999 is beyond float64"):
        confboost.load(path)


@pytest.mark.parametrize("kind", ["softmax", "isotonic", 3])
def test_a_calibration_that_does_not_fit_the_model_is_refused(binary_file, tmp_path, kind):
    document = _document(binary_file)
    document["calibration"] = {"kind": kind, "slope": 1.0}
    path = _resigned(tmp_path / "calibrated.json", document)
    with pytest.raises(ValueError, match=r"calibrated\.json: calibration\.kind"):
        confboost.load(path)


@pytest.mark.parametrize("slope", [0.0, -1.0, 1e200, "1"])
def test_a_calibration_slope_out_of_range_is_refused(binary_file, tmp_path, slope):
    document = _document(binary_file)
    document["calibration"] = {"kind": "sigmoid", "slope": slope}
    path = _resigned(tmp_path / "slope.json", document)
    with pytest.raises(ValueError, match=r"slope\.json: calibration\.slope"):
        confboost.load(path)


def test_a_fitting_calibration_loads(binary_file, tmp_path):
    document = _document(binary_file)
    document["calibration"] = {"kind": "sigmoid", "slope": 0.5}
    loaded = confboost.load(_resigned(tmp_path / "ok.json", document))
    proba = loaded.predict_proba(X)
    assert np.all((proba > 0) & (proba < 1))


@pytest.mark.parametrize("section", [[1, 2], "abc", {"classes": "ab"}, {"classes": [1, 2]},
                                     {"classes": ["a"]}, {"other": 1}])
def test_a_boostexter_section_of_the_wrong_type_is_one_error(binary_file, tmp_path, section):
    from confboost.estimators.booster import Booster

    document = _document(binary_file)
    document["boostexter"] = section
    path = _resigned(tmp_path / "section.json", document)
    with pytest.raises(ValueError, match=r"section\.json: boostexter"):
        read_model(path, Booster)


@pytest.mark.parametrize("where", ["label", pytest.param("column", marks=pytest.mark.slow),
                                   pytest.param("term", marks=pytest.mark.slow)])
def test_a_model_holding_a_string_over_the_limit_is_refused_at_save_not_at_load(tmp_path,
                                                                                where):
    import pandas as pd

    long = "w" * (MAX_STRING + 1)
    labels = np.where(Y_BIN == 1, long if where == "label" else "yes", "no")
    table = pd.DataFrame({long if where == "column" else "x": X[:, 0],
                          "words": [f"{long if where == 'term' else 'a'} b{i % 3}"
                                    if y else f"c{i % 4}" for i, y in enumerate(Y_BIN)]})
    if where == "term":  # the term is then the one test that separates the classes
        table = table[["words"]]
    clf = BoostClassifier(3, feature_types={"words": "text"}).fit(table, labels)
    path = tmp_path / "long.json"
    with pytest.raises(ValueError, match=r"long\.json: cannot save .* at most 1000000 "):
        clf.save(path)
    assert not path.exists()


def test_strings_longer_than_the_old_limit_round_trip(tmp_path):
    label = "y" * 20_000
    clf = BoostClassifier(3).fit(X, np.where(Y_BIN == 1, label, "n"))
    path = tmp_path / "long.json"
    clf.save(path)
    assert confboost.load(path).predict(X).tolist() == clf.predict(X).tolist()


def test_an_unknown_section_is_not_saved(tmp_path):
    clf = BoostClassifier(2).fit(X, Y_BIN)
    with pytest.raises(ValueError, match="cannot save the sections"):
        save_estimator(clf, tmp_path / "m.json", extra={"mine": 1})


# write_atomic: the file's mode and a symbolic link survive a save


def test_save_keeps_the_mode_of_the_file_it_replaces(tmp_path):
    path = tmp_path / "m.json"
    path.write_text("old")
    os.chmod(path, 0o644)
    BoostClassifier(2).fit(X, Y_BIN).save(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    os.chmod(path, 0o640)
    write_atomic(path, "new")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640 and path.read_text() == "new"


def test_a_new_file_gets_the_mode_of_a_plain_write(tmp_path):
    plain = tmp_path / "plain"
    plain.write_text("x")
    atomic = tmp_path / "atomic"
    write_atomic(atomic, "x")
    assert stat.S_IMODE(atomic.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)


def test_save_through_a_symbolic_link_replaces_its_target(tmp_path):
    (tmp_path / "models").mkdir()
    target = tmp_path / "models" / "real.json"
    target.write_text("old")
    link = tmp_path / "current.json"
    link.symlink_to(target)
    BoostClassifier(2).fit(X, Y_BIN).save(link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert confboost.load(target).n_features_in_ == 3
    assert not [p for p in (tmp_path / "models").iterdir() if p.name.startswith(".")]


def test_a_dangling_link_is_written_through(tmp_path):
    target = tmp_path / "new.json"
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_atomic(link, "text")
    assert link.is_symlink() and target.read_text() == "text"


# checkpoints


def _checkpointed(tmp_path, rounds=4):
    path = tmp_path / "run.ckpt"
    BoostClassifier(rounds).fit(X, Y_MULTI, callbacks=[Checkpoint(path, every=2)])
    return path


def _members(path):
    with np.load(path, allow_pickle=False) as stored:
        return {name: stored[name] for name in stored.files}


def _write_members(path, members, resign=True):
    from confboost.training.checkpoint import _checksum

    if resign:
        text = str(members["document"])
        members["checksum"] = np.array(_checksum(text, members))
    buffer = io.BytesIO()
    np.savez(buffer, **members)
    path.write_bytes(buffer.getvalue())


def _edit_document(path, edit):
    """Rewrite the checkpoint's JSON document by ``edit(document)``, checksum re-signed."""
    members = _members(path)
    document = json.loads(str(members["document"]))
    edit(document)
    members["document"] = np.array(json.dumps(document))
    _write_members(path, members)


def _resume(path, rounds=6):
    return BoostClassifier(rounds).fit(X, Y_MULTI, callbacks=[Checkpoint(path, every=2)])


@pytest.mark.parametrize("member", ["document", "checksum", "state_weights"])
def test_a_checkpoint_missing_a_member_is_one_error_naming_the_file(tmp_path, member):
    path = _checkpointed(tmp_path)
    members = _members(path)
    del members[member]
    _write_members(path, members, resign=member == "state_weights")
    named = "members" if member == "state_weights" else member
    with pytest.raises(ValueError, match=rf"^{path}: .*{named}"):
        _resume(path)


@pytest.mark.parametrize("key", ["alpha", "z", "bound", "train_loss", "criterion",
                                 "alpha_capped"])
def test_a_checkpoint_history_missing_a_record_is_refused(tmp_path, key):
    path = _checkpointed(tmp_path)
    _edit_document(path, lambda document: document["history"].pop(key))
    with pytest.raises(ValueError, match=rf"^{path}: history"):
        _resume(path)


def test_a_checkpoint_whose_history_alphas_are_not_the_models_is_refused(tmp_path):
    path = _checkpointed(tmp_path)
    # the resumed model's alpha: scores of inf
    _edit_document(path, lambda document: document["history"]["alpha"].__setitem__(1, 1e308))
    with pytest.raises(ValueError, match=rf"^{path}: history\['alpha'\]: must be the model"):
        _resume(path)


def test_a_checkpoint_with_negative_weights_is_refused(tmp_path):
    path = _checkpointed(tmp_path)
    members = _members(path)
    members["state_weights"] = -members["state_weights"]
    _write_members(path, members)
    with pytest.raises(ValueError, match=rf"^{path}: state_weights: must hold weights >= 0"):
        _resume(path)


def test_a_checkpoint_naming_a_column_the_data_lacks_is_refused(tmp_path):
    path = _checkpointed(tmp_path)
    _edit_document(path, lambda document: document["model"]["hypotheses"][0].update(feature=7))
    with pytest.raises(ValueError, match=rf"^{path}: model\.hypotheses\[0\]\.feature.*lacks"):
        _resume(path)


def test_a_checkpoint_whose_members_claim_more_than_the_file_is_refused(tmp_path):
    path = _checkpointed(tmp_path)
    members = _members(path)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, array in members.items():
            stream = io.BytesIO()
            np.save(stream, array)
            archive.writestr(f"{name}.npy", stream.getvalue())
        stream = io.BytesIO()
        np.save(stream, np.zeros(2**24))  # 128 MiB of zeros in about 130 KB
        archive.writestr("state_bomb.npy", stream.getvalue())
    path.write_bytes(buffer.getvalue())
    outcome, peak = _peak_mb(lambda: _resume(path))
    assert isinstance(outcome, ValueError)
    assert str(outcome).startswith(f"{path}: not a checkpoint file")
    assert peak < 32


def test_a_checkpoint_with_a_number_beyond_float64_names_the_file(tmp_path):
    path = _checkpointed(tmp_path)
    members = _members(path)
    text = str(members["document"]).replace('"product_z": ', '"product_z": 1e999, "x": ', 1)
    members["document"] = np.array(text)
    _write_members(path, members)
    with pytest.raises(ValueError, match=rf"^{path}: document: .*1e999"):
        _resume(path)


def test_a_valid_checkpoint_still_resumes_to_the_uninterrupted_model(tmp_path):
    path = _checkpointed(tmp_path)
    resumed = _resume(path)
    whole = BoostClassifier(6).fit(X, Y_MULTI)
    assert np.array_equal(resumed.decision_function(X), whole.decision_function(X))


_SPECIALS = """
import os, sys
import numpy as np
from confboost import BoostClassifier, load
from confboost.cli import main
from confboost.training.checkpoint import Checkpoint
special, folder = sys.argv[1], sys.argv[2]
X = np.arange(40.0).reshape(20, 2); y = np.arange(20) % 2
stem = os.path.join(folder, "s")
with open(stem + ".names", "w") as names:
    names.write("yes, no.\\nsize: continuous.\\nother: continuous.\\n")
with open(stem + ".data", "w") as data:
    data.write("".join(f"{i}, {i % 3}, {'yes' if i % 2 else 'no'}.\\n" for i in range(20)))
def attempt(what, call):
    try:
        call()
        print(what, "accepted")
    except ValueError as error:
        print(what, "refused:", error)
attempt("load", lambda: load(special))
attempt("checkpoint", lambda: BoostClassifier(2).fit(X, y, callbacks=[Checkpoint(special)]))
for suffix, argv in ((".names", ["train", "-n", "2"]), (".data", ["train", "-n", "2"]),
                     (".shyp", ["import-shyp"])):
    path = stem + suffix
    saved = open(path).read() if os.path.exists(path) else None
    os.replace(path, path + ".kept") if saved is not None else None
    os.symlink(special, path)
    print(suffix, "exit", main([argv[0], "-S", stem, *argv[1:]]))
    os.remove(path)
    os.replace(path + ".kept", path) if saved is not None else None
"""


POSIX_SPECIALS = pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"),
                                    reason="needs /dev/zero and named pipes (POSIX)")


@POSIX_SPECIALS
def test_only_a_regular_file_passes_the_check_before_reading(tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    for special in ("/dev/zero", pipe):
        with pytest.raises(ValueError, match=f"{special}: not a regular file"):
            check_regular_file(special)
    with pytest.raises(ValueError, match=f"{tmp_path}: is a folder, not a file"):
        check_regular_file(tmp_path)
    with pytest.raises(FileNotFoundError):
        check_regular_file(tmp_path / "missing")
    (tmp_path / "plain").write_text("x")
    os.symlink(tmp_path / "plain", tmp_path / "link")
    check_regular_file(tmp_path / "link")


@pytest.mark.slow
@POSIX_SPECIALS
@pytest.mark.parametrize("kind", ["device", "pipe"])
def test_a_device_or_a_pipe_is_refused_before_it_is_read(tmp_path, kind):
    """/dev/zero has no end and a named pipe blocks: each reader refuses them by name at
    once (a child process, so that a regression fails by its timeout, not by a hang)."""
    import subprocess
    import sys

    from tests.helpers import child_env

    special = "/dev/zero" if kind == "device" else str(tmp_path / "pipe")
    if kind == "pipe":
        os.mkfifo(special)
    result = subprocess.run([sys.executable, "-c", _SPECIALS, special, str(tmp_path)],
                            capture_output=True, text=True, timeout=120, env=child_env())
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    for what in ("load", "checkpoint"):
        wanted = f"{what} refused: {special}: not a regular file (a device, a pipe"
        assert any(line.startswith(wanted) for line in lines), lines
    for suffix in (".names", ".data", ".shyp"):
        assert f"{suffix} exit 2" in lines, lines
    assert result.stderr.count("not a regular file (a device, a pipe or a socket)") == 3
