"""Plots of a fitted boosted model.

From a fitted ``BoostClassifier`` and data (each returns the ``matplotlib.figure.Figure``):
``learning_curves`` (training loss, the theorem's bound, test loss per round),
``margins`` (the cumulative margin distribution of §5 at chosen rounds),
``contributions`` (one prediction's waterfall of exact column contributions,
``explain.contributions``), ``dependence`` (f as a function of one column), ``importance``
(each column's share of the bound's decrease, or its mean |contribution| on data) and
``tree`` (one round's rules drawn as a tree). From hand-built curves, each writing a PNG,
PDF or SVG file (``reports.py``, the figures of ``confboost reproduce``):
``training_curves``, ``test_error_curves``, ``scatter_comparison``, ``margin_cdf``.

matplotlib is an optional extra (``pip install confboost[plot]``); it is imported inside
each function, never at module import, so ``import confboost.plot`` always works. The
functions draw on ``matplotlib.figure.Figure`` objects (no pyplot, no global backend
change).
"""

import numpy as np

from confboost.plot.panels import _COLOURS, _grid, require_matplotlib
from confboost.plot.reports import (
    margin_cdf,
    scatter_comparison,
    test_error_curves,
    training_curves,
)

__all__ = [
    "contributions",
    "dependence",
    "importance",
    "learning_curves",
    "margin_cdf",
    "margins",
    "require_matplotlib",
    "scatter_comparison",
    "test_error_curves",
    "training_curves",
    "tree",
]

# --- plots from a fitted estimator ------------------------------------------------------

def loss_name(clf):
    """The loss a fitted estimator's ``history_["train_loss"]`` holds (and its bound's
    theorem bounds): "ranking loss" (MR), "Hamming loss" (MH multi-label) or "error"."""
    if clf.scheme == "mr" and clf.model_.n_labels > 1:
        return "ranking loss"
    if clf._multilabel:
        return "Hamming loss"
    return "error"


def _label_matrix(clf, y):
    """y as a boolean (n, k) label mask over the columns of f (binary: (n,) ±1 signs)."""
    y = np.asarray(y.toarray() if hasattr(y, "toarray") else y)
    if clf._multilabel:
        return y > 0
    position = {label: index for index, label in enumerate(clf.classes_.tolist())}
    try:  # classes_ in any order (a model trained by the command line: the .names order)
        encoded = np.array([position[label] for label in np.asarray(y).tolist()], dtype=int)
    except KeyError:
        raise ValueError("y holds a class the model was not fitted on") from None
    if hasattr(clf, "code_") and clf.code_.shape[1] > 1:
        return clf.code_[encoded] > 0
    if clf.model_.n_labels == 1:
        return np.where(encoded == 1, 1.0, -1.0)
    return np.eye(clf.classes_.size, dtype=bool)[encoded]


def _staged_losses(clf, X, y):
    """The test loss after each round, the loss ``loss_name(clf)`` names."""
    from confboost.evaluation.metrics import ranking_loss

    name = loss_name(clf)
    y = np.asarray(y.toarray() if hasattr(y, "toarray") else y)
    losses = []
    outputs = clf._outputs()
    for index, scores in enumerate(clf._staged_scores(X)):
        if name == "ranking loss":
            mask = _label_matrix(clf, y)
            losses.append(ranking_loss(mask, scores))
        else:
            predicted = outputs.predict(scores, index)
            wrong = predicted != y
            losses.append(float(np.mean(wrong)))
    return np.asarray(losses)


