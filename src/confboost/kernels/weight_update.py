"""The weight update of a boosting round (Figure 1, Figure 2; Eq. 3).

For a partition hypothesis with value v[j, l] on block j, example i in block b_i:

    scores[i, l]  += α v[b_i, l]
    weights[i, l] *= exp(-α Y[i, l] v[b_i, l]) / Z,   Z = Σ_{i,l} weights[i, l] exp(...)

``apply_partition`` updates the scores and the weights and measures the training loss in
one pass (the scheme divides the factors by the Z its block statistics predict, so no
second pass renormalises); ``stump_blocks`` and ``stump_block_stats`` give a stump's blocks
on the training codes; ``block_masses`` sums W+ and W- over any partition's blocks
(``block_sums`` the columns of one array).

Every sum over the examples is taken in fixed chunks of ``REDUCTION_CHUNK`` rows, one
parallel task per chunk, and the chunks' partial sums are added in chunk order: the result
is the same to the last bit whatever the number of threads (a plain prange reduction adds
per-thread partials, so Z_t, and through it α and the model, would depend on ``n_jobs``).
"""

import numpy as np

from confboost.utils.lazy_numba import njit, prange

#: Rows per partial sum of a reduction over the examples (fixed, so the sum's order is).
REDUCTION_CHUNK = 1024


@njit(cache=True, nogil=True, inline="always")
def _n_chunks(n_samples):
    return (n_samples + REDUCTION_CHUNK - 1) // REDUCTION_CHUNK


@njit(cache=True, nogil=True, inline="always")
def _ordered_sum(partial):
    """Σ of the chunks' partial sums, in chunk order."""
    total = 0.0
    for c in range(partial.shape[0]):
        total += partial[c]
    return total


@njit(cache=True, nogil=True)
def stump_blocks(column_codes, threshold_bin, missing_bin, blocks):
    """Blocks of a stump on the training codes: 0 (<= b), 1 (> b), 2 (missing).

    Parameters
    ----------
    column_codes : ndarray of shape (n_samples,), uint8
    threshold_bin : int
    missing_bin : int
    blocks : ndarray of shape (n_samples,), uint8
        Output.
    """
    for i in range(column_codes.shape[0]):  # serial: one byte in, one out, per example
        code = column_codes[i]
        if code == missing_bin:
            blocks[i] = 2
        elif code <= threshold_bin:
            blocks[i] = 0
        else:
            blocks[i] = 1


@njit(cache=True, nogil=True)
def stump_block_stats(column_codes, threshold_bin, missing_bin, weights, sign_index, blocks,
                      weight_pos, weight_neg):
    """``stump_blocks`` and the W+ / W- of each block over every example, in one pass.

    Parameters
    ----------
    column_codes : ndarray of shape (n_samples,), uint8
    threshold_bin, missing_bin : int
    weights : ndarray of shape (n_samples, k), float64
    sign_index : ndarray of shape (n_samples, k), uint8
    blocks : ndarray of shape (n_samples,), uint8
        Output.
    weight_pos, weight_neg : ndarray of shape (3, k), float64
        Output.
    """
    k = weights.shape[1]
    weight_pos[:] = 0.0
    weight_neg[:] = 0.0
    for i in range(column_codes.shape[0]):
        code = column_codes[i]
        if code == missing_bin:
            block = 2
        elif code <= threshold_bin:
            block = 0
        else:
            block = 1
        blocks[i] = block
        for l in range(k):
            if sign_index[i, l] == 0:
                weight_pos[block, l] += weights[i, l]
            else:
                weight_neg[block, l] += weights[i, l]


