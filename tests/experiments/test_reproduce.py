"""`confboost reproduce`: the paper's §10 experiments as a report (on a tiny subset here)."""

import csv
import sys

import numpy as np
import pytest

from confboost.cli import main
from confboost.datasets import BUNDLED, load
from confboost.estimators import BoostClassifier
from confboost.experiments.report import findings
from confboost.experiments.runs import ALGORITHMS, algorithm_available, text_experiment
from tests.helpers import png_size

SECTIONS = ("## Algorithms", "## Data sets", "## Test error (%)", "## Findings",
            "## Scatter plots", "## Training curves", "## Test-error learning curves",
            "## Text task", "## Files")



@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduce")
    status = main(["reproduce", "--quick", "--datasets", "glass,vehicle", "--rounds", "5,10",
                   "--out", str(out), "--jobs", "1"])
    return status, out


def read_results(out):
    with open(out / "results.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_report_has_every_section(quick_run):
    status, out = quick_run
    assert status == 0
    report = (out / "report.md").read_text(encoding="utf-8")
    for section in SECTIONS:
        assert section in report
    for name in ("glass", "vehicle"):
        assert f"| {name} | " in report
    assert "seeded stratified 5-fold CV, fold 0" in report  # the split is stated
    assert "--datasets glass,vehicle" in report  # the command that made it


def test_pngs_are_well_formed(quick_run):
    from matplotlib.image import imread

    _, out = quick_run
    report = (out / "report.md").read_text(encoding="utf-8")
    pngs = sorted(out.glob("*.png"))
    names = {p.name for p in pngs}
    assert {"scatter_real-mh_vs_discrete-mh.png", "training_curves.png",
            "test_error_curves.png"} <= names
    for path in pngs:
        width, height = png_size(path)
        assert width > 100 and height > 100
        assert imread(path).shape[:2] == (height, width)
        assert f"({path.name})" in report  # every plot is shown in the report


def test_results_match_a_direct_fit(quick_run):
    _, out = quick_run
    rows = read_results(out)
    assert {(r["dataset"], r["rounds"]) for r in rows} == {
        (d, n) for d in ("glass", "vehicle") for n in ("5", "10")}
    split = load("glass", data_dir=BUNDLED)
    for key in ("real-mh", "discrete-mh"):
        clf = BoostClassifier(n_estimators=10, random_state=0, **ALGORITHMS[key].params)
        clf.fit(split.X_train, split.y_train)
        staged = [np.mean(p != split.y_test) for p in clf.staged_predict(split.X_test)]
        for n_rounds in (5, 10):
            (row,) = [r for r in rows if (r["dataset"], r["algorithm"], r["rounds"])
                      == ("glass", key, str(n_rounds))]
            assert float(row["test_error"]) == pytest.approx(staged[n_rounds - 1], abs=1e-12)
            assert float(row["train_loss"]) == pytest.approx(
                clf.history_["train_loss"][n_rounds - 1])
            assert float(row["bound"]) == pytest.approx(clf.history_["bound"][n_rounds - 1])
            assert int(row["n_train"]) == split.n_train
            assert int(row["n_test"]) == split.n_test
            assert int(row["n_classes"]) == split.n_classes
            assert row["split"] == split.split_description


def test_missing_algorithms_are_reported_not_faked(quick_run):
    _, out = quick_run
    report = (out / "report.md").read_text(encoding="utf-8")
    ran = {r["algorithm"] for r in read_results(out)}
    for key in ALGORITHMS:
        available, _ = algorithm_available(key)
        assert (key in ran) == available
        if not available:
            assert f"| {key} | " in report and "skipped: not available in this build" in report
    assert algorithm_available("real-mh") == (True, "")


def test_findings_follow_the_numbers():
    names = ["a", "b", "c"]
    rounds = [10, 100]
    real_wins = {}
    for i, d in enumerate(names):
        for r, scale in ((10, 1.0), (100, 0.5)):
            real_wins[d, "real-mh", r] = 0.10 * scale + 0.01 * i
            real_wins[d, "discrete-mh", r] = 0.20 * scale + 0.01 * i
    sentences = findings(real_wins, names, rounds)
    assert "on 3 of 3 data sets after 10 rounds" in sentences[0]
    assert "is at least as accurate held here" in sentences[0]
    assert "learns faster held here" in sentences[1]
    assert "10.0 percentage points below" in sentences[1]

    real_loses = {(d, ("discrete-mh" if a == "real-mh" else "real-mh"), r): e
                  for (d, a, r), e in real_wins.items()}
    sentences = findings(real_loses, names, rounds)
    assert "on 0 of 3 data sets after 10 rounds" in sentences[0]
    assert "is at least as accurate did not hold here" in sentences[0]
    assert "learns faster did not hold here" in sentences[1]

    mixed = dict(real_wins)
    for d in names:
        mixed[d, "real-mh", 100] = 0.5  # real worse than discrete after 100 rounds
    assert "is at least as accurate held in part here" in findings(mixed, names, rounds)[0]

    curves = {("a", "real-mh"): [0.5, 0.2, 0.1], ("a", "discrete-mh"): [0.6, 0.4, 0.2]}
    errors = {("a", key, 3): c[-1] for (_, key), c in curves.items()}
    assert "after a median of 2 rounds" in findings(errors, ["a"], [3], curves=curves)[1]

    text = {"real-mh": [0.3, 0.1, 0.05, 0.05], "discrete-mh": [0.5, 0.4, 0.3, 0.1]}
    last = findings(real_wins, names, [1, 4], text=text)[-1]
    assert "On the text task" in last and "after 2 rounds (2.0 times fewer)" in last
    assert "learns faster on text held here" in last


def test_text_experiment_is_skipped_with_a_message(tmp_path):
    result = text_experiment(tmp_path, [5], stream=sys.stderr)
    assert result.status == "skipped" and result.message
    assert not result.runs


def test_sets_missing_from_the_data_folder_are_skipped(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["reproduce", "--datasets", "glass", "--rounds", "2", "--data",
                 str(tmp_path), "--out", str(out), "--no-text"]) == 0
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "| glass | – | – | – | – | skipped: not in the data folder" in report
    assert "glass: skipped" in capsys.readouterr().err


def test_unknown_dataset_exits_2(tmp_path, capsys):
    assert main(["reproduce", "--datasets", "nope", "--out", str(tmp_path)]) == 2
    assert "error" in capsys.readouterr().err


def test_missing_matplotlib_names_the_extra(monkeypatch, tmp_path, capsys):
    from confboost.plot import require_matplotlib

    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r"pip install confboost\[plot\]"):
        require_matplotlib()
    assert main(["reproduce", "--datasets", "glass", "--out", str(tmp_path)]) == 2
    assert "confboost[plot]" in capsys.readouterr().err


