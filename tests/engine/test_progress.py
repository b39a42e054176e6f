"""The progress display (engine/boosting.ProgressPrinter): the bar from the fit's start, a
round that compiled numba's kernels said once and left out of the time left."""

import io
from types import SimpleNamespace

import pytest

from confboost.engine import boosting
from confboost.engine.boosting import ProgressPrinter
from confboost.engine.callbacks import CallbackEnv


class Clock:
    """A stand-in for ``time.perf_counter`` that moves only when told."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


@pytest.fixture
def fake(monkeypatch):
    """(clock, compiles): the printer's clock and ``kernels_compiled``'s count, set by the
    test."""
    clock, compiles = Clock(), {"count": 7}
    monkeypatch.setattr(boosting, "time", SimpleNamespace(perf_counter=clock))
    monkeypatch.setattr(boosting, "kernels_compiled", lambda: compiles["count"])
    return clock, compiles


def _round(printer, index, n_rounds=10):
    record = {"z": 0.9, "bound": 0.9, "train_loss": 0.1, "alpha": 0.5}
    printer.after_iteration(CallbackEnv(None, index, 0, n_rounds, record))


def _bars(stream):
    return [part for part in stream.getvalue().replace("\n", "\r").split("\r") if part]


def test_the_bar_is_drawn_when_the_fit_starts(fake):
    stream = io.StringIO()
    printer = ProgressPrinter(10, 1, stream)
    printer.before_training(CallbackEnv(None, 0, 0, 10))
    assert _bars(stream) == ["[..............................] 0/10 rounds 0.0s elapsed"]
    # a further run's start (a calibration run) draws nothing more
    printer.labelled("calibration 1/3").before_training(CallbackEnv(None, 0, 0, 2))
    assert len(_bars(stream)) == 1


def test_a_compiling_round_is_said_once_and_left_out_of_the_time_left(fake):
    clock, compiles = fake
    stream = io.StringIO()
    printer = ProgressPrinter(10, 1, stream)
    clock.now += 30.0  # the first round compiles
    compiles["count"] += 5
    _round(printer, 0)
    said = [line for line in stream.getvalue().splitlines() if "compiled" in line]
    assert said == ["round 1 compiled numba's kernels (30.0 s); later fits load them from "
                    "numba's cache (`confboost compile` compiles them ahead)"]
    assert _bars(stream)[-1].endswith("1/10 rounds 30.0s elapsed")  # no rate known yet
    for index in range(1, 5):  # four rounds of 0.3 s, none compiling
        clock.now += 0.3
        _round(printer, index)
    assert _bars(stream)[-1].endswith("5/10 rounds 31.2s elapsed, ~1.5s left")
    clock.now += 2.0  # a later round compiles too: left out, not said again
    compiles["count"] += 1
    _round(printer, 5)
    assert _bars(stream)[-1].endswith("6/10 rounds 33.2s elapsed, ~1.2s left")
    assert stream.getvalue().count("compiled") == 1


def test_a_slow_round_that_compiled_nothing_counts(fake):
    clock, _ = fake
    stream = io.StringIO()
    printer = ProgressPrinter(4, 1, stream)
    clock.now += 3.0
    _round(printer, 0, 4)
    clock.now += 1.0
    _round(printer, 1, 4)
    assert "compiled" not in stream.getvalue()
    assert _bars(stream)[-1].endswith("2/4 rounds 4.0s elapsed, ~4.0s left")


def test_the_printer_of_a_calibration_run_names_it(fake):
    clock, compiles = fake
    stream = io.StringIO()
    printer = ProgressPrinter(6, 2, stream).labelled("calibration 2/3")
    clock.now += 5.0
    compiles["count"] += 2
    _round(printer, 0, 6)
    assert stream.getvalue().startswith(
        "round 1 of calibration 2/3 compiled numba's kernels (5.0 s)")
    assert "calibration 2/3 round     1: Z=0.900000" in stream.getvalue()
