"""The BoosTexter / icsiboost command line end to end on a small STEM in a temporary folder."""

import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from confboost.cli import main
from confboost.engine.learners import ProductHypothesis, TreeHypothesis
from confboost.engine.model import BoostedModel
from confboost.formats.shyp import ShypError, export_shyp, import_shyp
from tests.helpers import NAMES, ROUND, run, stem_line


def test_train_test_classify_export_import(stem, capsys, monkeypatch, tmp_path):
    status, out, err = run(["train", "-S", stem, "-n", 12], capsys)
    assert status == 0, err
    lines = [line for line in out.splitlines() if line.startswith("rnd")]
    assert len(lines) == 12
    product = 1.0
    for number, line in enumerate(lines, start=1):
        match = ROUND.fullmatch(line)
        assert match, line
        assert int(match.group(1)) == number
        product *= float(match.group(2))
        assert float(match.group(3)) == pytest.approx(product, abs=2e-6)
    model = tmp_path / "t.model.json"
    assert model.exists()

    status, out, err = run(["test", "-S", stem, "--max-fmeasure", "urgent"], capsys)
    assert status == 0, err
    for what in ("hamming loss", "one-error", "coverage", "average precision", "micro F1",
                 "max F1 of urgent"):
        assert what in out
    assert re.search(r"^spam\s+\d\.\d{6}\s+\d\.\d{6}\s+\d\.\d{6}", out, re.M)

    test_lines = (tmp_path / "t.test").read_text()
    status, out, err = run(["classify", "-S", stem, "--raw"], capsys, test_lines, monkeypatch)
    assert status == 0, err
    rows = [line.split() for line in out.splitlines()]
    assert len(rows) == 60 and all(len(row) == 3 + 3 for row in rows)  # gold labels + scores
    scores = np.array([[float(v) for v in row[3:]] for row in rows])

    unlabelled = "".join(line.rsplit(",", 1)[0] + "\n" for line in test_lines.splitlines())
    status, out, err = run(["classify", "-S", stem, "--posteriors"], capsys, unlabelled,
                           monkeypatch)
    assert status == 0, err
    rows = np.array([[float(v) for v in line.split()] for line in out.splitlines()])
    assert rows.shape == (60, 6) and not rows[:, :3].any()  # no labels: icsiboost's zeros
    np.testing.assert_allclose(rows[:, 3:], 1 / (1 + np.exp(-2 * scores)), atol=1e-10)

    status, out, err = run(["export-shyp", "-S", stem], capsys)
    assert status == 0, err
    shyp = (tmp_path / "t.shyp").read_text()
    assert re.search(r"^   \S+ Text:(SGRAM|THRESHOLD):(size|colour|body):", shyp, re.M)
    status, out, err = run(["import-shyp", "-S", stem, "-o", tmp_path / "imported.json"],
                           capsys)
    assert status == 0, err
    status, out, err = run(["classify", "-S", stem, "--raw", "-m", tmp_path / "imported.json"],
                           capsys, test_lines, monkeypatch)
    assert status == 0, err
    imported = np.array([[float(v) for v in line.split()[3:]] for line in out.splitlines()])
    np.testing.assert_allclose(imported, scores, atol=1e-9)


def test_optimal_iterations_keeps_the_best_dev_round(stem, capsys, tmp_path):
    status, out, err = run(["train", "-S", stem, "-n", 15, "--optimal-iterations",
                            "--confidence", "real-abstain", "-o", tmp_path / "m.json"], capsys)
    assert status == 0, err
    dev = [float(ROUND.fullmatch(line).group(4)) for line in out.splitlines()
           if line.startswith("rnd")]
    best = int(np.argmin(dev)) + 1
    assert f"OPTIMAL ITERATIONS: {best}, error = {min(dev):f}" in out
    assert f"({best} rounds)" in err


def test_max_fmeasure_lines_and_discrete(stem, capsys):
    status, out, err = run(["train", "-S", stem, "-n", 3, "--max-fmeasure", "spam",
                            "--confidence", "discrete", "-W", 1, "-N", "fgram"], capsys)
    assert status == 0, err
    assert re.search(r"rnd 3: .* dev= \d\.\d{6} \(R=\d\.\d{3}, P=\d\.\d{3}\)", out)


