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
  shares, and every shard divides by the whole √Z_t and builds its next histograms
  (``mr_normalise``): two round trips a round.

Single-label data only: on multi-label data MR learns the cut θ of ``predict`` from a sort
of every training score (``schemes/mr.hamming_threshold``), not a sum over partitions.
"""

import copy

import numpy as np

from confboost.dask.shards import Shard, blocks_of
from confboost.engine.schemes.mr import MRScheme
from confboost.kernels.weight_update import update_pair_weights


def mr_advance(shard, split, alpha):
    """The shard after v ← v e^{-½ α Y h} (not yet divided by √Z_t) and f ← f + α h, with
    its shares of Z_t, of the ranking loss and of the training cover; no histograms."""
    scheme = copy.copy(shard.scheme)
    scheme.v = shard.scheme.v.copy()
    scheme.scores = shard.scheme.scores.copy()
    blocks = blocks_of(shard.dataset, split)
    z_share = update_pair_weights(scheme.v, scheme.labels.signs, blocks,
                                  split["hypothesis"].values, alpha, scheme.scores)
    if z_share > 0.0:
        scheme.v *= np.sqrt(z_share)  # the kernel divided by this part's √Z: undone
    cover = np.bincount(blocks, weights=shard.sample_weight,
                        minlength=split["weight_pos"].shape[0])
    shares = np.concatenate([[z_share, scheme.train_loss()], cover])
    return Shard(shard.dataset, scheme, shard.sample_weight, shares, histograms=False)


def mr_normalise(shard, z):
    """The shard with v divided by the whole set's √Z_t (Eq. 29 holds again), its d and
    its next histograms."""
    scheme = copy.copy(shard.scheme)
    scheme.v = shard.scheme.v * (1.0 / np.sqrt(z)) if z > 0.0 else shard.scheme.v.copy()
    scheme._d = np.empty_like(scheme.v)
    scheme._refresh_learner_weights()
    return Shard(shard.dataset, scheme, shard.sample_weight, shard.shares)


def shard_pair_masses(shard, split, n_blocks):
    """The shard's (n_blocks, k, k) table of crucial-pair masses under the round's
    hypothesis."""
    return shard.scheme.pair_masses(blocks_of(shard.dataset, split), n_blocks)


class ShardedMRScheme:
    """AdaBoost.MR over shards (single-label data): α by the local rules on the summed
    pair masses, the update in two steps (see the module docstring).

    Parameters
    ----------
    shards : confboost.dask.shards.Shards
    """

    name = "mr"
    fold_alpha = MRScheme.fold_alpha
    exact_alpha = MRScheme.exact_alpha
    _local_choose_alpha = MRScheme.choose_alpha

    def __init__(self, shards):
        self.shards = shards
        self.learner_weights = None  # the shards hold them
        self.labels = None
        self.multilabel = False
        self.thresholds = []
        self._split = None
        self._loss = None

    def choose_alpha(self, fit, method, mode, smoothing):
        """``MRScheme.choose_alpha`` on the round's hypothesis (its pair masses summed over
        the shards)."""
        self._split = fit.split
        return self._local_choose_alpha(fit, method, mode, smoothing)

    def pair_masses(self, train_blocks, n_blocks):
        """The whole set's pair-mass table of the round's hypothesis (``train_blocks`` is
        None: each shard finds its own blocks)."""
        shards = self.shards
        return shards.attempt(lambda: shards.total(
            shards.each(shard_pair_masses, shards.futures, self._split, n_blocks)))

    def update(self, fit, alpha):
        shares = self.shards.run(mr_advance, fit.split, alpha)
        z = float(shares[0])
        self._loss = float(shares[1])
        fit.hypothesis.cover = shares[2:]
        self.shards.run(mr_normalise, z)
        return z

    def train_loss(self):
        return self._loss

    def bound(self, product_z):
        """Theorem 6: ranking loss <= Π Z_t."""
        return product_z
