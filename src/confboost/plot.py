"""Plots of boosting runs.

From a fitted ``BoostClassifier`` and data (each returns the ``matplotlib.figure.Figure``):
``learning_curves`` (training loss, the theorem's bound, test loss per round),
``margins`` (the cumulative margin distribution of §5 at chosen rounds),
``contributions`` (one prediction's waterfall of exact column contributions,
``explain.py``) and ``dependence`` (f as a function of one column). From hand-built curves
(the experiments' reports; each writes a PNG): ``training_curves``, ``test_error_curves``,
``scatter_comparison``, ``margin_cdf``.

matplotlib is an optional extra (``pip install confboost[plot]``); it is imported inside
each function, never at module import, so ``import confboost.plot`` always works. The
functions draw on ``matplotlib.figure.Figure`` objects (no pyplot, no global backend
change).
"""

from pathlib import Path

import numpy as np

__all__ = [
    "contributions",
    "dependence",
    "learning_curves",
    "margin_cdf",
    "margins",
    "require_matplotlib",
    "scatter_comparison",
    "test_error_curves",
    "training_curves",
]

_EXTRA_MESSAGE = ("plotting needs matplotlib, the optional extra of confboost: "
                  "pip install confboost[plot]")

_COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown")


def require_matplotlib():
    """Return ``matplotlib.figure.Figure``; ImportError naming the extra when it is missing."""
    try:
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError(_EXTRA_MESSAGE) from error
    return Figure


