"""What every figure of ``confboost.plot`` shares: matplotlib found (or the extra named),
a grid of panels, titles, one legend per figure, the colours."""

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
