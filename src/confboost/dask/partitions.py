"""The training collections of the Dask layer: aligned partitions, what each holds, bins.

``confboost.dask`` reads its input only through these functions: ``partitions`` turns
(X, y, sample_weight) dask collections into aligned delayed partitions (refusing what the
layer does not train on, with a message naming it), ``partition_summary`` is what one
partition tells the client (rows, labels, Σ w; never rows themselves), and ``bin_sample`` /
``fit_bins`` find the common bins from a sample drawn from every partition, on a worker.

A dask DataFrame with categorical columns (a ``category`` dtype, or strings that
``data/columns.py``'s rule reads as categorical) is a *table*: ``table_columns`` finds every
column's kind and each categorical column's vocabulary from one pass in which every
partition returns its distinct values (``partition_values``; the client merges these sets,
never rows; values compare by the local rule, ``category_values.value_text``: 202, 202.0
and "202" are one value), and ``encode_partition`` turns a partition into the continuous
matrix and the value codes of the local ``FrameEncoder.fit_dataset``, followed by each text
column's documents (their vocabulary and postings are ``dask/text.py``'s, on the workers).
"""

import sys

import dask.array as da
import numpy as np
from dask import delayed
from distributed import default_client, wait

from confboost.data.bin_mapper import BinMapper
from confboost.data.category_values import fitted_values, is_missing, value_text
from confboost.data.columns import (
    FEATURE_KINDS,
    FrameEncoder,
    column_experts,
    continuous_values,
    string_kind,
    string_values,
    warn_doubtful_kind,
)

#: Rows drawn from the partitions to find the bins (``BinMapper``'s own subsample size).
BIN_SAMPLE = 200_000


def is_dask_frame(X, kinds=("DataFrame",)):
    """Whether X is a dask DataFrame (or Series); dask.dataframe is not imported for it:
    a user who has one has imported it (it needs pyarrow, which dask arrays do not)."""
    frames = sys.modules.get("dask.dataframe")
    return frames is not None and any(isinstance(X, getattr(frames, kind)) for kind in kinds)


def partition_summary(X, y, sample_weight):
    """Rows, label values (or label count), Σ w, #{w > 0} and each label value's count
    (None for an indicator y) of one partition; ValueError on values
    ``BoostClassifier.fit`` refuses (infinite X, bad weights, a non-0/1 indicator)."""
    if np.isinf(X).any():
        raise ValueError("X holds infinite values (NaN is a missing value; inf is refused)")
    if not (np.all(np.isfinite(sample_weight)) and np.all(sample_weight >= 0)):
        raise ValueError("sample_weight must be finite and non-negative")
    if y.ndim == 2 and not np.isin(y, (0, 1)).all():
        raise ValueError("a 2-D y is a multi-label indicator matrix and must hold only 0 and 1")
    labels, counts = (y.shape[1], None) if y.ndim == 2 else np.unique(y, return_counts=True)
    return (X.shape[0], labels, *partition_totals(sample_weight), counts)


def partition_totals(sample_weight):
    """Σ w and #{w > 0} of one partition's weights."""
    return float(np.sum(sample_weight)), int(np.count_nonzero(sample_weight))


def crucial_pair_weight(y, sample_weight):
    """Σ w of one partition's examples with a crucial pair (a true and a false label) of
    a multi-label indicator ``y``: AdaBoost.MR's normaliser (``mr.initial_pair_weights``)."""
    n_true = np.count_nonzero(np.asarray(y) > 0, axis=1)
    has_pair = (n_true > 0) & (n_true < np.shape(y)[1]) & (sample_weight > 0)
    return float(np.sum(sample_weight[has_pair]))


def weighted_by_class(sample_weight, y, classes, factors):
    """One partition's sample weights times each example's class factor (``class_weight``,
    as ``targets.starting_weights`` multiplies them)."""
    return sample_weight * factors[np.searchsorted(classes, y)]


def held_codes(codes, sizes):
    """Which values each categorical column of one partition holds: per column, a bool
    array of shape (sizes[c],) over its value codes (``codes[c]``: int32, -1 missing)."""
    return [np.bincount(column[column >= 0], minlength=size) > 0
            for column, size in zip(codes, sizes, strict=True)]