def test_help_on_every_command(capsys):
    for command in ("train", "test", "classify", "export-shyp", "import-shyp", "demo",
                    "icsiboost"):
        with pytest.raises(SystemExit) as stop:
            main([command, "--help"])
        assert stop.value.code == 0
        assert "usage:" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["train", "-S", "STEM", "-n", "0"], "positive integer"),
    (["train", "-S", "STEM", "--confidence", "bogus"], "invalid choice"),
    (["train"], "required"),
    (["train", "-S", "STEM", "-N", "trigram"], "invalid choice"),
])
def test_bad_arguments_exit_2_with_one_line(stem, capsys, argv, message):
    argv = [str(stem) if a == "STEM" else a for a in argv]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_bad_files_exit_2_with_file_line_column(stem, capsys, monkeypatch, tmp_path):
    data = (tmp_path / "t.data").read_text().splitlines()
    data[4] = "big, red, cheap now, 4, spam."
    (tmp_path / "t.data").write_text("\n".join(data) + "\n")
    status, out, err = run(["train", "-S", stem], capsys)
    assert status == 2
    assert err.strip() == (f"confboost train: error: {tmp_path / 't.data'}:5: column 'size' "
                           "(1): expected a number, got 'big'")
    status, out, err = run(["train", "-S", tmp_path / "absent"], capsys)
    assert status == 2 and "absent.names" in err and len(err.strip().splitlines()) == 1
    status, out, err = run(["test", "-S", stem], capsys)
    assert status == 2 and "no such model file" in err
    status, out, err = run(["train", "-S", stem, "--max-fmeasure", "eggs"], capsys)
    assert status == 2 and "'eggs' is not a class" in err


def test_classify_reports_stdin_errors_and_optimal_needs_dev(stem, capsys, monkeypatch,
                                                             tmp_path):
    (tmp_path / "t.data").write_text((tmp_path / "t.dev").read_text())
    (tmp_path / "t.dev").unlink()
    (tmp_path / "t.test").unlink()
    status, out, err = run(["train", "-S", stem, "-n", 2, "--optimal-iterations"], capsys)
    assert status == 2 and "needs STEM.dev" in err
    status, out, err = run(["train", "-S", stem, "-n", 2], capsys)
    assert status == 0 and "dev= nan test= nan train=" in out
    status, out, err = run(["classify", "-S", stem], capsys, "1.0, red, a b, 3, spam, eggs\n",
                           monkeypatch)
    assert status == 2 and "<stdin>:1: expected 4 or 5 comma-separated fields" in err


def test_import_shyp_errors(stem, tmp_path, capsys):
    from argparse import Namespace

    from confboost.cli.icsiboost_flags import experts
    from confboost.cli.stems import _encoder
    from confboost.formats.boostexter import read_names

    spec = read_names(tmp_path / "t.names")
    encoder = _encoder(spec, experts(spec, Namespace()))
    cases = {
        "1\n\n   1.0 Text:SGRAM:nope:x\n\n0 0 0 \n\n0 0 0 \n": "column 'nope' is not in",
        "1\n\n   1.0 Text:THRESHOLD:body:\n\n0 0 0\n\n0 0 0\n\n0 0 0\n\n1\n": "not continuous",
        "1\n\n   1.0 Text:SGRAM:body:x\n\n0 0\n\n0 0 0 \n": ":5: expected 3 finite numbers",
        "1\n\n   1.0 Text:SGRAM:colour:7\n\n0 0 0\n\n0 0 0\n": "value number below 3",
        "two\n": "expected the number of hypotheses",
    }
    for text, message in cases.items():
        (tmp_path / "bad.shyp").write_text(text)
        with pytest.raises(ShypError, match=message):
            import_shyp(tmp_path / "bad.shyp", encoder, spec)


def test_export_shyp_refuses_hypotheses_icsiboost_lacks(tmp_path):
    # icsiboost has thresholds, text and set tests only: a product or a tree is refused,
    # naming the round and the type, and no file is written.
    spec = SimpleNamespace(columns=[])
    product = ProductHypothesis([0, 1], [0.5, 1.5], [False, False], np.zeros((2, 1)))
    tree = TreeHypothesis([0], [0], [0.5], [None], [False], [-1], [-2], np.zeros((2, 1)))
    for hypothesis, name in ((product, "ProductHypothesis"), (tree, "TreeHypothesis")):
        model = BoostedModel([hypothesis], [1.0], 1)
        with pytest.raises(ShypError, match=f"round 1: a {name} has no .shyp equivalent"):
            export_shyp(tmp_path / "m.shyp", model, None, spec)
    assert not (tmp_path / "m.shyp").exists()


