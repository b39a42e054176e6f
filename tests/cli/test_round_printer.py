"""The round printer's training part read from the run's own scores equals the one it
computes on a reordered copy (``RoundPrinter._train_measure`` against ``_measure``)."""

from types import SimpleNamespace

import numpy as np
import pytest

from confboost.cli.train_command import RoundPrinter


@pytest.mark.parametrize("single_label", [True, False])
@pytest.mark.parametrize("order", [None, [2, 0, 3, 1]])
def test_train_part_from_run_scores_equals_the_reordered_one(single_label, order):
    rng = np.random.default_rng(7)
    n, k = 300, 4
    labels = np.zeros((n, k), dtype=np.int8)
    labels[np.arange(n), rng.integers(0, k, n)] = 1
    if not single_label:
        labels[rng.random((n, k)) < 0.2] = 1
    # few distinct values: ties at the top, and zeros, are common
    scores = rng.integers(-2, 3, size=(n, k)).astype(np.float64)
    scores[:5, :] = np.nan if single_label else 0.0
    estimator = SimpleNamespace(_multilabel=True)
    if order is not None:
        estimator.class_order_ = np.array(order)
    train = SimpleNamespace(labels=labels, line_numbers=np.arange(n), columns={})
    printer = RoundPrinter(estimator, train, None, None, single_label, None, None, [])
    printer.run_scores = scores
    assert printer._train_measure() == printer._measure("train", scores)[0]