def recoded(X, y, sample_weight, codes, maps):
    """One partition (X, y, w, value codes) with its first ``len(maps)`` value-code columns
    (the categorical ones) mapped by ``maps[c]`` (an int32 array over the old codes; -1,
    missing, stays); the others (a text column's documents) as they are."""
    mapped = [np.where(column >= 0, code_map[np.maximum(column, 0)], -1).astype(np.int32)
              for column, code_map in zip(codes[:len(maps)], maps, strict=True)]
    return X, y, sample_weight, mapped + list(codes[len(maps):])


def is_dask_collection(value):
    """Whether ``value`` is a dask array, DataFrame or Series."""
    return isinstance(value, da.Array) or is_dask_frame(value, ("DataFrame", "Series"))


def _take(part, rows):
    """Rows ``rows`` of one partition (a pandas frame by position, or an array)."""
    return part.iloc[rows] if hasattr(part, "iloc") else np.asarray(part)[rows]


def gather_rows(client, sources, labels, weights, part_rows, rows):
    """Training rows ``rows`` (sorted, whole-set positions) on the client, from the
    partitions that hold them: (X, y, weights), X a pandas frame when ``sources`` are a
    dask DataFrame's partitions, else an array.

    Parameters
    ----------
    client : distributed.Client
    sources, labels, weights : list of Delayed
        Each partition's X, y and weights.
    part_rows : list of int
        Each partition's row count.
    rows : ndarray of int
    """
    starts = np.concatenate([[0], np.cumsum(part_rows)])
    taken = []
    for index, (start, end) in enumerate(zip(starts[:-1], starts[1:], strict=True)):
        local = rows[(rows >= start) & (rows < end)] - start
        if local.size:
            taken.append([delayed(_take)(part[index], local)
                          for part in (sources, labels, weights)])
    pieces = client.gather(client.compute(taken))
    X = [piece[0] for piece in pieces]
    if hasattr(X[0], "iloc"):
        import pandas as pd  # a dask DataFrame's partitions: pandas is there

        X = pd.concat(X)
    else:
        X = np.concatenate(X)
    return (X, np.concatenate([piece[1] for piece in pieces]),
            np.concatenate([piece[2] for piece in pieces]))


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



def computed(client, tasks, timeout, what):
    """The values of delayed ``tasks`` computed on the cluster, waited for at most
    ``timeout`` seconds (None: no limit); TimeoutError naming ``what`` was waited for."""
    futures = client.compute(tasks)
    try:
        wait(futures, timeout=timeout)
    except TimeoutError:
        client.cancel(futures)
        raise TimeoutError(f"DaskBoostClassifier waited timeout={timeout:g} s for {what} "
                           "before training, and it did not come: are the cluster's workers "
                           "running, and can they compute the input collections?") from None
    return client.gather(futures)


def _lengths(client, frame, timeout, name):
    """The row count of each partition of a dask DataFrame or Series (list of int)."""
    return [int(n) for n in computed(client, [delayed(len)(part) for part in frame.to_delayed()],
                                     timeout, f"the row counts of {name}'s partitions")]


def _known_chunks(name, chunks):
    """ValueError unless every chunk size of a dask array is known (a boolean mask leaves
    them NaN, and the partitions cannot be aligned)."""
    if any(np.isnan(size) for sizes in chunks for size in sizes):
        raise ValueError(f"{name} is a dask array of unknown chunk sizes (as a boolean mask "
                         f"leaves it): call {name}.compute_chunk_sizes() first")


