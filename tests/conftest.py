"""Shared fixtures: small random problems and access to the real data sets.

A user's clone has no data folder beside it: a test that needs a set which is neither
bundled nor fetched calls ``load_or_skip`` and is skipped, saying how to get the set.
"""

import numpy as np
import pytest

from confboost.datasets import load
from tests.helpers import write_stem


def load_or_skip(name, **kwargs):
    """``confboost.datasets.load(name, **kwargs)``, or skip the test when the set is absent.

    The skip reason names the set and the ``fetch`` call (or ``$CONFBOOST_DATA``) that
    makes it available.
    """
    try:
        return load(name, **kwargs)
    except FileNotFoundError:
        pytest.skip(
            f"data set {name!r} is not on this machine (not bundled; no data folder or cache "
            f"holds it): run confboost.datasets.fetch({name!r}) or set CONFBOOST_DATA"
        )


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def random_problem(rng, n_samples=200, n_features=5, k=1, missing=0.1, distinct=None):
    """Random codes-ready data: X with NaNs, label signs, normalised weights."""
    X = rng.normal(size=(n_samples, n_features))
    if distinct is not None:
        X = np.round(X * distinct) / distinct
    X[rng.random(X.shape) < missing] = np.nan
    signs = np.where(rng.random((n_samples, k)) < 0.4, 1, -1).astype(np.int8)
    weights = rng.random((n_samples, k))
    weights /= weights.sum()
    return X, signs, weights


@pytest.fixture
def stem(tmp_path):
    """A small BoosTexter stem (``t.names``, ``.data``, ``.dev``, ``.test``) of every column
    kind, with missing values and multi-label rows; the path without a suffix."""
    return write_stem(tmp_path)