@njit(cache=True, nogil=True)
def block_masses(blocks, n_blocks, pos, neg):
    """Σ of ``pos`` and ``neg`` over each block's examples, shape (n_blocks, k) each.

    One pass over the examples in order, each adding its row to its block's: every sum is
    ``np.bincount``'s (which adds the weights in index order too) to the bit, without a
    strided copy of each column.

    Parameters
    ----------
    blocks : ndarray of shape (n_samples,), integer
        Block of each example, ``0 <= blocks[i] < n_blocks``.
    n_blocks : int
    pos, neg : ndarray of shape (n_samples, k), float64

    Returns
    -------
    weight_pos, weight_neg : ndarray of shape (n_blocks, k), float64
    """
    k = pos.shape[1]
    weight_pos = np.zeros((n_blocks, k), dtype=np.float64)
    weight_neg = np.zeros((n_blocks, k), dtype=np.float64)
    for i in range(blocks.shape[0]):
        block = blocks[i]
        for l in range(k):
            weight_pos[block, l] += pos[i, l]
            weight_neg[block, l] += neg[i, l]
    return weight_pos, weight_neg


def block_masses_naive(blocks, n_blocks, pos, neg):
    """Twin of ``block_masses``: one ``np.bincount`` per column and sign."""
    return tuple(np.stack([np.bincount(blocks, masses[:, l], minlength=n_blocks)
                           for l in range(masses.shape[1])], axis=1)
                 for masses in (pos, neg))


@njit(cache=True, nogil=True)
def block_sums(blocks, n_blocks, values):
    """Σ of ``values`` over each block's examples, shape (n_blocks, c): ``block_masses``
    for one array of any number of columns (a label tree's interleaved masses, each
    example's W+ and W- of every label side by side: both sides in one pass).

    One pass over the examples in order, each adding its row to its block's: every sum is
    ``np.bincount``'s to the bit, and ``block_masses``' for a column of ``pos`` or ``neg``.

    Parameters
    ----------
    blocks : ndarray of shape (n_samples,), integer
        Block of each example, ``0 <= blocks[i] < n_blocks``.
    n_blocks : int
    values : ndarray of shape (n_samples, c), float64, C-contiguous

    Returns
    -------
    sums : ndarray of shape (n_blocks, c), float64
    """
    c = values.shape[1]
    sums = np.zeros((n_blocks, c), dtype=np.float64)
    for i in range(blocks.shape[0]):
        block = blocks[i]
        for column in range(c):
            sums[block, column] += values[i, column]
    return sums


def block_sums_naive(blocks, n_blocks, values):
    """Twin of ``block_sums``: one ``np.bincount`` per column."""
    return np.stack([np.bincount(blocks, values[:, column], minlength=n_blocks)
                     for column in range(values.shape[1])], axis=1).reshape(n_blocks, -1)


def stump_blocks_naive(column_codes, threshold_bin, missing_bin):
    """Twin of ``stump_blocks``; returns the blocks."""
    return np.where(column_codes == missing_bin, 2,
                    np.where(column_codes <= threshold_bin, 0, 1)).astype(np.uint8)


#: Training-loss kinds of ``apply_partition`` (the loss each MH theorem bounds).
LOSS_PAIRS, LOSS_ARGMAX = 0, 1


@njit(cache=True, nogil=True, inline="always")
def argmax_wrong(score_row, sign_row):
    """Whether the first argmax label of a row is negative or its top score is tied (the
    single-label error of H_1, Eq. 17).

    The answer of following the running maximum label by label (``score > top`` from -inf:
    the first label to reach the top, and how many labels reach it), without its
    data-dependent branches: the top is a running select, then a label counts where its
    score equals the top, and when one label does it is the first argmax. A row with no
    top above -inf (every score -inf or NaN) has label 0 as its first argmax, as the
    running loop leaves it. On letter's tenth round (k = 26, one thread) the weight update's
    pass took 0.7-0.85x the time it took with the running loop inside it.

    Parameters
    ----------
    score_row : ndarray of shape (k,), float64
    sign_row : ndarray of shape (k,), uint8
        0 where Y = +1.

    Returns
    -------
    wrong : bool
    """
    k = score_row.shape[0]
    top = -np.inf
    for l in range(k):
        score = score_row[l]
        top = score if score > top else top
    n_top = 0
    negative = 0
    for l in range(k):
        at_top = score_row[l] == top
        n_top += at_top
        negative += at_top * sign_row[l]
    if top == -np.inf:
        return n_top > 1 or sign_row[0] != 0
    return n_top > 1 or negative != 0