def test_shyp_of_icsiboost_reads_as_icsiboost_scores(stem, tmp_path, capsys, monkeypatch):
    # A model as icsiboost writes it: alpha, THRESHOLD (c0 missing, c1 below, c2 at or above,
    # then the threshold) and SGRAM (c1 absent, c2 present; set columns by value number).
    (tmp_path / "t.shyp").write_text(
        "3\n\n   0.5 Text:THRESHOLD:size:\n\n1 2 3 \n\n-1 -1 -1 \n\n4 4 4 \n\n5.0\n\n\n"
        "   1.0 Text:SGRAM:body:cheap#now\n\n0.5 0 0 \n\n-2 1 0 \n\n\n"
        "   2.0 Text:SGRAM:colour:2\n\n0 0 1 \n\n0 0 3 \n\n\n")
    status, out, err = run(["import-shyp", "-S", stem], capsys)
    assert status == 0, err
    lines = "?, blue, cheap now, 1\n5.0, red, now cheap, 2\n4.9, green, cheap now please, 3\n"
    status, out, err = run(["classify", "-S", stem, "--raw"], capsys, lines, monkeypatch)
    assert status == 0, err
    expected = np.array([
        [0.5 * 1 - 2 + 0, 0.5 * 2 + 1 + 0, 0.5 * 3 + 0 + 6],   # missing, cheap now, blue
        [0.5 * 4 + 0.5, 0.5 * 4 + 0, 0.5 * 4 + 0 + 2],          # 5.0 >= 5.0, absent, red
        [0.5 * -1 - 2, 0.5 * -1 + 1, 0.5 * -1 + 0 + 2],         # 4.9 < 5.0, present, green
    ])
    np.testing.assert_allclose(
        [[float(v) for v in line.split()[3:]] for line in out.splitlines()], expected)


def test_train_with_adaboost_mr_and_refuse_mo_on_label_sets(stem, capsys):
    status, out, err = run(["train", "-S", stem, "-n", 5, "--scheme", "mr"], capsys)
    assert status == 0, err
    lines = [line for line in out.splitlines() if line.startswith("rnd")]
    bounds = [float(ROUND.fullmatch(line).group(3)) for line in lines]
    assert len(lines) == 5 and all(b2 <= b1 for b1, b2 in zip(bounds, bounds[1:], strict=False))
    status, out, err = run(["test", "-S", stem], capsys)
    assert status == 0, err
    status, out, err = run(["train", "-S", stem, "-n", 2, "--scheme", "mo"], capsys)
    assert status == 2 and "--scheme mo needs exactly one label per example" in err


@pytest.fixture
def single_stem(tmp_path):
    """The stem's task with one class per example: spam, ham or (urgent ones) other."""
    rng = np.random.default_rng(4)
    (tmp_path / "s.names").write_text(NAMES.replace("spam, ham, urgent.", "spam, ham, other."))
    for suffix, n in ((".data", 150), (".dev", 40), (".test", 60)):
        lines = [stem_line(rng, i).replace("ham urgent.", "other.").replace(" urgent.", ".")
                 for i in range(n)]
        (tmp_path / f"s{suffix}").write_text("".join(line + "\n" for line in lines))
    return tmp_path / "s"


