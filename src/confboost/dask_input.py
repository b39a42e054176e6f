"""The training collections of the Dask layer: aligned partitions, what each holds, bins.

``confboost.dask`` reads its input only through these functions: ``partitions`` turns
(X, y, sample_weight) dask collections into aligned delayed partitions (refusing what the
layer does not train on, with a message naming it), ``partition_summary`` is what one
partition tells the client (rows, labels, Σ w; never rows themselves), and ``bin_sample`` /
``fit_bins`` find the common bins from a sample drawn from every partition, on a worker.
"""

import sys

import numpy as np

from confboost.data.binning import BinMapper

try:
    import dask.array as da
except ImportError as error:  # pragma: no cover - the extra is installed in the dev env
    raise ImportError("confboost.dask needs Dask: pip install 'confboost[dask]' "
                      "(dask[distributed])") from error


#: Rows drawn from the partitions to find the bins (``BinMapper``'s own subsample size).
BIN_SAMPLE = 200_000


def is_dask_frame(X, kinds=("DataFrame",)):
    """Whether X is a dask DataFrame (or Series); dask.dataframe is not imported for it:
    a user who has one has imported it (it needs pyarrow, which dask arrays do not)."""
    frames = sys.modules.get("dask.dataframe")
    return frames is not None and any(isinstance(X, getattr(frames, kind)) for kind in kinds)


def partition_summary(X, y, sample_weight):
    """Rows, label values (or label count), Σ w, #{w > 0} of one partition; ValueError on
    values ``BoostClassifier.fit`` refuses (infinite X, bad weights, a non-0/1 indicator)."""
    if np.isinf(X).any():
        raise ValueError("X holds infinite values (NaN is a missing value; inf is refused)")
    if not (np.all(np.isfinite(sample_weight)) and np.all(sample_weight >= 0)):
        raise ValueError("sample_weight must be finite and non-negative")
    if y.ndim == 2 and not np.isin(y, (0, 1)).all():
        raise ValueError("a 2-D y is a multi-label indicator matrix and must hold only 0 and 1")
    labels = y.shape[1] if y.ndim == 2 else np.unique(y)
    return X.shape[0], labels, float(np.sum(sample_weight)), int(np.count_nonzero(sample_weight))


def bin_sample(X, sample_weight, n_rows, seed):
    """``n_rows`` rows of the partition drawn without replacement (all when fewer)."""
    if n_rows >= X.shape[0]:
        return X, sample_weight
    rows = np.sort(np.random.default_rng(seed).choice(X.shape[0], n_rows, replace=False))
    return X[rows], sample_weight[rows]


def fit_bins(max_bins, *samples):
    """A ``BinMapper`` fitted on the concatenated samples (run on a worker)."""
    X = np.concatenate([sample[0] for sample in samples])
    weights = np.concatenate([sample[1] for sample in samples])
    return BinMapper(max_bins=max_bins, subsample=None).fit(X, weights)



def partitions(X, y, sample_weight):
    """Aligned (X, y, w) delayed partitions, the number of columns and the column names."""
    names = None
    if is_dask_frame(X):
        bad = [str(column) for column, dtype in X.dtypes.items() if dtype.kind not in "biuf"]
        if bad:
            raise ValueError(f"DaskBoostClassifier trains on numeric columns only; these are "
                             f"not numeric: {bad[:5]}. Encode categorical columns as numbers "
                             "or train BoostClassifier on the gathered table")
        names = [str(column) for column in X.columns]
        X = X.to_dask_array(lengths=True)
    if not isinstance(X, da.Array) or X.ndim != 2:
        raise ValueError("X must be a 2-D dask array or a dask DataFrame, got "
                         f"{type(X).__name__}; use BoostClassifier for in-memory data")
    if X.dtype.kind not in "biuf":
        raise ValueError(f"X must be numeric, got dtype {X.dtype}")
    X = X.astype(X.dtype if X.dtype in (np.float32, np.float64) else np.float64)
    X = X.rechunk({1: -1})
    if is_dask_frame(y, ("Series", "DataFrame")):
        y = y.to_dask_array(lengths=True)
    y = da.asarray(y)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
    y = y.rechunk({0: X.chunks[0], **({1: -1} if y.ndim == 2 else {})})
    if sample_weight is None:
        sample_weight = da.ones(X.shape[0], chunks=(X.chunks[0],), dtype=np.float64)
    else:
        sample_weight = da.asarray(sample_weight).astype(np.float64).rechunk({0: X.chunks[0]})
        if sample_weight.shape != (X.shape[0],):
            raise ValueError(f"sample_weight must have shape ({X.shape[0]},), got "
                             f"{sample_weight.shape}")
    parts = list(zip(X.to_delayed().ravel(), y.to_delayed().ravel(),
                     sample_weight.to_delayed().ravel(), strict=True))
    return parts, X.shape[1], names