def argmax_wrong_naive(score_row, sign_row):
    """Twin of ``argmax_wrong``: the running maximum, label by label."""
    top, top_label, n_top = -np.inf, 0, 0
    for label, score in enumerate(score_row):
        if score > top:
            top, top_label, n_top = score, label, 1
        elif score == top:
            n_top += 1
    return bool(n_top > 1 or sign_row[top_label] != 0)


@njit(cache=True, parallel=True, nogil=True, error_model="numpy")
def apply_partition(weights, sign_index, blocks, steps, factors, scores, loss_kind,
                    loss_weights):
    """One pass of the round's update: weights, scores and the training loss.

    With the block values known, ``exp(-α Y[i,l] h(x_i,l))`` takes only ``2 × n_blocks × k``
    values: they come in as the table ``factors`` (already divided by the expected Z), so
    the pass has no ``exp``, no second normalising pass, and computes the new training loss
    (the scheme's ``train_loss``) on the updated scores as it goes.

    Parameters
    ----------
    weights : ndarray of shape (n_samples, k), float64
        D_t; becomes ``D_t * factors[block, l, sign]``.
    sign_index : ndarray of shape (n_samples, k), uint8
        0 where Y[i, l] = +1, 1 where it is -1.
    blocks : ndarray of shape (n_samples,), uint8
    steps : ndarray of shape (n_blocks, k), float64
        α h on each block: added to the scores.
    factors : ndarray of shape (n_blocks, k, 2), float64
        ``exp(-α v[j, l]) / z`` for sign index 0 (Y = +1), ``exp(α v[j, l]) / z`` for 1.
    scores : ndarray of shape (n_samples, k), float64
        f(x_i, l), incremented.
    loss_kind : int
        ``LOSS_PAIRS``: Σ loss_weights[i, l] over pairs with Y[i,l] f(x_i,l) <= 0 (Hamming;
        binary error for k = 1); a single column is each example's weight for every label.
        ``LOSS_ARGMAX``: Σ loss_weights[i, 0] over examples whose first argmax label is
        negative or whose top score is tied (single-label error, Eq. 17).
    loss_weights : ndarray of shape (n_samples, k) or (n_samples, 1), float64

    Returns
    -------
    total : float
        Σ of the new weights (1 up to rounding when ``z`` was exact).
    loss : float
    """
    n_samples, k = weights.shape
    one_column = loss_weights.shape[1] == 1  # the same weight for every label
    partial_total = np.empty(_n_chunks(n_samples), dtype=np.float64)  # each chunk writes its own
    partial_loss = np.empty(_n_chunks(n_samples), dtype=np.float64)
    for c in prange(partial_total.shape[0]):
        chunk_total = 0.0
        chunk_loss = 0.0
        for i in range(c * REDUCTION_CHUNK, min((c + 1) * REDUCTION_CHUNK, n_samples)):
            block = blocks[i]
            row_loss = 0.0
            for l in range(k):
                sign = sign_index[i, l]
                score = scores[i, l] + steps[block, l]
                scores[i, l] = score
                w = weights[i, l] * factors[block, l, sign]
                weights[i, l] = w
                chunk_total += w
                if loss_kind == LOSS_PAIRS:
                    # Y f <= 0, without a branch: on data in no order its outcome is a coin
                    # toss, and a mispredicted branch per pair cost three times the rest of
                    # the pass (adding 0.0 leaves the sum's bits as skipping would)
                    row_loss += (loss_weights[i, 0 if one_column else l]
                                 * (score * (1.0 - 2.0 * sign) <= 0.0))
            if loss_kind == LOSS_ARGMAX and argmax_wrong(scores[i], sign_index[i]):
                row_loss = loss_weights[i, 0]
            chunk_loss += row_loss
        partial_total[c] = chunk_total
        partial_loss[c] = chunk_loss
    return _ordered_sum(partial_total), _ordered_sum(partial_loss)


