"""Figures drawn from hand-built curves, ready for a paper: those of ``confboost reproduce``.

Owns ``scatter_comparison`` (one algorithm's test error against another's, a point per data
set, §10's figure), ``training_curves`` (the training loss and its bound Π Z_t),
``test_error_curves`` and ``margin_cdf`` (§5's margin distributions); each writes one file
whose format is its suffix's (``.pdf``, ``.svg``, ``.png``; ``dpi`` for the PNG's pixels).
One unit per quantity: every error and loss is a percentage (the fraction of examples,
labels or crucial pairs, times 100). Losses of different kinds never share an axis:
AdaBoost.MR's ranking loss gets a row of panels of its own. The data sets' names beside the
scatter points are placed where they overlap neither another name nor a point, inside the
panel.
"""

from pathlib import Path

import numpy as np

from confboost.plot.panels import _COLOURS, _figure_legend, _grid, _title

__all__ = ["FORMATS", "margin_cdf", "save_figure", "scatter_comparison",
           "test_error_curves", "training_curves"]

#: The file formats a figure can be written in (its file's suffix).
FORMATS = ("png", "pdf", "svg")

_LABEL_SIZE = 7.5  # points: a data set's name beside its scatter point


def save_figure(figure, path, dpi=200):
    """Write ``figure`` to ``path`` in the format its suffix names; return the Path."""
    path = Path(path)
    suffix = path.suffix.lstrip(".").lower()
    if suffix not in FORMATS:
        raise ValueError(f"{path}: a figure is written as {', '.join(FORMATS)}, not "
                         f"{suffix or 'a file without suffix'}")
    path.parent.mkdir(parents=True, exist_ok=True)
    metadata = {"Creator": "confboost reproduce"} if suffix in ("pdf", "svg") else {}
    figure.savefig(path, dpi=dpi, bbox_inches="tight", pad_inches=0.05, metadata=metadata)
    return path


def _percent(values):
    return 100.0 * np.asarray(values, dtype=float)


def text_box(annotation, renderer):
    """The display box of an annotation's text alone (without its leader line)."""
    from matplotlib.text import Text

    annotation.update_positions(renderer)
    return Text.get_window_extent(annotation, renderer)


def _overlaps(box, boxes):
    return any(box.overlaps(other) for other in boxes)


