"""Every learner, scheme, scheme output and row-set class meets its engine protocol, with
the protocol's parameter names (the Dask stand-ins included)."""

import inspect

import pytest

from confboost.engine import protocols
from confboost.engine.learners.best_of import BestOfLearner
from confboost.engine.learners.categorical import CategoricalLearner
from confboost.engine.learners.grower import LocalRows
from confboost.engine.learners.label_trees import LabelTreesLearner
from confboost.engine.learners.product import ProductLearner
from confboost.engine.learners.stump import StumpLearner
from confboost.engine.learners.term import TermLearner
from confboost.engine.learners.tree import HammingTreeLearner, TreeLearner
from confboost.engine.reduction import LocalReducer
from confboost.engine.schemes.mh import MHOutputs, MHScheme
from confboost.engine.schemes.mo import MOOutputs, MOScheme
from confboost.engine.schemes.mr import MROutputs, MRScheme

IMPLEMENTATIONS = [
    (protocols.WeakLearner, [StumpLearner, CategoricalLearner, TermLearner, ProductLearner,
                             TreeLearner, HammingTreeLearner, LabelTreesLearner,
                             BestOfLearner]),
    (protocols.Scheme, [MHScheme, MRScheme, MOScheme]),
    (protocols.SchemeOutputs, [MHOutputs, MROutputs, MOOutputs]),
    (protocols.RowSets, [LocalRows]),
    (protocols.Reducer, [LocalReducer]),
]
try:
    from confboost.dask.collective import CollectiveLearner, CollectiveReducer
    from confboost.dask.shards import ClusterReducer

    IMPLEMENTATIONS[0][1].append(CollectiveLearner)
    IMPLEMENTATIONS[4][1].extend([ClusterReducer, CollectiveReducer])
except ImportError:  # the dask extra is not installed
    pass

CASES = [(protocol, cls) for protocol, classes in IMPLEMENTATIONS for cls in classes]


def _methods(protocol):
    return {name: member for name, member in vars(protocol).items()
            if callable(member) and not name.startswith("_")}


@pytest.mark.parametrize("protocol, cls", CASES,
                         ids=[f"{p.__name__}-{c.__name__}" for p, c in CASES])
def test_the_class_has_the_protocols_methods_and_parameters(protocol, cls):
    for name, method in _methods(protocol).items():
        assert callable(getattr(cls, name, None)), f"{cls.__name__} lacks {name}"
        wanted = list(inspect.signature(method).parameters)
        given = list(inspect.signature(getattr(cls, name)).parameters)
        assert given[:len(wanted)] == wanted, (cls.__name__, name, given)
        for extra in inspect.signature(getattr(cls, name)).parameters.values():
            if extra.name not in wanted:  # anything beyond the protocol has a default
                assert extra.default is not inspect.Parameter.empty, (cls.__name__, name)


def test_a_class_without_a_method_is_not_a_learner():
    class NotALearner:
        def predict(self, X):
            return X

    assert not isinstance(NotALearner(), protocols.WeakLearner)
    assert isinstance(StumpLearner.__new__(StumpLearner), protocols.WeakLearner)