@njit(cache=True, parallel=True, nogil=True, error_model="numpy")
def apply_partition_binary(weights, sign_index, blocks, steps, factors, scores, loss_weights):
    """``apply_partition`` for one label column (binary data, ``LOSS_PAIRS``), in 1-D.

    The same pass without the label loop and the loss kinds' tests: on 10,000 examples on
    one thread 0.54x the time of ``apply_partition``. Every sum is added in the same order
    (a row's loss alone is ``apply_partition``'s row loss, 0.0 plus it), so weights, scores,
    Σ D and the loss are ``apply_partition``'s to the bit.

    Parameters
    ----------
    weights : ndarray of shape (n_samples,), float64
        D_t; becomes ``D_t * factors[2 * block + sign]``.
    sign_index : ndarray of shape (n_samples,), uint8
    blocks : ndarray of shape (n_samples,), uint8
    steps : ndarray of shape (n_blocks,), float64
    factors : ndarray of shape (2 * n_blocks,), float64
        ``apply_partition``'s (n_blocks, 1, 2) table, flat.
    scores : ndarray of shape (n_samples,), float64
    loss_weights : ndarray of shape (n_samples,), float64

    Returns
    -------
    total : float
    loss : float
    """
    n_samples = weights.shape[0]
    partial_total = np.empty(_n_chunks(n_samples), dtype=np.float64)
    partial_loss = np.empty(_n_chunks(n_samples), dtype=np.float64)
    for c in prange(partial_total.shape[0]):
        chunk_total = 0.0
        chunk_loss = 0.0
        for i in range(c * REDUCTION_CHUNK, min((c + 1) * REDUCTION_CHUNK, n_samples)):
            block = np.intp(blocks[i])
            sign = sign_index[i]
            score = scores[i] + steps[block]
            scores[i] = score
            w = weights[i] * factors[2 * block + sign]
            weights[i] = w
            chunk_total += w
            chunk_loss += loss_weights[i] * (score * (1.0 - 2.0 * sign) <= 0.0)
        partial_total[c] = chunk_total
        partial_loss[c] = chunk_loss
    return _ordered_sum(partial_total), _ordered_sum(partial_loss)


def apply_partition_binary_naive(weights, sign_index, blocks, steps, factors, scores,
                                 loss_weights):
    """Twin of ``apply_partition_binary``: ``apply_partition_naive`` on one column."""
    columns = (weights[:, None], sign_index[:, None], blocks, steps[:, None],
               factors.reshape(-1, 1, 2), scores[:, None])
    return apply_partition_naive(*columns, LOSS_PAIRS, loss_weights[:, None])  # in place


@njit(cache=True, nogil=True)
def sum_in_order(weights):
    """Σ weights[i, l], added one at a time, example by example and label by label.

    The order of icsiboost's normalisation (``weights.sum()`` adds pairwise, a parallel sum
    by chunks): with it, D_{t+1} = D_t e^{...} / Σ has icsiboost's bits.

    Parameters
    ----------
    weights : ndarray of shape (n_samples, k), float64

    Returns
    -------
    total : float
    """
    total = 0.0
    for i in range(weights.shape[0]):
        for l in range(weights.shape[1]):
            total += weights[i, l]
    return total


def sum_in_order_naive(weights):
    """Twin of ``sum_in_order``: the last of NumPy's running sums (``cumsum`` adds in
    order)."""
    flat = np.ascontiguousarray(weights).reshape(-1)
    return float(np.cumsum(flat)[-1]) if flat.size else 0.0


def apply_partition_naive(weights, sign_index, blocks, steps, factors, scores, loss_kind,
                          loss_weights):
    """Twin of ``apply_partition`` in NumPy; same arguments and effect, returns the same."""
    n_samples, k = weights.shape
    columns = np.arange(k)
    weights *= factors[blocks[:, None], columns[None, :], sign_index]
    scores += steps[blocks]
    signs = np.where(sign_index == 0, 1, -1)
    if loss_kind == LOSS_PAIRS:
        loss = np.broadcast_to(loss_weights, scores.shape)[signs * scores <= 0].sum()
    else:
        predicted = np.argmax(scores, axis=1)
        top = scores[np.arange(n_samples), predicted]
        tied = (scores == top[:, None]).sum(axis=1) > 1
        wrong = signs[np.arange(n_samples), predicted] < 0
        loss = loss_weights[wrong | tied, 0].sum()
    return float(weights.sum()), float(loss)


