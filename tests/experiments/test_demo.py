"""The main job of `make run` (confboost demo) on bundled data."""

from confboost.cli import main
from confboost.experiments.demo import report_rounds


def test_report_rounds():
    assert report_rounds(3) == [1, 2, 3]
    assert report_rounds(120) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 50, 100, 120]


def test_demo_prints_the_bound_holding(capsys):
    assert main(["demo", "--rounds", "12", "--data", "bundled"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.strip()[:1].isdigit()]
    assert [int(line.split()[0]) for line in lines] == report_rounds(12)
    for line in lines:
        _, z, bound, train_error, test_error = (float(v) for v in line.split())
        assert 0 < z <= 1 and train_error <= bound and 0 <= test_error <= 1
    assert "on every round: True" in out


def test_demo_unknown_dataset_exits_2(capsys):
    assert main(["demo", "--dataset", "nope"]) == 2
    assert "error" in capsys.readouterr().err
