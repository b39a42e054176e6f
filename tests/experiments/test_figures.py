"""The figures of ``confboost reproduce``: the format and dpi asked for, every error in
percent, MR's ranking loss on axes of its own, and scatter names that overlap nothing."""

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from confboost.cli import main  # noqa: E402
from confboost.plot import reports as figures  # noqa: E402
from tests.helpers import png_size  # noqa: E402


def _capture(monkeypatch):
    saved = []
    monkeypatch.setattr(figures, "save_figure",
                        lambda figure, path, dpi=200: saved.append(figure) or path)
    return saved


def test_ranking_loss_never_shares_an_axis_with_error(monkeypatch, tmp_path):
    saved = _capture(monkeypatch)
    curves = {name: {"MH": ([0.3, 0.2], [0.9, 0.5], "training error"),
                     "MR": ([0.4, 0.1], [0.8, 0.6], "ranking loss")}
              for name in ("glass", "vehicle")}
    figures.training_curves(curves, tmp_path / "c.png")
    (figure,) = saved
    shown = [axis for axis in figure.axes if axis.get_visible()]
    assert len(shown) == 4
    for axis in shown:
        labels = {line.get_label().split(":")[0] for line in axis.get_lines()}
        assert len(labels) == 1  # one algorithm, so one loss, per axis
        unit = "ranking loss (%)" if labels == {"MR"} else "training error (%)"
        assert axis.get_ylabel() == unit and axis.get_xlabel() == "rounds"
        np.testing.assert_allclose(axis.get_lines()[0].get_ydata()[0],
                                   30.0 if labels == {"MH"} else 40.0)  # percent


def test_scatter_names_overlap_no_other_name_nor_the_frame(monkeypatch, tmp_path):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    saved = _capture(monkeypatch)
    rng = np.random.default_rng(0)
    names = [f"set-{i}" for i in range(14)]
    crowded = {10: rng.uniform(0.02, 0.08, 14)}  # every point in one corner
    figures.scatter_comparison(crowded, {10: crowded[10] + rng.normal(0, 0.005, 14)},
                               names, [10], "A", "B", tmp_path / "s.png")
    (figure,) = saved
    renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw_without_rendering()
    (axis,) = figure.axes
    boxes = [figures.text_box(text, renderer) for text in axis.texts]
    assert sorted(text.get_text() for text in axis.texts) == sorted(names)
    panel = axis.get_window_extent(renderer)
    for i, box in enumerate(boxes):
        assert not any(box.overlaps(other) for other in boxes[i + 1:])
        assert panel.x0 <= box.x0 and box.x1 <= panel.x1
        assert panel.y0 <= box.y0 and box.y1 <= panel.y1
        assert text_size(axis.texts[i]) >= 7


def text_size(text):
    return text.get_fontsize()


@pytest.mark.parametrize("fmt, magic", [("pdf", b"%PDF"), ("svg", b"<?xml")])
def test_reproduce_writes_the_format_asked(tmp_path, fmt, magic):
    status = main(["reproduce", "--datasets", "glass", "--rounds", "3", "--no-text",
                   "--format", fmt, "--out", str(tmp_path), "--jobs", "1"])
    assert status == 0
    written = sorted(tmp_path.glob(f"*.{fmt}"))
    assert {p.name for p in written} >= {f"training_curves.{fmt}", f"test_error_curves.{fmt}",
                                         f"scatter_real-mh_vs_discrete-mh.{fmt}"}
    assert not list(tmp_path.glob("*.png"))
    for path in written:
        assert path.read_bytes().startswith(magic)
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert f"(training_curves.{fmt})" in report


def test_dpi_sets_the_pixels(tmp_path):
    sizes = {}
    for dpi in (100, 300):
        out = tmp_path / str(dpi)
        assert main(["reproduce", "--datasets", "glass", "--rounds", "3", "--no-text",
                     "--dpi", str(dpi), "--out", str(out), "--jobs", "1"]) == 0
        sizes[dpi] = png_size(out / "test_error_curves.png")
    ratio = sizes[300][0] / sizes[100][0]
    assert 2.8 < ratio < 3.2


def test_bad_format_is_refused(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["reproduce", "--format", "jpg"])
    assert stopped.value.code == 2
    assert "invalid choice: 'jpg'" in capsys.readouterr().err