def partitions(X, y, sample_weight, table=None, client=None, timeout=None):
    """Aligned delayed partitions (X, y, w, value codes), the number of columns and the
    column names. A dask DataFrame's row counts are computed on ``client`` (default: the
    default client) within ``timeout`` seconds (``computed``).

    ``table`` (``table_columns``' output, for a dask DataFrame with categorical columns):
    X's partitions are encoded on the workers (``encode_partition``), X of a partition is its
    continuous matrix and the value codes a list of int32 arrays; otherwise the value codes
    are an empty list.
    """
    names = None
    if is_dask_frame(X) or is_dask_frame(y, ("Series", "DataFrame")):
        client = client if client is not None else default_client()
    if table is not None:
        names = [str(column) for column in X.columns]
        lengths = tuple(_lengths(client, X, timeout, "X"))
        encoded = [delayed(encode_partition, nout=2)(part, *table)
                   for part in X.to_delayed()]
        n_features = len(names)
        chunks = (lengths,)
    else:
        if is_dask_frame(X):  # numeric columns only (else ``is_table``)
            names = [str(column) for column in X.columns]
            X = X.to_dask_array(lengths=_lengths(client, X, timeout, "X"))
        if not isinstance(X, da.Array) or X.ndim != 2:
            raise ValueError("X must be a 2-D dask array or a dask DataFrame, got "
                             f"{type(X).__name__}; use BoostClassifier for in-memory data")
        if X.dtype.kind not in "biuf":
            raise ValueError(f"X must be numeric, got dtype {X.dtype}")
        X = X.astype(X.dtype if X.dtype in (np.float32, np.float64) else np.float64)
        X = X.rechunk({1: -1})
        n_features, chunks = X.shape[1], X.chunks
        encoded = [(part, []) for part in X.to_delayed().ravel()]
    _known_chunks("X", chunks)
    n_samples = sum(chunks[0])
    if is_dask_frame(y, ("Series", "DataFrame")):
        y = y.to_dask_array(lengths=_lengths(client, y, timeout, "y"))
    y = da.asarray(y)
    _known_chunks("y", y.chunks)
    if y.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} rows but y has {y.shape[0]}")
    y = y.rechunk({0: chunks[0], **({1: -1} if y.ndim == 2 else {})})
    if sample_weight is None:
        sample_weight = da.ones(n_samples, chunks=(chunks[0],), dtype=np.float64)
    else:
        sample_weight = da.asarray(sample_weight)
        _known_chunks("sample_weight", sample_weight.chunks)
        sample_weight = sample_weight.astype(np.float64).rechunk({0: chunks[0]})
        if sample_weight.shape != (n_samples,):
            raise ValueError(f"sample_weight must have shape ({n_samples},), got "
                             f"{sample_weight.shape}")
    parts = [(matrix, labels, weights, codes) for (matrix, codes), labels, weights in zip(
        encoded, y.to_delayed().ravel(), sample_weight.to_delayed().ravel(), strict=True)]
    return parts, n_features, names


def is_table(X, feature_types):
    """Whether X is fitted as a table: a dask DataFrame with a column that is not numeric,
    or whose ``feature_types`` give a kind other than continuous (as ``is_mixed``)."""
    if not is_dask_frame(X):
        if feature_types is not None:
            raise ValueError("feature_types needs X to be a dask DataFrame whose column "
                             "names it refers to")
        return False
    return (any(dtype.kind not in "biuf" for dtype in X.dtypes)
            or any(kind != "continuous" for kind in (feature_types or {}).values()))


def partition_values(frame, names):
    """What one pandas partition tells of its columns ``names``:
    {name: (distinct values as ``str``, number of non-missing values, distinct values as
    compared at fit (``category_values.value_text``: 202, 202.0 and "202" are "202"), the
    partition's ``fitted_values``)}. The first two find a column's kind as the local rule
    does, the last two its vocabulary and how it is read at prediction."""
    out = {}
    for name in names:
        present = frame[name].dropna()  # None, NaN, pd.NA, NaT: ``columns.is_missing``
        values = present.tolist()
        out[name] = (set(present.astype(str).unique()), len(present),
                     {value_text(value) for value in values}, fitted_values(values))
    return out


def merged_fitted(parts):
    """``fitted_values`` of a whole column from its partitions' (in partition order; a
    partition without a present value says ("strings", None) and is skipped)."""
    seen = [fitted for fitted, n_present in parts if n_present]
    if seen and all(kind == "numbers" for kind, _ in seen):
        return "numbers", None
    return "strings", next((odd for _, odd in seen if odd is not None), None)


