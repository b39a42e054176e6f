"""Exact explanations of a boosted model: per-column contributions and global views.

Owns the training cover of each round's hypothesis (``record_cover``), the contribution of
every input column to f(x, l) = Σ_t α_t h_t(x, l) (``contributions``), and the views built on
them: importances by total |contribution| (``contribution_importances``) and partial
dependence (``partial_dependence``).

Every hypothesis is explained by exact Shapley values of its own output α_t h_t(x, l), each
averaging over the training data the way TreeSHAP does (Lundberg et al. 2020): the value of a
coalition S of columns is the hypothesis' output when the columns in S take x's values and
the others are averaged over the training examples (their sample weights) that the
hypothesis' structure cannot tell apart. By the Shapley values' additivity the model's
contributions are the sums of the rounds', so for every example and label

    Σ_columns contribution[column] + bias = f(x, l)        (to rounding, 1e-12)

where the bias is the training-cover mean of f. Per kind of hypothesis:

- a stump, a categorical value test, a term test, any hypothesis on one column: the whole
  of α h(x, l) minus its training mean goes to that column (exact by construction: one
  player);
- a tree or Hamming tree: path-dependent TreeSHAP (``tree_shap.py``) with each node's
  training cover; a tree per label: the sum of its trees', each tree's output in its own
  label;
- a product of stumps: exact Shapley over its few columns, v(S) the mean output over the
  training examples whose terms on the columns of S have x's signs (the conditional
  expectation over the training sign patterns; where no training example has those signs,
  the mean over every sign pattern that agrees). Its cost is 2^(distinct columns) per
  distinct sign pattern of the explained rows.
"""

from math import factorial

import numpy as np

from confboost.data.frame import as_frame
from confboost.explain.tree_shap import FlatTree, tree_shap
from confboost.kernels.block_cover import block_cover, block_cover_naive
from confboost.utils.lazy_numba import prefer_twin


def record_cover(fit, sample_weight, unit=False):
    """Set the training cover of the round's hypothesis (a ``boosting`` callback's work).

    Parameters
    ----------
    fit : PartitionFit
        The round's fit; its hypothesis gets ``cover``, shape (n_blocks,), the sample
        weight of the training examples in each block (``kernels.block_cover.block_cover``:
        ``np.bincount``'s sums), and a product also ``pattern_cover`` = (patterns, masses),
        the mass of each sign pattern seen.
    sample_weight : ndarray of shape (n_samples,), float64
    unit : bool, default=False
        Every sample weight is 1 (the cover is then counted: the same numbers, sooner).
    """
    hypothesis = fit.hypothesis
    hypothesis.cover = block_cover_of(fit.train_blocks, sample_weight, unit,
                                      hypothesis.values.shape[0])
    if fit.train_patterns is not None:
        patterns, inverse = np.unique(fit.train_patterns, return_inverse=True)
        masses = np.bincount(inverse, weights=sample_weight)
        keep = masses > 0
        hypothesis.pattern_cover = (patterns[keep].astype(np.int64), masses[keep])


def block_cover_of(blocks, sample_weight, unit, n_blocks):
    """Σ sample weight of the examples in each block, shape (n_blocks,), float64: a
    hypothesis' training cover (``record_cover``), or one shard's part of it on Dask.

    Parameters
    ----------
    blocks : ndarray of shape (n_samples,) or (n_samples, k), uint8 or uint16
        The block of each example (of each example and label: a tree per label).
    sample_weight : ndarray of shape (n_samples,), float64
    unit : bool
        Every sample weight is 1 (the blocks' examples are then counted: the same
        numbers, sooner; ``kernels.block_cover.block_cover``).
    n_blocks : int
    """
    if blocks.ndim == 2:  # a block per example and label (a tree per label)
        return np.bincount(blocks.ravel(), weights=np.repeat(sample_weight, blocks.shape[1]),
                           minlength=n_blocks).astype(np.float64)
    if prefer_twin(block_cover, blocks.size):  # the same sums, without numba
        return block_cover_naive(blocks, sample_weight, n_blocks)
    cover = np.empty(n_blocks, dtype=np.float64)
    block_cover(blocks, sample_weight, unit, cover)
    return cover


def _cover(hypothesis):
    if hypothesis.cover is None:
        raise ValueError(f"this {hypothesis.type_name} hypothesis has no training cover "
                         "(a model saved before confboost recorded covers): refit the model "
                         "to explain it")
    return np.asarray(hypothesis.cover, dtype=np.float64)


def cover_mean(values, cover):
    """Mean of the rows of ``values`` (n_blocks, k) weighted by ``cover`` (uniform if 0)."""
    total = cover.sum()
    if not total > 0:
        return values.mean(axis=0)
    return cover @ values / total


