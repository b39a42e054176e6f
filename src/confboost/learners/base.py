"""What every weak learner returns: a partition hypothesis and its fit on the training set.

A domain-partitioning hypothesis (paper §4.1) maps an example to a block j and outputs
``values[j, l]`` for label l. The learner also hands back the block of every training
example and the block statistics, so the round's α and weight update need no second pass
over the features.
"""

from dataclasses import dataclass

import numpy as np


class PartitionHypothesis:
    """Interface of a partition hypothesis (subclasses set ``type_name`` and ``values``).

    Attributes
    ----------
    values : ndarray of shape (n_blocks, k)
        h(x, l) on each block, before α.
    cover : ndarray of shape (n_blocks,) or None
        Training mass (sample weights) of each block, set after the round
        (``explain.record_cover``); the explanations average over it. None in a model saved
        before covers were recorded.
    """

    type_name = None
    values: np.ndarray
    cover = None

    def features(self):
        """Indices of the features the hypothesis tests."""
        raise NotImplementedError

    def blocks(self, X):
        """Block of each example of a raw ``(n_samples, n_features)`` matrix, shape (n,)."""
        raise NotImplementedError

    def to_dict(self):
        """The hypothesis as JSON-ready data (``"type"`` names the class)."""
        raise NotImplementedError

    @classmethod
    def from_dict(cls, data):
        """Inverse of ``to_dict``; ValueError on malformed data."""
        raise NotImplementedError


def saved_values(data, n_blocks, kind):
    """The ``(n_blocks, k)`` value table of a saved hypothesis; ValueError when malformed.

    Parameters
    ----------
    data : dict
        ``to_dict``'s output.
    n_blocks : int
        The number of blocks the hypothesis kind has.
    kind : str
        The hypothesis kind, for the message.
    """
    values = np.asarray(data["values"], dtype=np.float64)
    if values.ndim != 2 or values.shape[0] != n_blocks:
        raise ValueError(f"{kind} values must have shape ({n_blocks}, k), got {values.shape}")
    return values


@dataclass
class PartitionFit:
    """A weak learner's result for one round.

    Attributes
    ----------
    hypothesis : PartitionHypothesis
    train_blocks : ndarray of shape (n_samples,), uint8
        Block of each training example.
    weight_pos, weight_neg : ndarray of shape (n_blocks, k)
        W+ and W- of each block under the weights the learner was given.
    criterion : float
        The learner's Z for this hypothesis (Eq. 10/16, or §3.1/§3.3's form).
    train_patterns : ndarray of shape (n_samples,) or None
        Products only: the sign pattern of each training example (bit j set where term j
        is -1), whose training masses the explanations of a product average over.
    """

    hypothesis: PartitionHypothesis
    train_blocks: np.ndarray
    weight_pos: np.ndarray
    weight_neg: np.ndarray
    criterion: float
    train_patterns: np.ndarray | None = None
