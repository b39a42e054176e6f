"""icsiboost's --interruptible and --resume on the training commands (checkpoint.py)."""

import json

import numpy as np
import pytest

from confboost.cli import main
from confboost.training.checkpoint import _checksum
from tests.helpers import ROUND, run


def _model(path):
    return json.loads(path.read_text())["model"]


def test_interrupted_then_resumed_gives_the_uninterrupted_model(stem, capsys, tmp_path):  # noqa: F811
    status, _, _ = run(["train", "-S", stem, "-n", 5, "--interruptible",
                        "-o", tmp_path / "first.json"], capsys)
    assert status == 0
    checkpoint = tmp_path / "t.checkpoint"
    assert checkpoint.exists()
    status, out, _ = run(["train", "-S", stem, "-n", 9, "--interruptible", "--resume",
                          "-o", tmp_path / "resumed.json"], capsys)
    assert status == 0
    assert [int(m.group(1)) for m in ROUND.finditer(out)] == [6, 7, 8, 9]
    status, _, _ = run(["train", "-S", stem, "-n", 9, "-o", tmp_path / "straight.json"], capsys)
    assert status == 0
    assert _model(tmp_path / "resumed.json") == _model(tmp_path / "straight.json")


def test_interruptible_without_resume_starts_over(stem, capsys, tmp_path):  # noqa: F811
    run(["train", "-S", stem, "-n", 4, "--interruptible", "-o", tmp_path / "a.json"], capsys)
    status, out, _ = run(["train", "-S", stem, "-n", 3, "--interruptible",
                          "-o", tmp_path / "b.json"], capsys)
    assert status == 0
    assert [int(m.group(1)) for m in ROUND.finditer(out)] == [1, 2, 3]


def test_resume_needs_a_checkpoint(stem, capsys):  # noqa: F811
    status, _, err = run(["train", "-S", stem, "-n", 3, "--resume"], capsys)
    assert status == 2
    assert "t.checkpoint: no checkpoint to resume from" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("flag", ["--resume", "--interruptible"])
def test_classify_refuses_the_training_flags(stem, capsys, flag):  # noqa: F811
    with pytest.raises(SystemExit) as exit_info:
        run(["classify", "-S", stem, flag], capsys)
    assert exit_info.value.code == 2
    assert f"{flag} (icsiboost) is not supported here" in capsys.readouterr().err


def _train(stem, rounds, extra, capsys, name, interrupt_at=None, monkeypatch=None):
    """``train`` on ``stem`` writing ``name``.json and ``name``.shyp; (stdout, json bytes,
    shyp bytes). ``interrupt_at``: a KeyboardInterrupt in that round (1-based), before the
    checkpoint saves it, as a kill there would."""
    folder = stem.parent
    argv = ["train", "-S", stem, "-n", rounds, "-o", folder / f"{name}.json",
            "--model", folder / f"{name}.shyp", *extra]
    if interrupt_at is None:
        status, out, _ = run(argv, capsys)
        assert status == 0
        return out, (folder / f"{name}.json").read_bytes(), (folder / f"{name}.shyp").read_bytes()
    from confboost.cli.train_command import WeakObjectives

    original = WeakObjectives.after_iteration

    def killed(self, env):
        if env.round_index + 1 == interrupt_at:
            raise KeyboardInterrupt
        return original(self, env)

    monkeypatch.setattr(WeakObjectives, "after_iteration", killed)
    with pytest.raises(KeyboardInterrupt):
        main([str(a) for a in argv])
    monkeypatch.setattr(WeakObjectives, "after_iteration", original)
    return capsys.readouterr().out, None, None


@pytest.mark.parametrize(("sets", "extra"), [
    ("dev test", []),
    ("", []),
    ("dev test", ["--optimal-iterations"]),
    ("test", ["--optimal-iterations"]),
    ("dev test", ["--optimal-iterations", "--max-fmeasure", "urgent"]),
])
def test_a_resumed_run_prints_and_writes_the_uninterrupted_run(stem, capsys, monkeypatch,
                                                               sets, extra):
    for suffix in (".dev", ".test"):
        if suffix[1:] not in sets.split():
            stem.with_name(stem.name + suffix).unlink()
    rounds = 12
    straight, model, shyp = _train(stem, rounds, extra, capsys, "straight")
    # a kill in round 6 (five rounds saved), then a round limit at 9, then the rest
    first, _, _ = _train(stem, rounds, ["--interruptible", *extra], capsys, "first",
                         interrupt_at=6, monkeypatch=monkeypatch)
    second, _, _ = _train(stem, 9, ["--resume", *extra], capsys, "second")
    third, resumed_model, resumed_shyp = _train(stem, rounds, ["--resume", *extra], capsys,
                                                "resumed")
    lines = [line for line in straight.splitlines() if line.startswith("rnd ")]
    assert len(lines) == rounds
    pieces = [[line for line in out.splitlines() if line.startswith("rnd ")]
              for out in (first, second, third)]
    assert [len(piece) for piece in pieces] == [5, 4, 3]
    assert pieces[0] + pieces[1] + pieces[2] == lines
    assert third.splitlines()[3:] == straight.splitlines()[rounds:]  # OPTIMAL ITERATIONS
    assert resumed_model == model
    assert resumed_shyp == shyp