def _grid(n_panels, max_columns=4, panel_size=(3.6, 2.9)):
    Figure = require_matplotlib()
    columns = min(max_columns, max(n_panels, 1))
    rows = max(1, -(-n_panels // columns))
    figure = Figure(figsize=(panel_size[0] * columns, panel_size[1] * rows),
                    layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False).ravel()
    for extra in axes[n_panels:]:
        extra.set_visible(False)
    return figure, axes[:n_panels]


def _title(figure, axes, title):
    """The figure's title: on a one-panel figure, one line on the panel (with its own
    name in brackets), not a second title above it."""
    if not title:
        return
    if len(axes) == 1:
        panel = axes[0].get_title()
        axes[0].set_title(f"{title} ({panel})" if panel else title, fontsize=9)
    else:
        figure.suptitle(title)


def _figure_legend(figure, axes):
    """One legend for the whole figure, below the panels (from the first panel's lines)."""
    if not len(axes):
        return
    handles, labels = axes[0].get_legend_handles_labels()
    if handles:
        figure.legend(handles, labels, loc="outside lower center",
                      ncol=min(len(handles), 4), fontsize=8)


def _save(figure, path):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100, bbox_inches="tight")
    return path


def scatter_comparison(errors_x, errors_y, names, rounds, label_x, label_y, path):
    """One panel per round count: algorithm x's test error against algorithm y's.

    Each point is a data set; points below the diagonal are sets where y did better. This is
    the figure of the paper's §10 (one point per benchmark).

    Parameters
    ----------
    errors_x, errors_y : dict of int to array-like of shape (n_sets,)
        Test error per data set after each round count, for the two algorithms.
    names : sequence of str, length n_sets
        Data set names (written beside the points).
    rounds : sequence of int
        The round counts, one panel each, in order.
    label_x, label_y : str
        Axis labels (the algorithms' names).
    path : str or Path
        Where the PNG goes.

    Returns
    -------
    Path
    """
    figure, axes = _grid(len(rounds), max_columns=len(rounds), panel_size=(4.0, 4.0))
    for axis, n_rounds in zip(axes, rounds, strict=True):
        x = 100.0 * np.asarray(errors_x[n_rounds], dtype=float)
        y = 100.0 * np.asarray(errors_y[n_rounds], dtype=float)
        top = max(float(np.max(x, initial=0.0)), float(np.max(y, initial=0.0)), 1.0) * 1.08
        axis.plot([0, top], [0, top], color="0.6", linewidth=0.8, zorder=1)
        axis.scatter(x, y, s=18, color="tab:blue", zorder=2)
        for name, xi, yi in zip(names, x, y, strict=True):
            axis.annotate(name, (xi, yi), fontsize=6, xytext=(2, 2), textcoords="offset points")
        axis.set_xlim(0, top)
        axis.set_ylim(0, top)
        axis.set_aspect("equal")
        axis.set_xlabel(f"{label_x}: test error (%)")
        axis.set_ylabel(f"{label_y}: test error (%)")
        axis.set_title(f"{n_rounds} rounds")
    figure.suptitle(f"Test error: {label_x} against {label_y} (one point per data set)")
    return _save(figure, path)


def training_curves(curves, path, title=None):
    """Per data set: the training loss and its bound Π Z_t (Theorem 1) on log-scale rounds.

    Parameters
    ----------
    curves : dict of str to dict of str to tuple
        ``curves[panel][algorithm] = (train_loss, bound)`` or ``(train_loss, bound,
        loss_name)``, arrays of shape (n_rounds,) (``history_["train_loss"]`` and
        ``history_["bound"]`` of a fitted ``BoostClassifier``; ``loss_name`` as
        ``loss_name(clf)``, default "training error"). Solid lines: training loss; dashed:
        the bound.
    path : str or Path
    title : str, optional

    Returns
    -------
    Path
    """
    figure, axes = _grid(len(curves))
    for axis, (panel, by_algorithm) in zip(axes, curves.items(), strict=True):
        for colour, (label, curve) in zip(_COLOURS, by_algorithm.items(), strict=False):
            loss = np.asarray(curve[0], dtype=float)
            bound = np.asarray(curve[1], dtype=float)
            name = curve[2] if len(curve) > 2 else "training error"
            rounds = np.arange(1, loss.size + 1)
            axis.plot(rounds, loss, color=colour, linewidth=1.2, label=f"{label}: {name}")
            axis.plot(rounds, bound, color=colour, linewidth=1.0, linestyle="--",
                      label=f"{label}: bound (Π Z_t)")
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("rounds")
        axis.set_title(panel, fontsize=9)
        axis.grid(True, which="major", color="0.9")
    _figure_legend(figure, axes)
    _title(figure, axes, title)
    return _save(figure, path)


def test_error_curves(curves, path, ylabel="test error", title=None):
    """Learning curves: test error (or any loss) against log-scale rounds, one panel each.

    Parameters
    ----------
    curves : dict of str to dict of str to array-like of shape (n_rounds,)
        ``curves[panel][algorithm]`` is the loss after rounds 1, 2, ... .
    path : str or Path
    ylabel : str
    title : str, optional

    Returns
    -------
    Path
    """
    figure, axes = _grid(len(curves))
    for axis, (panel, by_algorithm) in zip(axes, curves.items(), strict=True):
        for colour, (label, values) in zip(_COLOURS, by_algorithm.items(), strict=False):
            values = np.asarray(values, dtype=float)
            axis.plot(np.arange(1, values.size + 1), values, color=colour, linewidth=1.2,
                      label=label)
        axis.set_xscale("log")
        axis.set_xlabel("rounds")
        axis.set_ylabel(ylabel)
        axis.set_title(panel, fontsize=9)
        axis.grid(True, which="major", color="0.9")
    _figure_legend(figure, axes)
    _title(figure, axes, title)
    return _save(figure, path)


def margin_cdf(margins, path, title=None):
    """Cumulative margin distributions (§5), one line per entry of ``margins``.

    Parameters
    ----------
    margins : dict of str to array-like
        Normalised margins (``confboost.evaluation.margins.normalized_margins``) per label.
    path : str or Path
    title : str, optional

    Returns
    -------
    Path
    """
    from confboost.evaluation.margins import margin_distribution

    figure, (axis,) = _grid(1, panel_size=(5.0, 3.6))
    grid = np.linspace(-1.0, 1.0, 401)
    for colour, (label, values) in zip(_COLOURS, margins.items(), strict=False):
        axis.plot(grid, margin_distribution(values, grid), color=colour, label=label)
    axis.set_xlabel("margin θ")
    axis.set_ylabel("fraction of margins ≤ θ")
    axis.legend(fontsize=7)
    if title:
        axis.set_title(title)
    return _save(figure, path)


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
    encoded = np.searchsorted(clf.classes_, y)
    if np.any(encoded >= clf.classes_.size) or np.any(clf.classes_[
            np.minimum(encoded, clf.classes_.size - 1)] != y):
        raise ValueError("y holds a class the model was not fitted on")
    if hasattr(clf, "code_") and clf.code_.shape[1] > 1:
        return clf.code_[encoded] > 0
    if clf.classes_.size == 2:
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

    The margin of an example is y f(x) / Σ_t |α_t| max|h_t| for binary data (in [-1, 1]:
    the normaliser bounds |f| for real confidences too), and for several labels
    (min over its labels of f - max over the others) / (2 Σ_t |α_t| max|h_t|)
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