@njit(cache=True, parallel=True, nogil=True)
def update_pair_weights(v, signs, blocks, values, alpha, scores, normalise=True):
    """AdaBoost.MR's round in the O(mk) form of Figure 5, in place.

    With v' = v exp(-½ α Y h), the normaliser of the crucial-pair weights is
    Z = Σ_i [Σ_{l ∉ Y_i} v'(i, l)] [Σ_{l ∈ Y_i} v'(i, l)]; then v ← v' / √Z, so that
    D_{t+1}(i, l0, l1) = v(i, l0) v(i, l1) again (Eq. 29). Without ``normalise`` v is left
    at v' and Z is these rows' share (the rows are one shard of the training set, whose Z
    is the sum of the shards').

    Parameters
    ----------
    v : ndarray of shape (n_samples, k), float64
        v_t; becomes v_{t+1}.
    signs : ndarray of shape (n_samples, k), int8
    blocks : ndarray of shape (n_samples,), uint8
    values : ndarray of shape (n_blocks, k), float64
    alpha : float
    scores : ndarray of shape (n_samples, k), float64
        f(x_i, l), incremented by α h(x_i, l).
    normalise : bool, default=True

    Returns
    -------
    z : float
        Z_t of Figure 4 (= Figure 5's).
    """
    n_samples, k = v.shape
    partial = np.empty(_n_chunks(n_samples), dtype=np.float64)  # each chunk writes its own
    for c in prange(partial.shape[0]):
        chunk_z = 0.0
        for i in range(c * REDUCTION_CHUNK, min((c + 1) * REDUCTION_CHUNK, n_samples)):
            block = blocks[i]
            below = 0.0
            above = 0.0
            for l in range(k):
                step = alpha * values[block, l]
                scores[i, l] += step
                w = v[i, l] * np.exp(-0.5 * signs[i, l] * step)
                v[i, l] = w
                if signs[i, l] > 0:
                    above += w
                else:
                    below += w
            chunk_z += below * above
        partial[c] = chunk_z
    z = _ordered_sum(partial)
    if normalise and z > 0.0:
        inverse = 1.0 / np.sqrt(z)
        for i in prange(n_samples):
            for l in range(k):
                v[i, l] *= inverse
    return z


def update_pair_weights_naive(v, signs, blocks, values, alpha, scores, normalise=True):
    """Twin of ``update_pair_weights`` in NumPy; same arguments, same effect, returns Z."""
    step = alpha * values[blocks]
    scores += step
    new_v = v * np.exp(-0.5 * signs * step)
    z = float(np.sum(np.where(signs < 0, new_v, 0).sum(axis=1)
                     * np.where(signs > 0, new_v, 0).sum(axis=1)))
    v[:] = new_v / np.sqrt(z) if normalise and z > 0 else new_v
    return z


@njit(cache=True, parallel=True, nogil=True)
def pair_learner_weights(v, signs, d):
    """The weak learner's weights of AdaBoost.MR (Eq. 30), into ``d``.

    d(i, l) = ½ v(i, l) Σ_{l': Y_i[l'] ≠ Y_i[l]} v(i, l'): for a true label, ½ v times the
    total v of the example's false labels, and the other way round. Σ d = Σ_i (true total)
    (false total) = Σ D, the mass of the crucial pairs.

    Parameters
    ----------
    v : ndarray of shape (n_samples, k), float64
    signs : ndarray of shape (n_samples, k), int8
    d : ndarray of shape (n_samples, k), float64
        Output.

    Returns
    -------
    total : float
        Σ d.
    """
    n_samples, k = v.shape
    partial = np.empty(_n_chunks(n_samples), dtype=np.float64)  # each chunk writes its own
    for c in prange(partial.shape[0]):
        chunk_total = 0.0
        for i in range(c * REDUCTION_CHUNK, min((c + 1) * REDUCTION_CHUNK, n_samples)):
            below = 0.0
            above = 0.0
            for l in range(k):
                is_true = 0.5 * (signs[i, l] + 1)
                above += is_true * v[i, l]
                below += (1.0 - is_true) * v[i, l]
            for l in range(k):
                is_true = 0.5 * (signs[i, l] + 1)
                d[i, l] = 0.5 * v[i, l] * (is_true * below + (1.0 - is_true) * above)
            chunk_total += below * above
        partial[c] = chunk_total
    return _ordered_sum(partial)