def contributions(model, X, n_columns):
    """Per-column contributions to f(x, l) of every example, and the bias.

    Parameters
    ----------
    model : BoostedModel
        Fitted, with covers (``record_cover``).
    X : Frame or ndarray of shape (n_samples, n_columns)
        As ``BoostedModel.decision_function`` reads it.
    n_columns : int
        Columns of the input table.

    Returns
    -------
    ndarray of shape (n_samples, k, n_columns + 1)
        ``[..., j]`` the contribution of column j, ``[..., -1]`` the bias; the last axis
        sums to f(x, l).
    """
    X = as_frame(X)
    n_samples = X.n_samples
    k = model.n_labels
    out = np.zeros((n_samples, k, n_columns + 1), dtype=np.float64)
    for hypothesis, alpha in _parts(model):
        source = X
        columns = hypothesis.test_columns()
        values = alpha * hypothesis.values
        several = len(set(columns.tolist())) > 1
        if several and hypothesis.test_layout == "product":
            phi, bias = product_shap(hypothesis, source, columns, alpha, n_columns)
            out[:, :, :n_columns] += phi
            out[:, :, -1] += bias
        elif several:
            tree = FlatTree(hypothesis.left, hypothesis.right, columns, values,
                            _cover(hypothesis))
            phi, bias = tree_shap(tree, hypothesis.goes_left(source), n_columns)
            out[:, :, :n_columns] += phi
            out[:, :, -1] += bias
        else:
            mean = cover_mean(values, _cover(hypothesis))
            out[:, :, -1] += mean
            if columns.size:
                out[:, :, columns[0]] += values[hypothesis.blocks(source)] - mean
    return out


def _parts(model):
    """(hypothesis, α) of every round, a tree per label (``LabelTreesHypothesis``) as its
    trees, each with k output columns: the round's output is their sum, so its Shapley
    values are theirs."""
    for hypothesis, alpha in zip(model.hypotheses, model.alphas, strict=True):
        if hypothesis.test_layout == "label_trees":
            for part in hypothesis.parts():
                yield part, alpha
        else:
            yield hypothesis, alpha


def product_shap(hypothesis, X, columns, alpha, n_columns):
    """Exact Shapley values of a product's output α h(x, l) over its distinct columns.

    Parameters
    ----------
    hypothesis : ProductHypothesis
        With ``pattern_cover``.
    X : ndarray of shape (n_samples, n_features)
    columns : ndarray of shape (n_terms,)
        Table column of each term.
    alpha : float
    n_columns : int

    Returns
    -------
    phi : ndarray of shape (n_samples, k, n_columns)
    bias : ndarray of shape (k,)
    """
    if hypothesis.pattern_cover is None:
        raise ValueError("this product hypothesis has no training cover of its sign patterns "
                         "(a model saved before confboost recorded covers): refit to explain it")
    values = alpha * hypothesis.values
    n_terms = columns.shape[0]
    players = sorted(set(columns.tolist()))
    c = len(players)
    term_bits = [sum(1 << j for j in range(n_terms) if columns[j] == player)
                 for player in players]
    seen, masses = (np.asarray(a) for a in hypothesis.pattern_cover)
    seen_values = values[_parity(seen)]
    uniform = values.mean(axis=0)
    full = (1 << n_terms) - 1
    goes_left = hypothesis.goes_left(X)
    patterns = sum((~goes_left[j]).astype(np.int64) << j for j in range(n_terms))
    distinct, inverse = np.unique(patterns, return_inverse=True)
    weight = [factorial(s) * factorial(c - s - 1) / factorial(c) for s in range(c)]
    phi_by_pattern = np.zeros((distinct.shape[0], values.shape[1], n_columns))
    for row, pattern in enumerate(distinct.tolist()):
        value = {}
        for coalition in range(1 << c):
            mask = sum(term_bits[p] for p in range(c) if coalition >> p & 1)
            agree = ((seen ^ pattern) & mask) == 0
            mass = masses[agree].sum()
            if mass > 0:
                value[coalition] = masses[agree] @ seen_values[agree] / mass
            elif mask == full:
                value[coalition] = values[_parity(np.array([pattern]))[0]]
            else:
                value[coalition] = uniform
        for p, player in enumerate(players):
            for coalition in range(1 << c):
                if coalition >> p & 1:
                    continue
                size = bin(coalition).count("1")
                phi_by_pattern[row, :, player] += weight[size] * (
                    value[coalition | 1 << p] - value[coalition])
    bias = masses @ seen_values / masses.sum() if masses.sum() > 0 else uniform
    return phi_by_pattern[inverse], bias


def _parity(patterns):
    """Block of each sign pattern: 0 where an even number of terms is -1, else 1."""
    patterns = np.asarray(patterns, dtype=np.int64)
    bits = np.zeros(patterns.shape, dtype=np.int64)
    rest = patterns.copy()
    while np.any(rest):
        bits += rest & 1
        rest >>= 1
    return bits % 2