@pytest.mark.parametrize("argv", [
    ["--weak-learner", "tree", "--max-leaves", "4", "--learning-rate", "0.5"],
    ["--weak-learner", "hamming_tree", "--max-leaves", "3"],
    ["--scheme", "mo", "--code", "exhaustive"],
    ["--scheme", "mo", "--code", "random", "--code-length", "5", "--decoding", "hamming",
     "--weak-learner", "tree"],
])
def test_train_options_reach_the_estimator(single_stem, capsys, tmp_path, argv):
    from confboost import load

    model = tmp_path / "m.json"
    status, out, err = run(["train", "-S", single_stem, "-n", 4, "-o", model, *argv], capsys)
    assert status == 0, err
    assert len([line for line in out.splitlines() if ROUND.fullmatch(line)]) == 4
    params = load(model).get_params()
    options = dict(zip(argv[::2], argv[1::2], strict=True))
    assert params["weak_learner"] == options.get("--weak-learner", "stump")
    assert params["max_leaves"] == int(options.get("--max-leaves", 8))
    assert params["learning_rate"] == float(options.get("--learning-rate", 1.0))
    assert params["scheme"] == options.get("--scheme", "mh")
    if "--code-length" in options:
        assert load(model).code_.shape == (3, 5)
    status, out, err = run(["test", "-S", single_stem, "-m", model], capsys)
    assert status == 0, err
    assert "error (top class, single-label)" in out


def test_bad_train_options_exit_2(single_stem, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["train", "-S", str(single_stem), "--learning-rate", "2"])
    assert exit_info.value.code == 2
    assert "--learning-rate: expected a number in (0, 1], got '2'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", "-S", str(single_stem), "--weak-learner", "forest"])
    assert "invalid choice: 'forest'" in capsys.readouterr().err


@pytest.mark.parametrize("flag, parameter, values", [
    ("--max-leaves", "max_leaves", ["1", "2", "255", "256"]),
    ("--learning-rate", "learning_rate", ["0", "1e-9", "1", "1.0001", "2"]),
    ("--seed", "random_state", ["-1", "0", str(2**32 - 1), str(2**32)]),
    ("--code-length", "code_length", ["0", "1", "40"]),
    ("-n", "n_estimators", ["0", "1"]),
    ("--jobs", "n_jobs", ["0", "1", "3"]),
])
def test_train_flags_hold_the_estimator_bounds(single_stem, capsys, flag, parameter, values):
    # each flag's type refuses (before any file is read) exactly what BoostClassifier's
    # parameter table refuses, which the Booster that train fits checks again at fit
    from confboost.cli.app import build_parser
    from confboost.estimators import BoostClassifier

    parser = build_parser()
    for text in values:
        try:
            arguments = parser.parse_args(["train", "-S", str(single_stem), flag, text])
            accepted = True
        except SystemExit:
            accepted = False
        capsys.readouterr()
        value = getattr(arguments, {"-n": "rounds", "--seed": "seed", "--jobs": "jobs"}.get(
            flag, flag[2:].replace("-", "_"))) if accepted else text
        estimator = BoostClassifier(**{parameter: value if accepted else
                                       float(text) if "." in text or "e" in text
                                       else int(text)})
        try:
            estimator._validate_params()
            valid = True
        except ValueError:
            valid = False
        assert accepted == valid, (flag, text)


def test_train_and_shyp_classify_import_no_scikit_learn(tmp_path):
    # a BoosTexter run fits a Booster, and classify reads a .shyp into one: scikit-learn
    # (with the SciPy statistics and pandas it pulls in) costs a command more than its whole
    # numeric run
    rng = np.random.default_rng(0)
    (tmp_path / "n.names").write_text("a, b, c.\nx: continuous.\ny: continuous.\n"
                                      "k: red, blue.\n")
    rows = [f"{rng.normal():.3f}, {'?' if i % 7 == 0 else f'{rng.normal():.3f}'}, "
            f"{'red' if i % 3 else 'blue'}, {'abc'[i % 3]}." for i in range(60)]
    for suffix in (".data", ".test"):
        (tmp_path / f"n{suffix}").write_text("".join(row + "\n" for row in rows))
    heavy = ("sklearn", "pandas", "matplotlib", "scipy.stats", "scipy.sparse", "scipy.special",
             "scipy.optimize")
    stem = str(tmp_path / "n")
    # train, writing icsiboost's .shyp too, then classify with that .shyp (icsiboost's -C)
    code = ("import sys\nfrom confboost.cli import main\n"
            f"status = main(['train', '-S', {stem!r}, '-n', '5', '--model', {stem + '.shyp'!r}])"
            f" + main(['classify', '-S', {stem!r}, '-m', {stem + '.shyp'!r}, '-i', "
            f"{stem + '.test'!r}])\n"
            f"print(status, [m for m in {heavy!r} if m in sys.modules])\n")
    src = Path(__file__).resolve().parents[2] / "src"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(src)}, check=True)
    assert done.stdout.splitlines()[-1] == "0 []", done.stdout + done.stderr


