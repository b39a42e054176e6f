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


def test_several_threads_keep_four_tasks_a_thread():
    with numba_threads(2):
        n_threads = load_numba().get_num_threads()
        if n_threads < 2:
            pytest.skip("one thread only on this machine")
        for feature_bytes in (None, 17 * 26 * 2 * 8):
            assert mass_group(16, feature_bytes) == max(1, min(MASS_GROUP,
                                                               16 // (4 * n_threads)))
            assert mass_group(400, feature_bytes) == MASS_GROUP