def table_columns(client, X, feature_types, timeout=None, text_expert=None):
    """The ``FrameEncoder`` of a dask DataFrame and each categorical column's vocabulary.

    Kinds follow ``data/columns.infer_feature_types``: numeric dtypes are continuous, a
    ``category`` dtype categorical, other columns by ``string_kind`` on the distinct values
    of the whole column (merged from ``partition_values``, waited for at most ``timeout``
    seconds); ``feature_types`` overrides (a column given as text is not read here). Text
    columns take their experts from ``text_expert`` (``FrameEncoder.from_table``'s rule).

    Returns
    -------
    encoder : FrameEncoder
    vocabularies : dict of int to list of str
        The sorted distinct values of each categorical column as compared at fit
        (``value_text``), by table position (the local fit's value codes).

    Raises
    ------
    ValueError
        For a date or time column, a bad ``feature_types`` or ``text_expert``.
    """
    names = list(X.columns)
    given = dict(feature_types or {})
    unknown = [name for name in given if name not in names]
    if unknown:
        raise ValueError(f"feature_types names columns that X does not have: {unknown!r}")
    bad = {name: kind for name, kind in given.items() if kind not in FEATURE_KINDS}
    if bad:
        raise ValueError(f"feature_types must give kinds among {FEATURE_KINDS}, got {bad!r}")
    kinds = {}
    for name, dtype in X.dtypes.items():
        if given.get(name) == "ignore":
            kinds[name] = "ignore"
        elif dtype.kind in "mM":
            raise ValueError(f"column {name!r} holds dates or times; convert it to numbers "
                             f"first (e.g. seconds since 1970) or pass feature_types="
                             f"{{{name!r}: 'ignore'}}")
        elif given.get(name) is not None:
            kinds[name] = given[name]
        elif dtype.kind in "biuf":
            kinds[name] = "continuous"
        elif str(dtype) == "category":
            kinds[name] = "categorical"
    read = [name for name in names if kinds.get(name) in (None, "categorical")]
    merged = {name: (set(), 0, set(), []) for name in read}
    if read:
        for values in computed(
                client, [delayed(partition_values)(part, read) for part in X.to_delayed()],
                timeout, f"the values of the columns {read!r} in X's partitions"):
            for name, (distinct, n_present, texts, fitted) in values.items():
                old = merged[name]
                merged[name] = (old[0] | distinct, old[1] + n_present, old[2] | texts,
                                [*old[3], (fitted, n_present)])
    for name in read:
        distinct, n_present = merged[name][:2]
        if name not in kinds:
            kinds[name] = string_kind(distinct, n_present)
            warn_doubtful_kind(name, kinds[name], n_present, len(distinct), stacklevel=5)
    categorical = [(position, name) for position, name in enumerate(names)
                   if kinds[name] == "categorical"]
    encoder = FrameEncoder(names, [kinds[name] for name in names],
                           column_experts(names, kinds, text_expert),
                           {position: merged_fitted(merged[name][3])
                            for position, name in categorical})
    vocabularies = {position: sorted(merged[name][2]) for position, name in categorical}
    return encoder, vocabularies


def encode_partition(frame, encoder, vocabularies):
    """One pandas partition as the local ``FrameEncoder.fit_dataset`` reads it: the
    continuous columns as a float64 matrix (n_rows, n_continuous), NaN where missing, and
    each categorical column's value codes (int32, -1 where missing), in table order, then
    each text column's documents (object array of str, None where missing), in table
    order."""
    columns = [frame[encoder.names[c]] for c in encoder.numeric_columns]
    matrix = np.empty((len(frame), len(columns)), dtype=np.float64)
    for j, (c, column) in enumerate(zip(encoder.numeric_columns, columns, strict=True)):
        matrix[:, j] = (column.to_numpy(dtype=np.float64, na_value=np.nan)
                        if column.dtype.kind in "biuf" else
                        continuous_values(column.tolist(), encoder.names[c]))
    codes = []
    for position, values in sorted(vocabularies.items()):
        code_of = {value: code for code, value in enumerate(values)}
        codes.append(np.array([-1 if is_missing(value) else code_of[value_text(value)]
                               for value in frame[encoder.names[position]].tolist()],
                              dtype=np.int32))
    for position in sorted(encoder.experts):
        codes.append(np.array(string_values(frame[encoder.names[position]].tolist()),
                              dtype=object))
    return matrix, codes