def test_a_checkpoint_without_the_rounds_wh_err_is_refused_by_name(stem, capsys, tmp_path):
    run(["train", "-S", stem, "-n", 3, "--interruptible", "-o", tmp_path / "a.json"], capsys)
    path = tmp_path / "t.checkpoint"
    with np.load(path) as stored:
        arrays = {name: stored[name] for name in stored.files}
    document = json.loads(str(arrays["document"]))
    del document["extras"]["wh_err"]
    text = json.dumps(document)
    arrays["document"] = np.array(text)
    rest = {k: v for k, v in arrays.items() if k not in ("document", "checksum")}
    arrays["checksum"] = np.array(_checksum(text, rest))
    with open(path, "wb") as handle:  # np.savez would add ".npz" to the name
        np.savez(handle, **arrays)
    status, _, err = run(["train", "-S", stem, "-n", 5, "--resume"], capsys)
    assert status == 2
    assert err.strip().count("\n") == 0
    assert "t.checkpoint: extras['wh_err']: missing" in err


def test_resuming_with_fewer_rounds_than_saved_says_so(stem, capsys, tmp_path):
    run(["train", "-S", stem, "-n", 5, "--interruptible", "-o", tmp_path / "a.json"], capsys)
    status, _, err = run(["train", "-S", stem, "-n", 3, "--resume"], capsys)
    assert status == 2 and err.strip().count("\n") == 0
    assert "t.checkpoint: round: the checkpoint holds 5 rounds, more than the 3 asked" in err


def test_resuming_on_other_data_is_refused_naming_the_checkpoint(stem, capsys, tmp_path):
    run(["train", "-S", stem, "-n", 4, "--interruptible", "-o", tmp_path / "a.json"], capsys)
    data = stem.with_name("t.data")
    data.write_text("".join(data.read_text().splitlines(keepends=True)[:-1]))
    status, _, err = run(["train", "-S", stem, "-n", 6, "--resume"], capsys)
    assert status == 2 and err.strip().count("\n") == 0
    assert "t.checkpoint: fingerprint: the checkpoint was made by another run" in err


def test_a_round_killed_while_saving_is_printed_again_not_lost(stem, capsys, monkeypatch):
    from confboost.training.checkpoint import Checkpoint

    straight, _, _ = _train(stem, 8, [], capsys, "straight")
    original = Checkpoint.save

    def killed(self, run):
        if len(run.hypotheses) == 4:
            raise KeyboardInterrupt
        return original(self, run)

    monkeypatch.setattr(Checkpoint, "save", killed)
    with pytest.raises(KeyboardInterrupt):
        main(["train", "-S", str(stem), "-n", "8", "--interruptible",
              "-o", str(stem.parent / "first.json")])
    monkeypatch.setattr(Checkpoint, "save", original)
    first = capsys.readouterr().out.splitlines()
    resumed, _, _ = _train(stem, 8, ["--resume"], capsys, "resumed")
    lines = straight.splitlines()[:8]
    assert first == lines[:4]  # round 4 printed, then killed before it was saved
    assert resumed.splitlines()[:5] == lines[3:]  # round 4 again, then the rest


def test_resuming_a_finished_run_chooses_its_optimal_round(stem, capsys):
    extra = ["--optimal-iterations"]
    straight, model, _ = _train(stem, 7, extra, capsys, "straight")
    _train(stem, 7, ["--interruptible", *extra], capsys, "first")
    again, resumed, _ = _train(stem, 7, ["--resume", *extra], capsys, "again")
    assert "rnd " not in again
    assert again.splitlines() == straight.splitlines()[7:]  # the OPTIMAL ITERATIONS line
    assert resumed == model
