"""Plots from a fitted estimator draw what they say: the history and the staged test loss,
§5 margins, a waterfall that adds up to f, the exact step function of a column; and the
partial dependence they draw."""

import numpy as np
import pytest
from sklearn.datasets import load_iris

pytest.importorskip("matplotlib")

from confboost import BoostClassifier, plot  # noqa: E402
from confboost.evaluation.margins import margin_distribution, normalized_margins  # noqa: E402
from confboost.explain import partial_dependence  # noqa: E402


@pytest.fixture(scope="module")
def iris():
    data = load_iris(as_frame=True)
    X, y = data.data, data.target_names[data.target]
    return X.iloc[::2], y[::2], X.iloc[1::2], y[1::2]


@pytest.fixture(scope="module")
def stumps(iris):
    X, y, _, _ = iris
    return BoostClassifier(20).fit(X, y)


def test_learning_curves_draw_history_and_staged_test_error(iris, stumps):
    _, _, X_test, y_test = iris
    figure = plot.learning_curves(stumps, X_test, y_test)
    lines = {line.get_label(): line.get_ydata() for line in figure.axes[0].get_lines()}
    np.testing.assert_array_equal(lines["training error"], stumps.history_["train_loss"])
    np.testing.assert_array_equal(lines["its bound (from Π Z_t)"], stumps.history_["bound"])
    staged = [np.mean(p != y_test) for p in stumps.staged_predict(X_test)]
    np.testing.assert_allclose(lines["test error"], staged)


def test_learning_curves_name_the_ranking_loss_of_mr(iris):
    X, y, X_test, y_test = iris
    clf = BoostClassifier(5, scheme="mr").fit(X, y)
    labels = [line.get_label() for line in plot.learning_curves(clf, X_test,
                                                                y_test).axes[0].get_lines()]
    assert labels[0] == "training ranking loss" and labels[2] == "test ranking loss"


def test_margins_are_normalised_section_5(iris, stumps):
    X, y, _, _ = iris
    figure = plot.margins(stumps, X, y, rounds=[3, 20])
    lines = figure.axes[0].get_lines()[:2]
    assert [line.get_label() for line in lines] == ["3 rounds", "20 rounds"]
    scale = sum(abs(a) * np.abs(h.values).max()
                for h, a in zip(stumps.model_.hypotheses, stumps.model_.alphas, strict=True))
    Y = np.asarray(y)[:, None] == stumps.classes_[None, :]
    expected = normalized_margins(stumps.decision_function(X), Y, scale)
    assert np.all(np.abs(expected) <= 1)
    np.testing.assert_allclose(lines[1].get_ydata(),
                               margin_distribution(expected, lines[1].get_xdata()))
    with pytest.raises(ValueError, match="rounds must lie in"):
        plot.margins(stumps, X, y, rounds=[21])


def test_waterfall_adds_up_to_f(iris):
    X, y, _, _ = iris
    clf = BoostClassifier(10, weak_learner="tree", max_leaves=4).fit(X, y)
    row = X.iloc[7]
    figure = plot.contributions(clf, row, label="virginica", max_display=2)
    bars = figure.axes[0].patches
    widths = sum(bar.get_width() for bar in bars)
    start = bars[0].get_x()
    f = clf.decision_function(X.iloc[[7]])[0, 2]
    assert len(bars) == 2  # one column, then the other three summed
    assert start + widths == pytest.approx(f, abs=1e-9)
    assert start == pytest.approx(clf.explain(X.iloc[[7]])[0, 2, -1], abs=1e-12)


def test_dependence_of_stumps_is_the_sum_of_the_column_stumps(iris, stumps):
    X, _, _, _ = iris
    column = stumps.rounds_[0].column
    grid = np.linspace(0, 8, 33)
    shape = partial_dependence(stumps, column, grid)
    on_column = [(h, a) for h, a in zip(stumps.model_.hypotheses, stumps.model_.alphas,
                                        strict=True) if h.feature == column]
    rows = np.full((grid.size, 4), np.nan)
    rows[:, column] = grid
    direct = sum(a * (h.values[h.blocks(rows)] - h.cover @ h.values / h.cover.sum())
                 for h, a in on_column)
    np.testing.assert_allclose(shape, direct, atol=1e-12)
    # over data, Friedman's partial dependence differs from it by a constant
    over_data = partial_dependence(stumps, column, grid, X)
    np.testing.assert_allclose(over_data - over_data[0], shape - shape[0], atol=1e-9)
    figure = plot.dependence(stumps, X.columns[column], label="setosa")
    steps = figure.axes[0].patches[0].get_data().values
    thresholds = sorted({h.threshold for h, _ in on_column if np.isfinite(h.threshold)})
    assert steps.size == len(thresholds) + 1