HEAVY = ("sklearn", "pandas", "matplotlib", "scipy.stats", "scipy.sparse", "scipy.special",
         "scipy.optimize")


def _fresh_command(argv, src):
    """(stdout, the HEAVY modules imported) of ``confboost argv`` in a fresh process."""
    code = ("import sys\nfrom confboost.cli import main\n"
            f"status = main({[str(a) for a in argv]!r})\n"
            f"print(status, [m for m in {HEAVY!r} if m in sys.modules], file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(src)}, check=True)
    status, _, heavy = done.stderr.splitlines()[-1].partition(" ")
    assert status == "0", done.stderr
    return done.stdout, heavy


@pytest.fixture(scope="module")
def numeric_model(tmp_path_factory):
    folder = tmp_path_factory.mktemp("numeric")
    rng = np.random.default_rng(1)
    (folder / "n.names").write_text("a, b, c.\nx: continuous.\ny: continuous.\n"
                                    "z: continuous.\n")
    for suffix, n in ((".data", 80), (".test", 30)):
        rows = [f"{rng.normal():.3f}, {'?' if i % 7 == 0 else f'{rng.normal():.3f}'}, "
                f"{rng.integers(5)}, {'abc'[i % 3]}." for i in range(n)]
        (folder / f"n{suffix}").write_text("".join(row + "\n" for row in rows))
    assert main(["train", "-S", str(folder / "n"), "-n", "8"]) == 0
    return folder / "n"


@pytest.mark.parametrize("command", ["test", "show", "export-shyp", "classify"])
def test_model_commands_import_no_scikit_learn(numeric_model, command, capsys, monkeypatch,
                                               tmp_path):
    # test, show, export-shyp and classify read a confboost model file as a Booster: every
    # parameter is checked with the table's checker (training.params.check_parameters), without
    # scikit-learn and the SciPy statistics and pandas it pulls in, and they
    # print what the model read as a BoostClassifier prints
    from confboost.cli import stems as cli_stems
    from confboost.estimators import BoostClassifier
    from confboost.formats import model_json as persistence

    stem = str(numeric_model)
    model = stem + ".model.json"
    argv = {"test": ["test", "-S", stem], "show": ["show", "-m", model, "--top", "3"],
            "export-shyp": ["export-shyp", "-S", stem, "-o", tmp_path / "out.shyp"],
            "classify": ["classify", "-S", stem, "-m", model, "-i", stem + ".test"]}[command]
    src = Path(__file__).resolve().parents[2] / "src"
    out, heavy = _fresh_command(argv, src)
    assert heavy == "[]", heavy
    if command == "export-shyp":  # what it writes is the file
        out = (tmp_path / "out.shyp").read_text()

    read_model = persistence.read_model
    as_classifier = lambda path, _: read_model(path, BoostClassifier)  # noqa: E731
    monkeypatch.setattr(cli_stems, "read_model", as_classifier)
    monkeypatch.setattr(persistence, "read_model", as_classifier)
    capsys.readouterr()
    status, expected, err = run(argv, capsys)
    assert status == 0, err
    if command == "export-shyp":
        expected = (tmp_path / "out.shyp").read_text()
    assert out == expected and out.strip()


def test_model_commands_on_text_import_no_scikit_learn(stem, tmp_path):
    # a model with categorical and text columns needs no more: its terms are matched
    # without scipy.sparse
    assert main(["train", "-S", str(stem), "-n", "6"]) == 0
    model = str(stem) + ".model.json"
    code_argv = [["test", "-S", stem], ["show", "-m", model],
                 ["export-shyp", "-S", stem, "-o", tmp_path / "t2.shyp"],
                 ["classify", "-S", stem, "-m", model, "-i", str(stem) + ".test"]]
    src = Path(__file__).resolve().parents[2] / "src"
    for argv in code_argv:
        out, heavy = _fresh_command(argv, src)
        assert heavy == "[]", (argv, heavy)


def test_train_refuses_a_smoothing_that_underflows(single_stem, capsys):
    status, _, err = run(["train", "-S", single_stem, "-n", 2, "-E", "1e-323"], capsys)
    assert status == 2 and "-E 1e-323: too small" in err