def test_reuters_task_on_the_shared_copy():
    from confboost.datasets import default_data_dir
    from confboost.experiments.runs import reuters_task

    root = default_data_dir()
    if root is None or not (root / "reuters21578" / "reuters21578.csv.gz").is_file():
        pytest.skip("no Reuters-21578 in the data folder (confboost.datasets.fetch("
                    "'reuters21578') or set CONFBOOST_DATA)")
    docs_train, y_train, docs_test, y_test, description = reuters_task(root)
    assert len(docs_train) == y_train.size and len(docs_test) == y_test.size
    assert np.unique(y_train).size == 10 and set(y_test) <= set(y_train)
    assert "earn" in set(y_train) and "ModApte" in description
    # story 19918 lists "trade" twice: one topic, so a single-label document
    assert (len(docs_train), len(docs_test)) == (5754, 2255)


def write_tiny_reuters(folder):
    import gzip

    rng = np.random.default_rng(0)
    topics = {"earn": "profit dividend", "acq": "merger shares", "crude": "oil barrel"}
    header = ["newid", "modapte", "topics", "title", "body"]
    (folder / "reuters21578").mkdir(parents=True)
    with gzip.open(folder / "reuters21578" / "reuters21578.csv.gz", "wt", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        for i in range(120):
            topic = list(topics)[i % 3]
            words = " ".join(rng.choice(topics[topic].split() + ["the", "said", "mln"], 6))
            part = "train" if i < 90 else "test"
            writer.writerow([i, part, topic if i % 10 else f"{topic};grain", "TITLE", words])


def test_text_task_plugs_in(tmp_path, monkeypatch):
    from confboost.experiments import reproduce as module

    write_tiny_reuters(tmp_path)
    monkeypatch.setattr(module, "algorithm_available", lambda key: (key != "discrete-mr", "x"))
    result = module.reproduce(tmp_path / "out", data_dir=tmp_path, datasets=["glass"],
                              rounds=[2, 5], stream=sys.stderr)
    assert result.text.status == "ok" and set(result.text.runs) == {"real-mh", "discrete-mh"}
    assert result.text.n_train == 81 and result.text.n_classes == 3  # i % 10 == 0: two topics
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "![text learning curves](text_curves.png)" in report
    assert any(s.startswith("On the text task") for s in result.sentences)
    png_size(tmp_path / "out" / "text_curves.png")
    rows = read_results(tmp_path / "out")
    assert {(r["dataset"], r["algorithm"], r["rounds"]) for r in rows} == {
        ("reuters21578", a, n) for a in ("real-mh", "discrete-mh") for n in ("2", "5")}


def test_reuters_is_not_looked_for_among_the_bundled_copies():
    from confboost.experiments.runs import reuters_task

    with pytest.raises(FileNotFoundError, match="not bundled"):
        reuters_task(BUNDLED)