def contribution_importances(contribution, per_label=False):
    """Mean absolute contribution of each column over a data set (the bias left out).

    Parameters
    ----------
    contribution : ndarray of shape (n_samples, k, n_columns + 1) or (n_samples, n_columns + 1)
        ``contributions``' output, or ``BoostClassifier.explain``'s (2-D for binary data:
        one label).
    per_label : bool, default=False
        Keep one row per label instead of summing over the labels.

    Returns
    -------
    ndarray of shape (n_columns,), or (k, n_columns) when ``per_label``
    """
    contribution = np.asarray(contribution)
    if contribution.ndim == 2:
        contribution = contribution[:, np.newaxis, :]
    elif contribution.ndim != 3:
        raise ValueError("contribution must have shape (n_samples, n_columns + 1) or "
                         f"(n_samples, k, n_columns + 1), got {contribution.shape}")
    magnitude = np.abs(contribution[:, :, :-1]).mean(axis=0)
    return magnitude if per_label else magnitude.sum(axis=0)


def bound_importances(model, z, n_columns):
    """Share of the bound's decrease Σ_t -ln Z_t due to each column, shape (n_columns,).

    A round on several columns (a tree, a product) credits its -ln Z_t to each of them.
    """
    importances = np.zeros(n_columns)
    for hypothesis, z_t in zip(model.hypotheses, z, strict=False):
        for column in hypothesis.features():
            importances[column] += max(-np.log(z_t), 0.0)
    total = importances.sum()
    return importances / total if total > 0 else importances


def tested_points(estimator, column):
    """The thresholds and categorical values the model tests on one column.

    Returns
    -------
    thresholds : list of float
        Sorted finite thresholds of the continuous tests (``x <= t``).
    values : list of str
        Sorted values of the categorical tests (``x == v``).
    """
    thresholds, values = set(), set()
    for hypothesis in estimator.model_.hypotheses:
        tested_thresholds, tested_values = hypothesis.tested_points(column)
        thresholds.update(tested_thresholds)
        values.update(tested_values)
    return sorted(thresholds), sorted(values)


def reads_only(estimator, column):
    """Whether every round that reads ``column`` reads no other column (f is then additive
    in it: f = g(x[column]) + the rest)."""
    for hypothesis in estimator.model_.hypotheses:
        columns = set(hypothesis.features())
        if column in columns and len(columns) > 1:
            return False
    return True


def _with_column(estimator, X, column, value):
    """A copy of the table ``X`` with every row's ``column`` set to ``value``."""
    if hasattr(X, "columns"):
        X = X.copy()
        X[X.columns[column]] = [value] * len(X)
        return X
    if isinstance(X, dict):
        name = list(X)[column]
        n_rows = len(next(iter(X.values())))
        return {**X, name: [value] * n_rows}
    X = np.array(X, dtype=np.float64)
    X[:, column] = value
    return X


def _blank_rows(estimator, column, grid):
    """One row per grid value: ``column`` set to it, every other column missing."""
    if hasattr(estimator, "encoder_"):
        names = estimator.encoder_.names
        table = {name: [None] * len(grid) for name in names}
        table[names[column]] = list(grid)
        return table
    X = np.full((len(grid), estimator.n_features_in_), np.nan)
    X[:, column] = np.asarray(grid, dtype=np.float64)
    if hasattr(estimator, "feature_names_in_"):  # fitted on a DataFrame: give it one
        import pandas as pd

        return pd.DataFrame(X, columns=estimator.feature_names_in_)
    return X


def partial_dependence(estimator, column, grid, X=None):
    """f as a function of one column.

    Without ``X``: the column's own term of f, g(v) = Σ over the rounds on that column of
    α_t (h_t(v) - training mean of h_t): the column's contribution (``contributions``) to
    any example whose value is v. For a model of stumps it is exactly the sum of that
    column's stumps, a step function. It needs every round that reads the column to read no
    other (``reads_only``); otherwise pass ``X``.
    With ``X``: Friedman's partial dependence, the mean of f over the rows of ``X`` with the
    column set to v.

    Parameters
    ----------
    estimator : BoostClassifier
    column : int
        Table position of the column.
    grid : sequence
        Values of the column (numbers; strings for a categorical column; None or NaN is
        missing).
    X : table or array, optional

    Returns
    -------
    ndarray of shape (len(grid), k)
        For the k columns of f.

    Raises
    ------
    ValueError
        When ``column`` is not an integer in [0, ``n_features_in_``) (a negative position does
        not count from the end).
    """
    n_columns = estimator.n_features_in_
    if (not isinstance(column, int | np.integer) or isinstance(column, bool | np.bool_)
            or not 0 <= column < n_columns):
        raise ValueError(f"column must be a column position in [0, {n_columns}), got "
                         f"{column!r}")
    column = int(column)
    if X is None:
        if not reads_only(estimator, column):
            raise ValueError(f"column {column} is read together with other columns (trees or "
                             "products): f is not a sum of a function of it and the rest; "
                             "pass X for the partial dependence over data")
        rows = estimator._prepare(_blank_rows(estimator, column, grid))
        return contributions(estimator.model_, rows,
                             estimator.n_features_in_)[:, :, column]
    return np.stack([
        estimator.model_.decision_function(
            estimator._prepare(_with_column(estimator, X, column, value))).mean(axis=0)
        for value in grid])
