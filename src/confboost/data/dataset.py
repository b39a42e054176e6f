"""The training data as the weak learners see it.

Owns ``Dataset`` (the binned numeric features; categorical and text parts join it as they
land) and ``LabelSigns`` (the label signs Y[i, l] in {-1, +1} a scheme hands the learners).
Label signs are kept apart from the features because a scheme may relabel them: AdaBoost.MO
boosts on code-relabelled signs (paper §8) over the same features.
"""

from dataclasses import dataclass

import numpy as np

from confboost._dtypes import SIGN_DTYPE, X_BINNED_DTYPE
from confboost.data.binning import BinMapper


@dataclass
class Dataset:
    """Binned features of the training examples.

    Attributes
    ----------
    codes : ndarray of shape (n_features, n_samples), uint8
        Feature-major bin codes (``BinMapper.transform``).
    n_bins : ndarray of shape (n_features,), intp
        Value bins per feature.
    bin_mapper : BinMapper
        The fitted mapper, which turns a bin threshold back into a raw threshold.
    """

    codes: np.ndarray
    n_bins: np.ndarray
    bin_mapper: BinMapper

    @classmethod
    def from_array(cls, X, max_bins, random_state=None, sample_weight=None):
        """Bin a raw ``(n_samples, n_features)`` float matrix (NaN = missing).

        Rows of zero ``sample_weight`` do not shape the bins (``BinMapper.fit``).
        """
        mapper = BinMapper(max_bins=max_bins, random_state=random_state)
        codes = np.ascontiguousarray(mapper.fit_transform(X, sample_weight),
                                     dtype=X_BINNED_DTYPE)
        return cls(codes=codes, n_bins=mapper.n_bins_, bin_mapper=mapper)

    @property
    def n_samples(self):
        return self.codes.shape[1]

    @property
    def n_features(self):
        return self.codes.shape[0]


@dataclass
class LabelSigns:
    """Label signs of the training examples.

    Attributes
    ----------
    signs : ndarray of shape (n_samples, k), int8
        Y[i, l] in {-1, +1}.
    sign_index : ndarray of shape (n_samples, k), uint8
        0 where Y[i, l] = +1 and 1 where it is -1: the histogram kernels' W+/W- slot.
    """

    signs: np.ndarray
    sign_index: np.ndarray

    @classmethod
    def from_signs(cls, signs):
        signs = np.ascontiguousarray(signs, dtype=SIGN_DTYPE)
        if signs.ndim != 2 or not np.all(np.abs(signs) == 1):
            raise ValueError("label signs must be a 2-D array of -1 and +1")
        return cls(signs=signs, sign_index=(signs < 0).astype(np.uint8))

    @property
    def n_labels(self):
        return self.signs.shape[1]
