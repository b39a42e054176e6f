"""Plots of boosting runs: learning curves, Π Z_t beside the training loss, scatter
comparisons of two algorithms, margin distributions.

matplotlib is an optional extra (``pip install confboost[plot]``); it is imported inside
each function, never at module import, so ``import confboost.plot`` always works. The
functions draw on ``matplotlib.figure.Figure`` objects (no pyplot, no global backend
change) and write a PNG.
"""

from pathlib import Path

import numpy as np

__all__ = [
    "margin_cdf",
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
    curves : dict of str to dict of str to (train_loss, bound)
        ``curves[panel][algorithm] = (train_loss, bound)``, arrays of shape (n_rounds,)
        (``history_["train_loss"]`` and ``history_["bound"]`` of a fitted
        ``BoostClassifier``). Solid lines: training loss; dashed: the bound.
    path : str or Path
    title : str, optional

    Returns
    -------
    Path
    """
    figure, axes = _grid(len(curves))
    for axis, (panel, by_algorithm) in zip(axes, curves.items(), strict=True):
        for colour, (label, (loss, bound)) in zip(_COLOURS, by_algorithm.items(),
                                                   strict=False):
            loss = np.asarray(loss, dtype=float)
            bound = np.asarray(bound, dtype=float)
            rounds = np.arange(1, loss.size + 1)
            axis.plot(rounds, loss, color=colour, linewidth=1.2, label=f"{label}: train loss")
            axis.plot(rounds, bound, color=colour, linewidth=1.0, linestyle="--",
                      label=f"{label}: bound (Π Z_t)")
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("rounds")
        axis.set_title(panel, fontsize=9)
        axis.grid(True, which="major", color="0.9")
    _figure_legend(figure, axes)
    if title:
        figure.suptitle(title)
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
    if title:
        figure.suptitle(title)
    return _save(figure, path)


def margin_cdf(margins, path, title=None):
    """Cumulative margin distributions (§5), one line per entry of ``margins``.

    Parameters
    ----------
    margins : dict of str to array-like
        Normalised margins (``confboost.margins.normalized_margins``) per label.
    path : str or Path
    title : str, optional

    Returns
    -------
    Path
    """
    from confboost.margins import margin_distribution

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
