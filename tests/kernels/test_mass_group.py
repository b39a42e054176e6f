"""How many features a task of ``build_histogram_masses`` fills (``mass_group``)."""

import pytest

from confboost.kernels.histogram import MASS_GROUP, MASS_GROUP_BYTES, N_HIST_BINS, mass_group
from confboost.utils.lazy_numba import load_numba
from confboost.utils.threads import numba_threads


def test_one_thread_fills_every_feature_whose_histograms_fit():
    letter_feature = 17 * 26 * 2 * 8  # a compacted letter feature: 17 bins, 26 labels
    full_feature = N_HIST_BINS * 26 * 2 * 8
    with numba_threads(1):
        load_numba()
        assert mass_group(16, letter_feature) == 16  # one task: the masses read once
        assert mass_group(16, full_feature) == MASS_GROUP_BYTES // full_feature < 16
        assert mass_group(3, MASS_GROUP_BYTES * 2) == 1
        assert mass_group(16) == min(MASS_GROUP, 16 // 4)  # no size: the threads' rule


def test_several_threads_take_a_share_each_where_it_fits():
    """On several threads a task takes an equal share of the features when their
    histograms fit ``MASS_GROUP_BYTES`` (one task a thread); else, or without a size, 4
    tasks a thread of at most ``MASS_GROUP``."""
    with numba_threads(2):
        n_threads = load_numba().get_num_threads()
        if n_threads < 2:
            pytest.skip("one thread only on this machine")
        letter_feature = 17 * 26 * 2 * 8
        share = -(-16 // n_threads)
        assert mass_group(16, letter_feature) == share  # letter: one task a thread
        full_feature = N_HIST_BINS * 26 * 2 * 8
        assert share * full_feature > MASS_GROUP_BYTES
        assert mass_group(16, full_feature) == max(1, min(MASS_GROUP, 16 // (4 * n_threads)))
        assert mass_group(16) == max(1, min(MASS_GROUP, 16 // (4 * n_threads)))
        assert mass_group(400, letter_feature) == MASS_GROUP
