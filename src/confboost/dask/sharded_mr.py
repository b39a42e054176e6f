"""AdaBoost.MR on a Dask cluster: Figure 5's pair weights v held by the shards.

Each shard holds the local ``MRScheme`` of its rows, normalised by the whole set's weight
(``total_weight``): its v are the whole set's v on its rows, its d (Eq. 30) its share of
the learner's weights, its ranking loss its share of the whole set's. The weak learners
read d through the shards' histograms as they read MH's D, so stumps and trees are chosen
as on one machine. What differs from AdaBoost.MH:

- α (§9): real confidences fold α into the block values, and ``alpha="exact"`` minimises
  the pair objective; both read the (block, l0, l1) table of crucial-pair masses, a sum
  over examples: every shard builds its part with the local kernel
  (``MRScheme.pair_masses``) and the client sums them (one round trip), then runs the
  local ``MRScheme.fold_alpha`` / ``exact_alpha`` on the sum;
- the update: v ← v e^{-½ α Y h} / √Z_t, where Z_t is a sum over all examples. Each shard
  applies the local kernel (``update_pair_weights``, which divides by its own part's √Z),
  undoes that division and returns its share of Z_t (``mr_advance``); the client sums the
  shares, and every shard divides by the whole √Z_t and refreshes d (``mr_normalise``):
  two round trips a round, through the cluster's reducer.

Single-label data only: on multi-label data MR learns the cut θ of ``predict`` from a sort
of every training score (``schemes/mr.hamming_threshold``), not a sum over partitions.
"""

import numpy as np

from confboost.dask.shards import OnShards
from confboost.engine.schemes.mr import MRScheme
from confboost.kernels.weight_update import update_pair_weights


def _blocks(shard, blocks):
    return blocks.on(shard.dataset) if isinstance(blocks, OnShards) else blocks


def mr_advance(scheme, blocks, values, alpha):
    """v ← v e^{-½ α Y h} (not yet divided by √Z_t) and f ← f + α h on one shard's
    scheme, in place; its shares of Z_t (``ClusterReducer.apply``'s function)."""
    z_share = update_pair_weights(scheme.v, scheme.labels.signs, blocks, values, alpha,
                                  scheme.scores)
    if z_share > 0.0:
        scheme.v *= np.sqrt(z_share)  # the kernel divided by this part's √Z: undone
    return z_share


def mr_normalise(scheme, z):
    """v divided by the whole set's √Z_t (Eq. 29 holds again) and d refreshed, in place;
    the shard's share of the ranking loss."""
    if z > 0.0:
        scheme.v *= 1.0 / np.sqrt(z)
    scheme._refresh_learner_weights()
    return scheme.train_loss()


def shard_pair_masses(shard, blocks, n_blocks):
    """The shard's (n_blocks, k, k) table of crucial-pair masses under the round's
    hypothesis."""
    return shard.scheme.pair_masses(_blocks(shard, blocks), n_blocks)


class ShardedMRScheme:
    """AdaBoost.MR over shards (single-label data): α by the local rules on the summed
    pair masses, the update in two steps (see the module docstring).

    Parameters
    ----------
    shards : confboost.dask.shards.Shards
    reducer : confboost.dask.shards.ClusterReducer
    labels : LabelSigns
        Of no rows: the label count.
    """

    name = "mr"
    fold_alpha = MRScheme.fold_alpha
    exact_alpha = MRScheme.exact_alpha
    def __init__(self, shards, reducer, labels):
        self.shards = shards
        self.reducer = reducer
        self.labels = labels
        self.learner_weights = np.empty((0, labels.n_labels))  # the shards hold them
        self.multilabel = False
        self.thresholds = []
        self._loss = None

    choose_alpha = MRScheme.choose_alpha

    def pair_masses(self, train_blocks, n_blocks):
        """The whole set's pair-mass table of the round's hypothesis (``train_blocks``:
        kept on the shards)."""
        return self.shards.reduce(shard_pair_masses, train_blocks, n_blocks)

    def update(self, fit, alpha):
        z = float(self.reducer.apply(mr_advance, self, fit.train_blocks,
                                     fit.hypothesis.values, alpha))
        self._loss = float(self.reducer.apply(mr_normalise, self, z))
        return z

    def train_loss(self):
        return self._loss

    def bound(self, product_z):
        """Theorem 6: ranking loss <= Π Z_t."""
        return product_z
