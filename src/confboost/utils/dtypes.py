"""Every dtype the kernels and data structures share.

Kernels never hard-code a type: they receive arrays of these dtypes, and the orchestration
code allocates with them (DESIGN.md, rule 2).
"""

import numpy as np

#: Binned feature codes, feature-major ``(n_features, n_samples)``. Codes ``0 .. n_bins - 1``
#: are value bins; ``MISSING_BIN`` holds NaN.
X_BINNED_DTYPE = np.uint8

#: The bin code of a missing (NaN) value; value bins are ``0 .. MAX_BINS - 1``.
MISSING_BIN = 255

#: The most value bins a feature can have (the missing bin comes on top).
MAX_BINS = 255

#: Raw feature values after validation.
X_DTYPE = np.float64

#: Weights over (example, label) pairs, and every sum of them (histograms, block masses).
WEIGHT_DTYPE = np.float64

#: Label signs ``Y[i, l]`` in {-1, +1}.
SIGN_DTYPE = np.int8

#: Block index of an example under a hypothesis (``0 .. n_blocks - 1``).
BLOCK_DTYPE = np.uint8

#: Values of f(x, l) and confidences.
SCORE_DTYPE = np.float64

#: Stored values of text term postings (presence, always 1).
POSTING_DTYPE = np.int8

#: 0/1 label indicator matrices read from files.
LABEL_DTYPE = np.int8

#: Confidence-mode codes, the integers kernels receive for a mode (names and the criterion of
#: each in ``kernels/criterion_numpy.py``; the confidence rule in ``confidence.py``).
REAL, DISCRETE, ABSTAIN, REAL_ABSTAIN = 0, 1, 2, 3

#: The tree node layout's kind column: a node tests a threshold on a continuous column
#: (``x <= θ``), a categorical value (``x == v``) or the presence of a term in a text column.
NODE_THRESHOLD, NODE_VALUE, NODE_TERM = 0, 1, 2

#: The saved name of each node kind.
NODE_KIND_NAMES = ("threshold", "value", "term")