def learning_curves(clf, X_test=None, y_test=None):
    """Training loss, the theorem's bound Π Z_t on it, and the test loss per round.

    Parameters
    ----------
    clf : BoostClassifier
        Fitted.
    X_test, y_test : optional
        Held-out data: its loss (the same loss as the training curve) after every round.

    Returns
    -------
    matplotlib.figure.Figure
        Log-scale rounds and loss; a loss of 0 is not drawn on the log scale.
    """
    figure, (axis,) = _grid(1, panel_size=(5.6, 3.8))
    name = loss_name(clf)
    rounds = np.arange(1, clf.n_estimators_ + 1)
    kept = clf.n_estimators_  # early stopping: history_ also holds the rounds cut off
    axis.plot(rounds, clf.history_["train_loss"][:kept], color="tab:blue",
              label=f"training {name}")
    axis.plot(rounds, clf.history_["bound"][:kept], color="tab:blue", linestyle="--",
              label="its bound (from Π Z_t)")
    if X_test is not None:
        axis.plot(rounds, _staged_losses(clf, X_test, y_test), color="tab:orange",
                  label=f"test {name}")
    axis.set_xscale("log")
    axis.set_yscale("log", nonpositive="mask")
    axis.set_xlabel("rounds")
    axis.set_ylabel(name)
    axis.grid(True, which="major", color="0.9")
    axis.legend(fontsize=8)
    axis.set_title(f"{clf.n_estimators_} rounds of {clf.weak_learner_}, scheme {clf.scheme}",
                   fontsize=9)
    return figure


def margins(clf, X, y, rounds=None):
    """The cumulative distribution of the normalised margins (§5) after chosen rounds.

    The margin of an example is y f(x) / Σ_t abs(α_t) max abs(h_t) for binary data (in [-1,
    1]: the normaliser bounds abs(f) for real confidences too), and for several labels
    (min over its labels of f - max over the others) / (2 Σ_t abs(α_t) max abs(h_t))
    (``margins.normalized_margins``; multi-label examples with every label or none have no
    such margin and are left out, the title says how many); for ``scheme="mo"`` one margin
    per example and code bit (the binary margins of the code's problems).

    Parameters
    ----------
    clf : BoostClassifier
        Fitted.
    X, y
        Data (the training set for the paper's figure).
    rounds : sequence of int, optional
        Default: about n^(1/3), n^(2/3) and n of the n rounds (e.g. 10, 100, 1000).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from confboost.evaluation.margins import margin_distribution, normalized_margins

    n = clf.n_estimators_
    if rounds is None:
        rounds = sorted({max(1, round(n ** (1 / 3))), max(1, round(n ** (2 / 3))), n})
    rounds = [int(r) for r in rounds]
    if not rounds or min(rounds) < 1 or max(rounds) > n:
        raise ValueError(f"rounds must lie in 1..{n}, got {rounds}")
    Y = _label_matrix(clf, y)
    decoded = hasattr(clf, "code_") and clf.code_.shape[1] > 1
    scale = np.cumsum([abs(a) * np.abs(h.values).max()
                       for h, a in zip(clf.model_.hypotheses, clf.model_.alphas, strict=True)])
    keep = slice(None)
    if Y.ndim == 2 and not decoded:  # multi-label rows with every label or none: no pair
        n_true = Y.sum(axis=1)
        keep = (n_true > 0) & (n_true < Y.shape[1])
        Y = Y[keep]
    figure, (axis,) = _grid(1, panel_size=(5.6, 3.8))
    grid = np.linspace(-1.0, 1.0, 801)
    for index, scores in enumerate(clf._staged_scores(X)):
        if index + 1 not in rounds:
            continue
        values = scores[:, 0] if Y.ndim == 1 else scores[keep]
        normaliser = scale[index] if scale[index] > 0 else 1.0
        m = normalized_margins(values, Y, float(normaliser), per_pair=decoded)
        axis.plot(grid, margin_distribution(m, grid), label=f"{index + 1} rounds")
    axis.axvline(0.0, color="0.7", linewidth=0.8)
    axis.set_xlabel("normalised margin θ")
    axis.set_ylabel("fraction of examples with margin ≤ θ")
    axis.legend(fontsize=8)
    left_out = "" if isinstance(keep, slice) else (
        f"; {int((~keep).sum())} examples with every label or none left out" if
        not keep.all() else "")
    axis.set_title(f"cumulative margin distribution (§5){left_out}", fontsize=9)
    return figure


def _one_row(clf, x):
    """``x`` as a one-row input and the text of each column's value."""
    from confboost.explain.rules import table_names

    names = table_names(clf)
    if hasattr(x, "iloc"):
        row = x.to_frame().T if x.ndim == 1 else x
        shown = [row.iloc[0, j] for j in range(row.shape[1])]
        return row, names, shown
    if isinstance(x, dict):
        row = {name: [value] for name, value in x.items()}
        return row, names, list(x.values())
    row = np.asarray(x, dtype=np.float64).reshape(1, -1)
    return row, names, list(row[0])