def pair_learner_weights_naive(v, signs):
    """Twin of ``pair_learner_weights``; returns d."""
    below = np.where(signs < 0, v, 0).sum(axis=1, keepdims=True)
    above = np.where(signs > 0, v, 0).sum(axis=1, keepdims=True)
    return 0.5 * v * np.where(signs > 0, below, above)


@njit(cache=True, nogil=True)
def pair_block_masses(v, signs, blocks, n_blocks, out):
    """Mass of AdaBoost.MR's crucial pairs per (block, false label, true label), into ``out``.

    D(i, l0, l1) = v(i, l0) v(i, l1) for l0 ∉ Y_i, l1 ∈ Y_i (Figure 5's factored weights),
    summed over each block's examples: out[j, l0, l1] = Σ_{i: b_i = j} D(i, l0, l1). For a
    partition hypothesis the pair objective of §6 is then a sum over this table,
    Z(α) = Σ_{j, l0, l1} out[j, l0, l1] exp(-½ α (c[j, l1] - c[j, l0])), so choosing α costs
    O(n_blocks k²) per Newton step after this one O(Σ_i |Y_i| (k - |Y_i|)) pass.

    Parameters
    ----------
    v : ndarray of shape (n_samples, k), float64
    signs : ndarray of shape (n_samples, k), int8
        Y[i, l] in {-1, +1}.
    blocks : ndarray of shape (n_samples,), uint8
    n_blocks : int
    out : ndarray of shape (n_blocks, k, k), float64
        Output; overwritten.
    """
    n_samples, k = v.shape
    out[:] = 0.0
    for i in range(n_samples):
        table = out[blocks[i]]
        for l1 in range(k):
            if signs[i, l1] < 0 or v[i, l1] == 0.0:
                continue
            for l0 in range(k):
                if signs[i, l0] < 0:
                    table[l0, l1] += v[i, l0] * v[i, l1]


def pair_block_masses_naive(v, signs, blocks, n_blocks):
    """Twin of ``pair_block_masses``: one matrix product per block; returns the table."""
    below = np.where(signs < 0, v, 0.0)
    above = np.where(signs > 0, v, 0.0)
    return np.stack([below[blocks == j].T @ above[blocks == j] for j in range(n_blocks)])


@njit(cache=True, parallel=True, nogil=True)
def example_ranking_losses(signs, scores, out):
    """Each example's share of crucial pairs ranked wrongly, f(x, l1) <= f(x, l0), into ``out``.

    The training loss of AdaBoost.MR (§9, Theorem 6): over the pairs l0 ∉ Y_i, l1 ∈ Y_i, a
    tie counts as wrong. O(|Y_i| (k - |Y_i|)) per example; 0 for an example with no pair.

    Parameters
    ----------
    signs : ndarray of shape (n_samples, k), int8
    scores : ndarray of shape (n_samples, k), float64
    out : ndarray of shape (n_samples,), float64
        Output.
    """
    n_samples, k = signs.shape
    for i in prange(n_samples):
        wrong = 0
        pairs = 0
        for l1 in range(k):
            if signs[i, l1] < 0:
                continue
            for l0 in range(k):
                if signs[i, l0] < 0:
                    pairs += 1
                    if scores[i, l1] <= scores[i, l0]:
                        wrong += 1
        out[i] = wrong / pairs if pairs > 0 else 0.0


def example_ranking_losses_naive(signs, scores):
    """Twin of ``example_ranking_losses`` by broadcasting over every (l0, l1); returns it."""
    true, false = signs > 0, signs < 0
    crucial = false[:, :, None] & true[:, None, :]  # [i, l0, l1]
    wrong = crucial & (scores[:, None, :] <= scores[:, :, None])
    pairs = crucial.sum(axis=(1, 2))
    return np.where(pairs > 0, wrong.sum(axis=(1, 2)) / np.maximum(pairs, 1), 0.0)