def test_dependence_needs_data_when_the_column_interacts(iris):
    X, y, _, _ = iris
    clf = BoostClassifier(5, weak_learner="tree", max_leaves=4).fit(X, y)
    column = clf.rounds_[0].columns[0]
    with pytest.raises(ValueError, match="pass X"):
        plot.dependence(clf, column)
    assert plot.dependence(clf, column, X=X).axes


def test_one_panel_figure_has_one_title():
    from confboost.plot.panels import _grid, _title

    figure, axes = _grid(1)
    axes[0].set_title("panel")
    _title(figure, axes, "T")
    assert figure._suptitle is None and axes[0].get_title() == "T (panel)"


def test_importance_bars_are_the_bound_shares_or_the_contributions(iris, stumps):
    X, _, X_test, _ = iris
    figure = plot.importance(stumps)
    (axis,) = figure.axes
    widths = sorted((bar.get_width() for bar in axis.patches), reverse=True)
    shares = np.sort(100 * stumps.feature_importances_[stumps.feature_importances_ > 0])[::-1]
    np.testing.assert_allclose(widths, shares)
    ticks = dict(zip(axis.get_yticks(), (t.get_text() for t in axis.get_yticklabels()),
                     strict=True))
    assert ticks[max(ticks)] == X.columns[np.argmax(stumps.feature_importances_)]  # on top
    (axis,) = plot.importance(stumps, X_test, max_display=2).axes
    magnitude = np.abs(stumps.explain(X_test)[:, :, :-1]).mean(axis=0).sum(axis=0)
    np.testing.assert_allclose(sorted(bar.get_width() for bar in axis.patches),
                               np.sort(magnitude)[-2:])
    assert "over 75 rows" in axis.get_xlabel()


def _texts(figure):
    return [text.get_text() for text in figure.axes[0].texts]


def test_tree_of_a_stump_is_one_split_with_its_three_blocks(iris, stumps):
    texts = _texts(plot.tree(stumps, 1))
    hypothesis = stumps.model_.hypotheses[0]
    name = iris[0].columns[hypothesis.feature]
    assert f"{name} <= {hypothesis.threshold:.4g}" in texts
    assert {"yes", "no", "missing"} <= set(texts)
    leaves = [t for t in texts if "\n" in t or t.split()[0] in stumps.classes_]
    assert len(leaves) == 3
    with pytest.raises(ValueError, match="round must lie in 1..20"):
        plot.tree(stumps, 21)


def test_tree_draws_every_node_and_leaf_of_a_fitted_tree(iris):
    X, y, _, _ = iris
    clf = BoostClassifier(3, weak_learner="tree", max_leaves=5).fit(X, y)
    hypothesis = clf.model_.hypotheses[1]
    texts = _texts(plot.tree(clf, 2, max_outputs=1))
    n_internal = hypothesis.left.shape[0]
    assert texts.count("yes") == n_internal and texts.count("no") == n_internal
    leaves = [t for t in texts if t.split()[0] in clf.classes_]
    assert len(leaves) == n_internal + 1
    alpha = clf.model_.alphas[1]
    top = np.max(np.abs(alpha * hypothesis.values), axis=1)
    shown = sorted(abs(float(t.split()[1])) for t in leaves if "more" not in t.split()[1])
    np.testing.assert_allclose(shown, np.sort(top), rtol=1e-2)


def test_tree_refuses_a_product(iris):
    X, y, _, _ = iris
    clf = BoostClassifier(2, weak_learner="product").fit(X, y)
    with pytest.raises(ValueError, match="product"):
        plot.tree(clf, 1)


def test_multilabel_margins_leave_out_rows_without_a_pair():
    from tests.helpers import mixed_frame

    frame, Y = mixed_frame(np.random.default_rng(0))
    clf = BoostClassifier(5, feature_types={"row": "ignore"}).fit(frame, Y)
    n_true = Y.sum(axis=1)
    left_out = int(((n_true == 0) | (n_true == Y.shape[1])).sum())
    assert left_out > 0
    figure = plot.margins(clf, frame, Y, rounds=[5])
    assert f"{left_out} examples with every label or none left out" in (
        figure.axes[0].get_title())
    assert plot.dependence(clf, "colour").axes[0].patches  # a bar per value, other, missing