def _value_text(value):
    if isinstance(value, float | np.floating):
        return "missing" if np.isnan(value) else f"{value:.4g}"
    text = "missing" if value is None else str(value)
    return text if len(text) <= 24 else text[:21] + "..."


def contributions(clf, x, label=None, max_display=10):
    """One prediction's waterfall: from the training mean of f, each column's exact
    contribution (``BoostClassifier.explain``) to f(x, label).

    Parameters
    ----------
    clf : BoostClassifier
        Fitted.
    x : one row: a 1-D array, a one-row DataFrame or Series, or a dict of values
    label : int or class, optional
        Which column of f (for several labels): default the one of largest f(x, l).
    max_display : int, default=10
        Columns shown; the rest are summed in one bar.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from confboost.explain.rules import output_names

    row, names, shown = _one_row(clf, x)
    explained = clf.explain(row)[0]
    if explained.ndim == 1:
        explained = explained[None, :]
    outputs = output_names(clf)
    if label is None:
        index = int(np.argmax(explained.sum(axis=1)))
    elif label in list(clf.classes_) and len(outputs) == len(clf.classes_):
        index = list(clf.classes_).index(label)
    else:
        index = int(label)
    phi, bias = explained[index, :-1], explained[index, -1]
    order = np.argsort(-np.abs(phi), kind="stable")
    order = order[phi[order] != 0]
    shown_columns = order[:max_display - 1] if order.size > max_display else order
    bars = [(f"{names[j]} = {_value_text(shown[j])}", phi[j]) for j in shown_columns]
    rest = order[len(shown_columns):]
    if rest.size:
        bars.append((f"{rest.size} other columns", float(phi[rest].sum())))
    figure, (axis,) = _grid(1, panel_size=(6.4, 0.45 * len(bars) + 1.6))
    start = bias
    for position, (_, value) in enumerate(bars):
        y = len(bars) - 1 - position
        axis.barh(y, value, left=start, color="tab:red" if value > 0 else "tab:blue",
                  height=0.6)
        axis.annotate(f"{value:+.3g}", (start + value, y), xytext=(3 if value > 0 else -3, 0),
                      textcoords="offset points", va="center",
                      ha="left" if value > 0 else "right", fontsize=7)
        start += value
    axis.set_yticks(range(len(bars)), [text for text, _ in bars][::-1], fontsize=8)
    ends = np.cumsum([bias] + [value for _, value in bars])
    low, high = float(ends.min()), float(ends.max())
    pad = 0.12 * max(high - low, 1e-9)
    axis.set_xlim(low - pad, high + pad)  # bars pin autoscaling at their edges
    axis.axvline(bias, color="0.5", linestyle=":", linewidth=0.8)
    axis.axvline(start, color="0.2", linewidth=0.8)
    axis.set_xlabel(f"f(x, {outputs[index]})")
    axis.set_title(f"f = {start:.3g} for {outputs[index]}, from the training mean "
                   f"{bias:.3g}", fontsize=9)
    return figure


def dependence(clf, column, X=None, label=None):
    """f as a function of one column: its step function, or its partial dependence.

    When every round that reads the column reads only it (any stump model), the line is the
    column's own term of f (``explain.partial_dependence`` without data): exactly the sum
    of that column's hypotheses, a step function, centred on the training mean; missing is
    a dashed line. Otherwise ``X`` is needed and the line is Friedman's partial dependence
    over its rows, centred on their mean f. With ``X`` each row's contribution of the
    column (``explain``) is drawn as a dot. A categorical column is drawn as one bar per
    value the model tests, "other" and "missing".

    Parameters
    ----------
    clf : BoostClassifier
        Fitted.
    column : int or str
        Position or name of the column.
    X : table or array, optional
    label : int or class, optional
        One column of f (default every one, a line each).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from confboost.explain.contributions import partial_dependence, reads_only, tested_points
    from confboost.explain.rules import output_names, table_names

    names = table_names(clf)
    index = names.index(column) if isinstance(column, str) else int(column)
    kind = (clf.encoder_.kinds[index] if hasattr(clf, "encoder_") else "continuous")
    if kind not in ("continuous", "categorical"):
        raise ValueError(f"column {names[index]!r} is {kind}: dependence draws continuous "
                         "and categorical columns (a text column's terms are in clf.rules())")
    outputs = output_names(clf)
    labels = range(len(outputs))
    if label is not None:
        labels = [list(clf.classes_).index(label) if label in list(clf.classes_)
                  and len(outputs) == len(clf.classes_) else int(label)]
    thresholds, values = tested_points(clf, index)
    additive = reads_only(clf, index)
    if not additive and X is None:
        raise ValueError(f"column {names[index]!r} is read together with other columns "
                         "(trees or products): pass X for its partial dependence over data")

    def curve(grid):
        if additive:
            return partial_dependence(clf, index, grid)
        pd_values = partial_dependence(clf, index, grid, X)
        mean = clf.model_.decision_function(clf._prepare(X)).mean(axis=0)
        return pd_values - mean

    figure, (axis,) = _grid(1, panel_size=(5.6, 3.6))
    if kind == "categorical":
        grid = [*values, "\x00 another value", None]
        shape = curve(grid)
        width = 0.8 / len(labels)
        for offset, l in enumerate(labels):
            axis.bar(np.arange(len(grid)) + offset * width, shape[:, l], width=width,
                     label=outputs[l], color=_COLOURS[offset % len(_COLOURS)])
        axis.set_xticks(np.arange(len(grid)) + 0.4 - width / 2,
                        [*values, "(other)", "(missing)"], fontsize=8, rotation=30)
    else:
        if not thresholds:
            raise ValueError(f"the model never tests column {names[index]!r}")
        t = np.asarray(thresholds)
        span = max(t[-1] - t[0], 1e-9)
        representatives = [*t, np.nextafter(t[-1], np.inf), np.nan]
        shape = curve(representatives)
        edges = [t[0] - 0.1 * span, *t, t[-1] + 0.1 * span]
        if X is not None:
            raw = np.asarray(X[names[index]] if hasattr(X, "columns") else
                             np.asarray(X, dtype=np.float64)[:, index], dtype=np.float64)
            edges[0] = min(edges[0], np.nanmin(raw))
            edges[-1] = max(edges[-1], np.nanmax(raw))
        for offset, l in enumerate(labels):
            colour = _COLOURS[offset % len(_COLOURS)]
            axis.stairs(shape[:-1, l], edges, color=colour, linewidth=1.4, label=outputs[l],
                        baseline=None)
            axis.axhline(shape[-1, l], color=colour, linestyle="--", linewidth=0.8)
        if X is not None:
            explained = clf.explain(X)
            explained = explained[:, None] if explained.ndim == 2 else explained
            for offset, l in enumerate(labels):
                axis.scatter(raw, explained[:, l, index], s=4, alpha=0.4,
                             color=_COLOURS[offset % len(_COLOURS)])
    axis.axhline(0.0, color="0.7", linewidth=0.6)
    axis.set_xlabel(names[index])
    axis.set_ylabel("contribution to f" if additive else "partial dependence of f (centred)")
    if len(labels) > 1 or outputs[0:1] != [""]:
        axis.legend(fontsize=8)
    axis.set_title(f"f against {names[index]}" + ("; dashed: missing"
                                                    if kind == "continuous" else ""),
                   fontsize=9)
    return figure


