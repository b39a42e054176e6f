"""One model, two doors: a model that ``confboost train`` fits on single-label data loads in
Python as the single-label classifier it is; a model fitted in Python classifies from the
command line, its scores in the ``.names`` order; ``--version`` on every command; a closed
output pipe ends a command quietly."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import confboost
from confboost.cli import main

NAMES = "{classes}.\nsize: continuous.\nweight: continuous.\nbody: text.\n"


def _stem(folder, classes):
    rng = np.random.default_rng(0)
    rows = []
    for i in range(90):
        label = classes[i % len(classes)]
        size = rng.normal(1 + classes.index(label), 0.7)
        body = " ".join(rng.choice(["aa", "bb", "cc", label[:2]], 3))
        rows.append((size, rng.normal(0, 1), body, label))
    (folder / "s.names").write_text(NAMES.format(classes=", ".join(classes)))
    for suffix, part in ((".data", rows[:60]), (".test", rows[60:])):
        (folder / f"s{suffix}").write_text(
            "".join(f"{s:.3f}, {w:.3f}, {b}, {c}.\n" for s, w, b, c in part))
    return folder / "s", rows


def _frame(rows, text=True):
    table = {"size": [r[0] for r in rows], "weight": [r[1] for r in rows]}
    if text:
        table["body"] = [r[2] for r in rows]
    return pd.DataFrame(table)


def _classify(stem, capsys, *options):
    capsys.readouterr()
    assert main(["classify", "-S", str(stem), "-i", f"{stem}.test", "--raw", *options]) == 0
    return np.array([line.split()[-3:] if "," not in line else []
                     for line in capsys.readouterr().out.splitlines()], dtype=float)


@pytest.mark.parametrize("classes", [["red", "green", "blue"], ["spam", "ham"]])
@pytest.mark.parametrize("scheme", ["mh", "mr", "mo"])
def test_a_cli_model_of_single_label_data_loads_single_label(tmp_path, capsys, classes,
                                                             scheme):
    stem, rows = _stem(tmp_path, classes)
    assert main(["train", "-S", str(stem), "-n", "5", "--scheme", scheme]) == 0
    clf = confboost.load(f"{stem}.model.json")
    assert list(clf.classes_) == classes  # the .names classes, in its order
    X, truth = _frame(rows[60:]), [r[3] for r in rows[60:]]
    predicted = clf.predict(X)
    assert predicted.shape == (30,) and set(predicted) <= set(classes)
    assert clf.score(X, truth) > 0.6
    proba = clf.predict_proba(X)
    assert proba.shape == (30, len(classes))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    capsys.readouterr()
    assert main(["classify", "-S", str(stem), "-i", f"{stem}.test", "--raw"]) == 0
    scores = np.array([line.split()[len(classes):] for line in
                       capsys.readouterr().out.splitlines()], dtype=float)
    np.testing.assert_array_equal(clf.classes_[np.argmax(scores, axis=1)], predicted)
    clf.save(tmp_path / "again.json")  # and the Python file reads back the same
    np.testing.assert_array_equal(confboost.load(tmp_path / "again.json").predict(X),
                                  predicted)


def test_a_cli_model_of_multi_label_data_stays_multi_label(tmp_path):
    stem, rows = _stem(tmp_path, ["red", "green", "blue"])
    lines = (tmp_path / "s.data").read_text().splitlines()
    lines[0] = lines[0].rstrip(".").rsplit(",", 1)[0] + ", red green."  # two labels
    (tmp_path / "s.data").write_text("\n".join(lines) + "\n")
    assert main(["train", "-S", str(stem), "-n", "3"]) == 0
    clf = confboost.load(f"{stem}.model.json")
    assert list(clf.classes_) == [0, 1, 2]
    assert clf.predict(_frame(rows[60:])).shape == (30, 3)


@pytest.mark.parametrize("text", [True, False])
def test_a_python_model_classifies_from_the_cli_in_names_order(tmp_path, capsys, text):
    classes = ["red", "green", "blue"]  # not sorted: Python's classes_ are
    stem, rows = _stem(tmp_path, classes)
    if not text:
        (tmp_path / "s.names").write_text(NAMES.format(classes=", ".join(classes))
                                          .replace("body: text", "body: ignore"))
    clf = confboost.BoostClassifier(5, feature_types={"body": "text"} if text else None)
    clf.fit(_frame(rows[:60], text), [r[3] for r in rows[:60]]).save(tmp_path / "py.json")
    scores = _classify(stem, capsys, "-m", str(tmp_path / "py.json"))
    f = clf.decision_function(_frame(rows[60:], text))
    order = [list(clf.classes_).index(name) for name in classes]
    np.testing.assert_allclose(scores, f[:, order], atol=1e-11)


def test_a_python_model_of_other_classes_is_refused(tmp_path, capsys):
    stem, rows = _stem(tmp_path, ["red", "green", "blue"])
    clf = confboost.BoostClassifier(3, feature_types={"body": "text"})
    clf.fit(_frame(rows[:60]), ["x" if r[3] == "red" else r[3] for r in rows[:60]])
    clf.save(tmp_path / "py.json")
    assert main(["classify", "-S", str(stem), "-i", f"{stem}.test",
                 "-m", str(tmp_path / "py.json")]) == 2
    assert "differ from the .names classes" in capsys.readouterr().err


@pytest.mark.parametrize("command", [[], ["icsiboost"], ["train"], ["classify"]])
def test_version_on_every_command(capsys, command):
    with pytest.raises(SystemExit) as stopped:
        main([*command, "--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"confboost {confboost.__version__}\n"


class _ClosedPipe:
    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_pipe_ends_the_command_quietly(tmp_path, monkeypatch, capsys):
    stem, _ = _stem(tmp_path, ["red", "green", "blue"])
    assert main(["train", "-S", str(stem), "-n", "3"]) == 0
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert main(["classify", "-S", str(stem), "-i", f"{stem}.test"]) == 141
    assert capsys.readouterr().err == ""


def test_piping_into_head_prints_no_error():
    process = subprocess.Popen([sys.executable, "-m", "confboost.cli", "demo", "--rounds", "30"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = process.stdout.readline()
    process.stdout.close()  # as `head -1` does, while the demo still has lines to write
    status = process.wait(timeout=120)
    error = process.stderr.read()
    assert first.startswith("data set ")
    assert status == 141, error
    assert "Broken pipe" not in error and "Traceback" not in error and error == ""


class _PipeClosedAtFlush:
    """A block-buffered stdout: writes are kept, the pipe is found closed at the flush."""

    def write(self, text):
        return len(text)

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


def test_a_pipe_found_closed_at_the_last_flush_ends_quietly(tmp_path, monkeypatch, capsys):
    stem, _ = _stem(tmp_path, ["red", "green", "blue"])
    assert main(["train", "-S", str(stem), "-n", "3"]) == 0
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdout", _PipeClosedAtFlush())
    assert main(["show", "-m", f"{stem}.model.json"]) == 141
    assert capsys.readouterr().err == ""
