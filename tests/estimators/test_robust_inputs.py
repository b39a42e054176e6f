"""Parameters and inputs that used to pass unchecked: each is now a result or one clear
error (class weights, tiny smoothing, heavy sample weights, partial dependence's column,
dask arrays of unknown chunk sizes, invalid UTF-8 on ``classify``'s stdin)."""

import io
import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris

from confboost import BoostClassifier
from confboost.cli import main
from confboost.engine.confidence import MIN_SMOOTHING, smoothing_from_totals
from confboost.estimators.booster import Booster
from confboost.explain.contributions import partial_dependence

X, Y = load_iris(return_X_y=True)


@pytest.mark.parametrize("weight", [-1.0, 0, 0.0, float("nan"), float("inf"), True, "2"])
@pytest.mark.parametrize("estimator", [BoostClassifier, Booster])
def test_a_class_weight_that_is_not_a_finite_positive_number_is_refused(estimator, weight):
    with pytest.raises(ValueError, match=r"class_weight\[1\] must be a finite number > 0"):
        estimator(3, class_weight={0: 1.0, 1: weight, 2: 1.0}).fit(X, Y)


def test_positive_class_weights_still_weigh():
    heavy = BoostClassifier(5, class_weight={0: 1.0, 1: 50.0, 2: 1.0}).fit(X, Y)
    assert (heavy.predict(X) == 1).sum() >= (BoostClassifier(5).fit(X, Y).predict(X) == 1).sum()


@pytest.mark.parametrize("smoothing", [1e-310, 5e-324, 1e-301])
def test_a_smoothing_too_small_for_finite_confidences_is_refused(smoothing):
    with pytest.raises(ValueError, match="'smoothing' parameter .* range \\[1e-300, inf\\)"):
        BoostClassifier(3, smoothing=smoothing).fit(X, Y)


@pytest.mark.parametrize("scheme", ["mh", "mr", "mo"])
def test_the_smallest_smoothing_gives_finite_scores(scheme):
    # MR's Newton step met a singular Laplacian below about 1e-20 (found by the fuzzer)
    clf = BoostClassifier(5, scheme=scheme, smoothing=MIN_SMOOTHING, random_state=0)
    scores = clf.fit(X, Y).decision_function(X)
    assert np.isfinite(scores).all()
    assert (clf.predict(X) == Y).mean() > 0.9


def test_weights_summing_near_the_float_maximum_give_finite_scores():
    weight = np.full(len(Y), 1e306)  # Σ 1.5e308: finite, and the default ε was 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        clf = BoostClassifier(5).fit(X, Y, sample_weight=weight)
    assert clf.smoothing_ >= MIN_SMOOTHING
    assert np.isfinite(clf.decision_function(X)).all()
    assert smoothing_from_totals(np.inf, 3, 2) == MIN_SMOOTHING


def test_cli_smoothing_too_small_is_one_line(tmp_path, capsys):
    (tmp_path / "t.names").write_text("a, b.\nx: continuous.\n")
    (tmp_path / "t.data").write_text("".join(f"{i}, {'a' if i % 2 else 'b'}.\n"
                                             for i in range(20)))
    status = main(["train", "-S", str(tmp_path / "t"), "-n", "2", "-E", "1e-320"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and "-E 1e-320: too small" in err


@pytest.mark.parametrize("column", [-1, 4, 1.0, True, "0", np.int64(-2)])
def test_partial_dependence_refuses_a_column_out_of_range(column):
    clf = BoostClassifier(5).fit(X, Y)
    with pytest.raises(ValueError, match=r"column must be a column position in \[0, 4\)"):
        partial_dependence(clf, column, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"column must be a column position in \[0, 4\)"):
        partial_dependence(clf, column, [1.0, 2.0], X[:10])


def test_partial_dependence_takes_a_numpy_integer():
    clf = BoostClassifier(5).fit(X, Y)
    assert np.array_equal(partial_dependence(clf, np.int64(3), [0.5, 2.0]),
                          partial_dependence(clf, 3, [0.5, 2.0]))


def test_invalid_utf8_on_classify_stdin_names_the_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "t.names").write_text("a, b.\nx: continuous.\nw: text.\n")
    (tmp_path / "t.data").write_text("".join(f"{i}, w{i % 3}, {'a' if i % 2 else 'b'}.\n"
                                             for i in range(20)))
    stem = str(tmp_path / "t")
    assert main(["train", "-S", stem, "-n", "2"]) == 0
    capsys.readouterr()
    raw = io.TextIOWrapper(io.BytesIO(b"3, ok\ncaf\xe9, x\n"), encoding="utf-8")
    monkeypatch.setattr("sys.stdin", raw)
    assert main(["classify", "-S", stem]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "<stdin>:2: not valid UTF-8" in err


def test_invalid_utf8_on_classify_stdin_in_a_process(tmp_path):
    (tmp_path / "t.names").write_text("a, b.\nx: continuous.\n")
    (tmp_path / "t.data").write_text("".join(f"{i}, {'a' if i % 2 else 'b'}.\n"
                                             for i in range(20)))
    stem = str(tmp_path / "t")
    command = [sys.executable, "-m", "confboost.cli"]
    subprocess.run([*command, "train", "-S", stem, "-n", "2"], check=True,
                   capture_output=True)
    done = subprocess.run([*command, "classify", "-S", stem], input=b"\xff\xfe1\n",
                          capture_output=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.decode().count("\n") == 1
    assert b"<stdin>:1: not valid UTF-8" in done.stderr


def test_dask_arrays_of_unknown_chunk_sizes_are_refused_with_the_remedy():
    distributed = pytest.importorskip("distributed")
    da = pytest.importorskip("dask.array")
    from confboost.dask import DaskBoostClassifier

    data = da.from_array(X, chunks=50)
    labels = da.from_array(Y, chunks=50)
    keep = data[:, 0] > 0
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        for a, b, name in [(data[keep], labels, "X"), (data, labels[keep], "y")]:
            with pytest.raises(ValueError, match=rf"{name} is a dask array of unknown chunk "
                                                 rf"sizes.*{name}\.compute_chunk_sizes"):
                DaskBoostClassifier(2).fit(a, b)
        with pytest.raises(ValueError, match="sample_weight is a dask array of unknown"):
            DaskBoostClassifier(2).fit(data, labels,
                                       sample_weight=da.ones(150, chunks=50)[labels >= 0])
        shown, tags = data[keep], labels[keep]
        shown.compute_chunk_sizes()
        tags.compute_chunk_sizes()
        assert DaskBoostClassifier(2).fit(shown, tags).n_features_in_ == 4
