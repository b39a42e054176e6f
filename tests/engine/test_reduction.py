"""The reducer of one machine is the identity: each method calls the function on the
caller's own arguments (no copy) and returns what it returns."""

import numpy as np

from confboost.engine.reduction import LOCAL, LocalReducer


def test_the_local_reducer_passes_the_callers_objects_and_returns_the_result():
    dataset, weights, labels, buffer = object(), np.ones((3, 2)), object(), np.empty(4)
    seen = []

    def record(*args, out=None):
        seen.append((args, out))
        return out if out is not None else args

    assert LOCAL.sum(record, dataset, weights, labels, 7, out=buffer) is buffer
    (args, out), = seen
    assert args[0] is dataset and args[1] is weights and args[2] is labels and args[3] == 7
    assert out is buffer
    assert LOCAL.sum(record, dataset, weights, labels)[1] is weights  # no out: none passed
    assert seen[-1][1] is None
    assert LOCAL.rows(record, dataset, 3) == (dataset, 3)


def test_apply_changes_the_given_scheme_in_place():
    class Scheme:
        weights = np.ones(3)

    scheme = Scheme()

    def halve(target, factor):
        target.weights *= factor
        return float(target.weights.sum())

    assert LocalReducer().apply(halve, scheme, 0.5) == 1.5
    np.testing.assert_array_equal(scheme.weights, [0.5, 0.5, 0.5])
