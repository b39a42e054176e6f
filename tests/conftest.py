"""Shared fixtures: small random problems and access to the shared real data sets."""

import numpy as np
import pytest


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