def _place_labels(figure, axis, names, x, y):
    """Annotate each point with its name, at the first of eight offsets around it where the
    text overlaps no name placed before, no other point and stays inside the panel."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.transforms import Bbox

    renderer = FigureCanvasAgg(figure).get_renderer()  # text sizes as the files have them
    figure.draw_without_rendering()  # settle the layout before measuring
    points = axis.transData.transform(np.column_stack([x, y]))
    radius = 3.0
    point_boxes = [Bbox.from_extents(px - radius, py - radius, px + radius, py + radius)
                   for px, py in points]
    panel = axis.get_window_extent(renderer)
    directions = []  # 16 compass directions, nearest the first quadrant first
    for degrees in (45, -45, 135, -135, 90, -90, 0, 180, 22.5, -22.5, 67.5, -67.5, 112.5,
                    -112.5, 157.5, -157.5):
        dx, dy = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
        directions.append((dx, dy, "left" if dx > 0.3 else "right" if dx < -0.3 else "center",
                           "bottom" if dy > 0.3 else "top" if dy < -0.3 else "center"))
    placed = []
    order = np.argsort(-points[:, 1], kind="stable")  # top first: crowded corners settle
    for index in order:
        others = [b for j, b in enumerate(point_boxes) if j != index]
        best = None
        for distance in (3, 9, 16, 26, 38, 52):  # points; beyond the first, a leader line
            for dx, dy, ha, va in directions:
                text = axis.annotate(
                    names[index], (x[index], y[index]),
                    xytext=(distance * dx, distance * dy), textcoords="offset points",
                    fontsize=_LABEL_SIZE, ha=ha, va=va, annotation_clip=False,
                    arrowprops=None if distance < 5 else
                    {"arrowstyle": "-", "color": "0.5", "linewidth": 0.5, "shrinkA": 0,
                     "shrinkB": 2.5})
                text.set_in_layout(False)  # placed in a settled layout: it must not move
                box = text_box(text, renderer)
                inside = (box.x0 >= panel.x0 and box.x1 <= panel.x1 and box.y0 >= panel.y0
                          and box.y1 <= panel.y1)
                # another name is the worst to cover, then the frame (tick labels), then a point
                clashes = (10 * _overlaps(box, placed) + 3 * _overlaps(box, others)
                           + 8 * (not inside))
                if best is None or clashes < best[0]:
                    if best is not None:
                        best[1].remove()
                    best = (clashes, text, box)
                else:
                    text.remove()
                if clashes == 0:
                    break
            if best[0] == 0:
                break
        placed.append(best[2])


def _plain_log_ticks(*log_axes):
    """Label log axes (``axis.xaxis``, ``axis.yaxis``) with plain numbers (20, not 2 × 10¹),
    the 2s and 5s of a decade too when an axis spans little of it."""
    from matplotlib.ticker import LogFormatter

    for ticks in log_axes:
        ticks.set_major_formatter(LogFormatter(labelOnlyBase=False))
        ticks.set_minor_formatter(LogFormatter(labelOnlyBase=False, minor_thresholds=(1, 0.4)))


def scatter_comparison(errors_x, errors_y, names, rounds, label_x, label_y, path, dpi=200):
    """One panel per round count: algorithm x's test error against algorithm y's (in %).

    Each point is a data set; points below the diagonal are sets where y did better (the
    figure of the paper's §10).

    Parameters
    ----------
    errors_x, errors_y : dict of int to array-like of shape (n_sets,)
        Test error (a fraction) per data set after each round count.
    names : sequence of str, length n_sets
        Data set names, written beside the points.
    rounds : sequence of int
        The round counts, one panel each, in order.
    label_x, label_y : str
        The algorithms' names.
    path : str or Path
        The file (``.pdf``, ``.svg`` or ``.png``).
    dpi : int, default=200

    Returns
    -------
    Path
    """
    figure, axes = _grid(len(rounds), max_columns=min(len(rounds), 3),
                         panel_size=(4.2, 4.2))
    top = 1.0
    for n_rounds in rounds:
        top = max(top, float(np.max(_percent(errors_x[n_rounds]), initial=0.0)),
                  float(np.max(_percent(errors_y[n_rounds]), initial=0.0)))
    top *= 1.15  # room for the names of the largest errors
    for axis, n_rounds in zip(axes, rounds, strict=True):
        axis.plot([0, top], [0, top], color="0.6", linewidth=0.8, zorder=1)
        axis.scatter(_percent(errors_x[n_rounds]), _percent(errors_y[n_rounds]), s=14,
                     color="tab:blue", zorder=2)
        axis.set_xlim(0, top)
        axis.set_ylim(0, top)
        axis.set_aspect("equal")
        axis.set_xlabel(f"{label_x}: test error (%)")
        axis.set_ylabel(f"{label_y}: test error (%)")
        axis.set_title(f"{n_rounds} rounds", fontsize=10)
    figure.suptitle(f"Test error: {label_x} against {label_y} (one point per data set)",
                    fontsize=11)
    for axis, n_rounds in zip(axes, rounds, strict=True):
        _place_labels(figure, axis, list(names), _percent(errors_x[n_rounds]),
                      _percent(errors_y[n_rounds]))
    return save_figure(figure, path, dpi)


def training_curves(curves, path, title=None, dpi=200):
    """Per data set: the training loss (solid) and its bound Π Z_t (dashed), in %, against
    log-scale rounds; one row of panels per kind of loss (the training error of MH and MO,
    MR's ranking loss), so that two losses never share an axis.

    Parameters
    ----------
    curves : dict of str to dict of str to tuple
        ``curves[panel][algorithm] = (train_loss, bound)`` or ``(train_loss, bound,
        loss_name)``, fractions of shape (n_rounds,) (``history_["train_loss"]`` and
        ``history_["bound"]``; ``loss_name`` as ``confboost.plot.loss_name``, default
        "training error").
    path : str or Path
    title : str, optional
    dpi : int, default=200

    Returns
    -------
    Path
    """
    kinds = []
    for by_algorithm in curves.values():
        for curve in by_algorithm.values():
            name = curve[2] if len(curve) > 2 else "training error"
            if name not in kinds:
                kinds.append(name)
    columns = max(1, min(len(curves), 4))
    panels = []  # each kind of loss starts a row of its own (None: an empty slot)
    for kind in kinds:
        row = [(panel, kind) for panel in curves
               if any((c[2] if len(c) > 2 else "training error") == kind
                      for c in curves[panel].values())]
        panels += row + [None] * (-len(row) % columns)
    figure, axes = _grid(len(panels), max_columns=columns)
    for axis, slot in zip(axes, panels, strict=True):
        axis.set_visible(slot is not None)
    axes = [axis for axis, slot in zip(axes, panels, strict=True) if slot is not None]
    panels = [slot for slot in panels if slot is not None]
    colours = {}
    for axis, (panel, kind) in zip(axes, panels, strict=True):
        for label, curve in curves[panel].items():
            if (curve[2] if len(curve) > 2 else "training error") != kind:
                continue
            colour = colours.setdefault(label, _COLOURS[len(colours) % len(_COLOURS)])
            loss, bound = _percent(curve[0]), _percent(curve[1])
            rounds = np.arange(1, loss.size + 1)
            axis.plot(rounds, loss, color=colour, linewidth=1.2, label=f"{label}: loss")
            axis.plot(rounds, bound, color=colour, linewidth=1.0, linestyle="--",
                      label=f"{label}: bound (Π Z_t)")
        axis.set_xscale("log")
        axis.set_yscale("log", nonpositive="mask")
        _plain_log_ticks(axis.xaxis, axis.yaxis)
        axis.set_xlabel("rounds")
        axis.set_ylabel(f"{kind} (%)")
        axis.set_title(panel, fontsize=9)
        axis.grid(True, which="major", color="0.9")
    handles = {}
    for axis in axes:
        for handle, label in zip(*axis.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    if handles:
        figure.legend(list(handles.values()), list(handles), loc="outside lower center",
                      ncol=min(len(handles), 4), fontsize=8)
    _title(figure, axes, title)
    return save_figure(figure, path, dpi)


def test_error_curves(curves, path, ylabel="test error (%)", title=None, dpi=200):
    """Learning curves: test error in % against log-scale rounds, one panel each.

    Parameters
    ----------
    curves : dict of str to dict of str to array-like of shape (n_rounds,)
        ``curves[panel][algorithm]``: the error (a fraction) after rounds 1, 2, ... .
    path : str or Path
    ylabel : str, default="test error (%)"
    title : str, optional
    dpi : int, default=200

    Returns
    -------
    Path
    """
    figure, axes = _grid(len(curves))
    for axis, (panel, by_algorithm) in zip(axes, curves.items(), strict=True):
        for colour, (label, values) in zip(_COLOURS, by_algorithm.items(), strict=False):
            values = _percent(values)
            axis.plot(np.arange(1, values.size + 1), values, color=colour, linewidth=1.2,
                      label=label)
        axis.set_xscale("log")
        _plain_log_ticks(axis.xaxis)
        axis.set_xlabel("rounds")
        axis.set_ylabel(ylabel)
        axis.set_title(panel, fontsize=9)
        axis.grid(True, which="major", color="0.9")
    _figure_legend(figure, axes)
    _title(figure, axes, title)
    return save_figure(figure, path, dpi)


def margin_cdf(margins, path, title=None, dpi=200):
    """Cumulative margin distributions (§5), one line per entry of ``margins``.

    Parameters
    ----------
    margins : dict of str to array-like
        Normalised margins (``confboost.evaluation.margins.normalized_margins``) per label.
    path : str or Path
        The file (``.pdf``, ``.svg`` or ``.png``).
    title : str, optional
    dpi : int, default=200

    Returns
    -------
    Path
    """
    from confboost.evaluation.margins import margin_distribution

    figure, (axis,) = _grid(1, panel_size=(5.0, 3.6))
    grid = np.linspace(-1.0, 1.0, 401)
    for colour, (label, values) in zip(_COLOURS, margins.items(), strict=False):
        axis.plot(grid, 100.0 * margin_distribution(values, grid), color=colour, label=label)
    axis.set_xlabel("normalised margin θ")
    axis.set_ylabel("margins ≤ θ (%)")
    axis.legend(fontsize=7)
    if title:
        axis.set_title(title)
    return save_figure(figure, path, dpi)