def importance(clf, X=None, max_display=20):
    """Each column's importance as a horizontal bar, largest first.

    Without ``X``: ``feature_importances_``, the column's share (%) of the bound's decrease
    Σ_t -ln Z_t (a round on several columns credits each). With ``X``: the mean absolute
    exact contribution of the column to f over the rows of ``X`` (``explain``, summed over
    the columns of f; ``explain.contribution_importances``), in f's units.

    Parameters
    ----------
    clf : BoostClassifier
        Fitted.
    X : array-like, DataFrame or sparse of shape (n_samples, n_features), optional
    max_display : int, default=20
        Columns shown (those of zero importance never are).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from confboost.explain.contributions import contribution_importances
    from confboost.explain.rules import table_names

    names = table_names(clf)
    if X is None:
        values = 100.0 * np.asarray(clf.feature_importances_)
        label = "share of the bound's decrease Σ -ln Z_t (%)"
    else:
        explained = clf.explain(X)
        values = contribution_importances(explained)
        label = f"mean |contribution to f| over {explained.shape[0]} rows"
    order = np.argsort(-values, kind="stable")
    order = order[values[order] > 0][:max_display]
    figure, (axis,) = _grid(1, panel_size=(6.0, 0.28 * max(len(order), 3) + 1.2))
    positions = np.arange(len(order))[::-1]
    axis.barh(positions, values[order], color="tab:blue", height=0.7)
    axis.set_yticks(positions, [names[j] for j in order], fontsize=8)
    axis.set_xlabel(label)
    axis.set_title(f"column importance: {clf.n_estimators_} rounds of {clf.weak_learner_}",
                   fontsize=9)
    axis.grid(True, axis="x", color="0.9")
    axis.set_axisbelow(True)
    return figure


def _tree_layout(hypothesis, names, alpha):
    """One round's hypothesis as (nodes, leaves): ``nodes[i] = (text, [(edge, child)])`` with
    ``child`` ``("node", i)`` or ``("leaf", j)``, and the leaves' outputs α h, shape
    (n_leaves, k)."""
    from confboost.engine.learners.base import column_label
    from confboost.utils.dtypes import NODE_TERM, NODE_VALUE

    kind = hypothesis.type_name
    values = alpha * np.asarray(hypothesis.values, dtype=np.float64)
    if kind == "stump":
        name = column_label(names, hypothesis.feature)
        if not np.isfinite(hypothesis.threshold):
            return [(f"{name} known", [("yes", ("leaf", 0)), ("missing", ("leaf", 2))])], values
        return [(f"{name} <= {hypothesis.threshold:.4g}",
                 [("yes", ("leaf", 0)), ("no", ("leaf", 1)), ("missing", ("leaf", 2))])], values
    if kind == "categorical":
        name = column_label(names, hypothesis.column)
        return [(f"{name} == {hypothesis.value!r}",
                 [("yes", ("leaf", 0)), ("no", ("leaf", 1)), ("missing", ("leaf", 2))])], values
    if kind == "term":
        name = column_label(names, hypothesis.column)
        return [(f"{name} contains {hypothesis.term!r}",
                 [("yes", ("leaf", 0)), ("no", ("leaf", 1))])], values
    if hypothesis.test_layout != "tree":
        raise ValueError(f"a {kind} hypothesis is not a tree (a product of stumps multiplies "
                         "its terms' signs): clf.rules() prints it")
    nodes = []
    for node in range(hypothesis.left.shape[0]):
        name = column_label(names, hypothesis.column[node])
        if hypothesis.kind[node] == NODE_VALUE:
            text = f"{name} == {hypothesis.value[node]!r}"
        elif hypothesis.kind[node] == NODE_TERM:
            text = f"{name} contains {hypothesis.value[node]!r}"
        else:
            threshold = hypothesis.threshold[node]
            text = f"{name} <= {threshold:.4g}" if np.isfinite(threshold) else f"{name} known"
            text += "\nor missing" if hypothesis.missing_left[node] else ""
        children = [("yes" if side == 0 else "no",
                     ("node", int(child)) if child >= 0 else ("leaf", int(-child - 1)))
                    for side, child in enumerate((hypothesis.left[node],
                                                  hypothesis.right[node]))]
        nodes.append((text, children))
    if not nodes:  # a tree of one leaf
        return [("(every example)", [("", ("leaf", 0))])], values
    return nodes, values


def _signed(value):
    return "0" if value == 0 else f"{value:+.3g}"


def tree(clf, round=1, max_outputs=4):
    """One round's weak hypothesis drawn as a tree: its tests at the nodes, what it adds to
    f at the leaves (α_t h_t(x, l), the rule of ``clf.rules()``).

    A stump is a one-split tree with three leaves (the test holds, fails, the value is
    missing); a categorical value test likewise; a term test has two. Trees draw their
    nodes (``yes``: the test holds, left). A product of stumps is no tree: ValueError.

    Parameters
    ----------
    clf : BoostClassifier
        Fitted.
    round : int, default=1
        Which round, 1 to ``n_estimators_``.
    max_outputs : int, default=4
        The most columns of f written at a leaf (the largest in absolute value).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from confboost.explain.rules import output_names, table_names

    n_rounds = len(clf.model_)
    if not 1 <= int(round) <= n_rounds:
        raise ValueError(f"round must lie in 1..{n_rounds}, got {round}")
    index = int(round) - 1
    hypothesis, alpha = clf.model_.hypotheses[index], float(clf.model_.alphas[index])
    nodes, values = _tree_layout(hypothesis, table_names(clf), alpha)
    outputs = output_names(clf)
    # leaves left to right in the order a depth-first walk meets them; a node above the
    # middle of its children; depth downwards
    position, depth, order = {}, {}, []

    def walk(node, level):
        depth[("node", node)] = level
        for _, child in nodes[node][1]:
            if child[0] == "node":
                walk(child[1], level + 1)
            else:
                depth[child] = level + 1
                position[child] = len(order)
                order.append(child)
        xs = [position[child] for _, child in nodes[node][1]]
        position[("node", node)] = (min(xs) + max(xs)) / 2

    walk(0, 0)
    n_levels = max(depth.values()) + 1
    figure, (axis,) = _grid(1, panel_size=(max(4.0, 1.7 * len(order)), 1.25 * n_levels + 0.6))
    box = {"boxstyle": "round,pad=0.35", "linewidth": 0.8}
    for node, (text, children) in enumerate(nodes):
        x, y = position[("node", node)], -depth[("node", node)]
        for edge, child in children:
            cx, cy = position[child], -depth[child]
            axis.plot([x, cx], [y, cy], color="0.55", linewidth=0.8, zorder=1,
                      linestyle=":" if edge == "missing" else "-")
            axis.text((x + cx) / 2, (y + cy) / 2, edge, fontsize=7, ha="center",
                      va="center", color="0.3", backgroundcolor="white", zorder=2)
        axis.text(x, y, text, fontsize=8, ha="center", va="center", zorder=3,
                  bbox={**box, "facecolor": "#eef3fa", "edgecolor": "tab:blue"})
    for leaf in order:
        row = values[leaf[1]]
        shown = np.argsort(-np.abs(row), kind="stable")[:max_outputs]
        lines = ([f"f {_signed(row[0])}"] if len(row) == 1 else
                 [f"{outputs[l]} {_signed(row[l])}" for l in shown])
        if len(row) > len(shown):
            lines.append(f"({len(row) - len(shown)} more)")
        colour = "#fbeaea" if row[shown[0]] > 0 else "#e8f0fb"
        axis.text(position[leaf], -depth[leaf], "\n".join(lines), fontsize=7, ha="center",
                  va="top", zorder=3, bbox={**box, "facecolor": colour, "edgecolor": "0.6"})
    axis.set_xlim(-0.7, len(order) - 0.3)
    axis.set_ylim(-(n_levels - 1) - 0.55, 0.35)
    axis.set_axis_off()
    towards = f" (f > 0: {outputs[0]})" if values.shape[1] == 1 else ""
    axis.set_title(f"round {round}: α = {alpha:.3g}, {hypothesis.type_name}; leaves: what the "
                   f"round adds to f{towards}", fontsize=9)
    return figure
