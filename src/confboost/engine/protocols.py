"""The engine's seams as typed protocols: weak learner, scheme, scheme outputs, row sets,
reducer.

The paper's loop (Figure 1) meets its parts only through these methods: a weak learner
never knows which scheme called it and a scheme never knows which learner it called
(``docs/DESIGN.md``). The learners and schemes reach every sum over examples through a
``Reducer`` (``engine/reduction.py``: one machine, or the shards of a Dask cluster; the tree
learners at their own sum points, ``Reducer.total``), and a tree's rows through
``RowSets``. Each protocol is ``runtime_checkable``; ``tests/engine/test_protocols.py``
checks every implementation, the Dask ones included, against it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # annotations only: no import at run time
    import numpy as np

    from confboost.data.dataset import Dataset, LabelSigns
    from confboost.engine.learners.base import PartitionFit


@runtime_checkable
class WeakLearner(Protocol):
    """Finds a domain-partitioning hypothesis of small Z under the weights it is given (§4).

    The same learner serves every scheme: binary AdaBoost, MH, MR and MO (§7-9).
    """

    def fit(self, dataset: Dataset, weights: np.ndarray, labels: LabelSigns) -> PartitionFit:
        """The round's hypothesis and its block statistics.

        Parameters
        ----------
        dataset : Dataset
            The training examples, binned and coded.
        weights : ndarray of shape (n_samples, k)
            The scheme's weights D(i, l) (MH; MR's d(i, l) of Eq. 30; MO's on the code's
            columns).
        labels : LabelSigns
            The label signs Y[i, l] in {-1, +1} the weights are paired with.

        Returns
        -------
        PartitionFit
        """


@runtime_checkable
class Scheme(Protocol):
    """The weights of one boosting scheme over a training set, updated round by round.

    Attributes
    ----------
    labels : LabelSigns
        The signs the learner is given with ``learner_weights``.
    learner_weights : ndarray of shape (n_samples, k)
        The weights handed to the weak learner this round.
    """

    labels: LabelSigns

    @property
    def learner_weights(self) -> np.ndarray: ...

    def choose_alpha(self, fit: PartitionFit, method: str, mode: int,
                     smoothing: float) -> tuple[float, bool]:
        """α for the round's hypothesis (§3) and whether it was capped."""

    def update(self, fit: PartitionFit, alpha: float) -> float:
        """Apply α h_t to the weights (Figure 1's update) and return Z_t."""

    def train_loss(self) -> float:
        """The scheme's training loss of the rounds so far."""

    def loss_of(self, scores: np.ndarray) -> float:
        """The same loss of other scores f, shape (n_samples, k)."""

    def bound(self, product_z: float) -> float:
        """The bound on the training loss that Π Z_t gives (Theorem 1 and its forms)."""


@runtime_checkable
class SchemeOutputs(Protocol):
    """What a fitted model outputs under its scheme: from the scores f to the answers."""

    def decision_function(self, scores: np.ndarray) -> np.ndarray:
        """The decision values shown to users, from f of shape (n_samples, k)."""

    def predict(self, scores: np.ndarray, round_index: int | None = None) -> np.ndarray:
        """Labels (single-label) or 0/1 indicators (multi-label)."""

    def predict_proba(self, scores: np.ndarray, calibrator=None) -> np.ndarray:
        """Probabilities, through the scheme's link and the fitted temperature."""


@runtime_checkable
class RowSets(Protocol):
    """The rows of a tree's nodes as the grower reads them, on one machine or many.

    Attributes
    ----------
    n_samples : int
        The number of training examples.
    """

    n_samples: int

    def fill(self, node: int, hist: np.ndarray) -> None:
        """Overwrite ``hist``, shape (n_features, n_bins, k, 2), with the node's W+ and W-
        (over every shard)."""

    def partition(self, node: int, split: tuple, left: int, right: int) -> int:
        """Split the node's rows into ``left`` and ``right``; return how many go left (over
        every shard)."""

    def best_other(self, node: int) -> tuple[float, tuple] | None:
        """The node's best split on the non-numeric column kinds, (gain, split), or None."""

    def leaf_blocks(self, leaf_of_node: dict) -> np.ndarray | None:
        """The leaf of every training row, shape (n_samples,), from {node: leaf}."""


@runtime_checkable
class Reducer(Protocol):
    """Where a fit's sums over examples are taken (``engine/reduction.py``).

    On one machine (``LocalReducer``) each method calls the function on the caller's
    arguments; over shards (``confboost.dask``) each shard calls it on its own rows.

    Attributes
    ----------
    slice_cells : int
        The most float64 cells a learner's sums of one row per posting list hold at once
        (``reduction.slices``): each slice is one ``sum`` or ``total``, over shards one
        allreduce, so a cluster's reducer asks for larger slices than one machine's.
    """

    slice_cells: int

    def sum(self, function, dataset: Dataset, weights: np.ndarray, labels: LabelSigns,
            *args, out: np.ndarray | None = None):
        """Σ over the shards of ``function(dataset, weights, labels, *args)``.

        Parameters
        ----------
        function : callable
            Returns an array, a float, or a list or tuple of them, of the same shapes on
            every shard (sums over disjoint row sets add up to the sum over their union).
        dataset : Dataset
        weights : ndarray of shape (n_samples, k)
        labels : LabelSigns
            The caller's rows; on many shards, each shard's own stand in for them.
        out : ndarray, optional
            A buffer for the sum, passed on as ``function``'s ``out`` keyword on one
            machine (a reducer over shards returns a new array).
        """

    def total(self, value, out: np.ndarray | None = None):
        """Σ over the shards of ``value``, which each shard computed of its own rows (a
        tree node's histogram or row count, a leaf's W+ and W-).

        Parameters
        ----------
        value : ndarray, float, int, or a list or tuple of them
            Of the same shapes on every shard; on one machine it is returned as it is.
        out : ndarray, optional
            Where the sum is written (``value`` itself: in place), and returned.
        """

    def rows(self, function, dataset: Dataset, *args):
        """``function(dataset, *args)``, an array over the rows (a round's training blocks),
        of each shard, kept where the rows are: a later ``sum`` or ``apply`` of the same
        reducer that is given it passes each shard its own part."""

    def apply(self, function, scheme: Scheme, *args):
        """Every shard's ``scheme`` ← ``function(scheme, *args)`` in place; the returned
        values (an array, a float, or a list or tuple of them) summed over the shards."""
