"""icsiboost's --interruptible and --resume on the training commands (checkpoint.py)."""

import json

import pytest

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
