"""Path-dependent TreeSHAP of one tree, per example, over its root-to-leaf paths.

The numba form of ``tree_shap.tree_shap_naive`` (the NumPy twin it is tested against): for
every example, leaf and column i of the leaf's path, the leaf's share of column i's Shapley
value is

    value[leaf] (o_i - z_i) Σ_s s! (m-1-s)! / m! · e_s

with e_s the coefficient of t^s in Π_{d ≠ i} (z_d + o_d t) over the path's other columns, z_d
the product of the cover ratios of the path's nodes on column d and o_d ∈ {0, 1} whether the
example follows the path at all of them (Lundberg et al. 2020, Algorithm 2, per path). The
tree's paths come flattened (``tree_shap.path_table``).

Since o_d is 0 or 1, Π_{d ≠ i} (z_d + o_d t) = Z0 P(t) / (z_i + t) for a followed column i,
and Z0 P(t) / z_i for another, with P(t) = Π_{d followed} (z_d + t) and Z0 = Π_{d not
followed} z_d: one product per example and leaf, and one synthetic division per followed
column (Lundberg's UNWIND), O(m²) per leaf instead of O(m³); for a column not followed
the factor (0 - z_i) cancels the division.
"""

import numpy as np

from confboost.utils.lazy_numba import njit, prange


@njit(cache=True, parallel=True, nogil=True)
def tree_shap_paths(goes_left, path_start, path_column, path_zero, step_start, step_node,
                    step_left, leaf_values, shapley_weights, phi):
    """Add one tree's Shapley values to ``phi``.

    Parameters
    ----------
    goes_left : ndarray of shape (n_nodes, n_samples), bool
    path_start : ndarray of shape (n_leaves + 1,), intp
        Leaf j's path columns are entries ``path_start[j]:path_start[j + 1]``.
    path_column : ndarray of shape (n_entries,), intp
        The table column of each entry (unique within a path).
    path_zero : ndarray of shape (n_entries,), float64
        z_d of each entry.
    step_start : ndarray of shape (n_entries + 1,), intp
        Entry p's nodes are ``step_start[p]:step_start[p + 1]``.
    step_node : ndarray of shape (n_steps,), intp
    step_left : ndarray of shape (n_steps,), bool
        Whether the path goes left at that node.
    leaf_values : ndarray of shape (n_leaves, k)
    shapley_weights : ndarray of shape (max_m + 1, max_m)
        ``[m, s]`` = s! (m-1-s)! / m!.
    phi : ndarray of shape (n_samples, k, n_columns), float64
        Accumulated in place.
    """
    n_samples = goes_left.shape[1]
    n_leaves, k = leaf_values.shape
    max_m = shapley_weights.shape[1]
    for i in prange(n_samples):
        one = np.empty(max_m, dtype=np.bool_)
        product = np.empty(max_m + 1, dtype=np.float64)
        quotient = np.empty(max_m + 1, dtype=np.float64)
        for leaf in range(n_leaves):
            start, stop = path_start[leaf], path_start[leaf + 1]
            m = stop - start
            if m == 0:
                continue
            # P(t) = Π_{d followed} (z_d + t), and Z0 = Π_{d not followed} z_d
            product[0] = 1.0
            degree = 0
            rest = 1.0
            for p in range(start, stop):
                follows = True
                for q in range(step_start[p], step_start[p + 1]):
                    if goes_left[step_node[q], i] != step_left[q]:
                        follows = False
                        break
                one[p - start] = follows
                zero = path_zero[start + p - start]
                if follows:
                    product[degree + 1] = 0.0
                    for s in range(degree + 1, 0, -1):
                        product[s] = product[s] * zero + product[s - 1]
                    product[0] *= zero
                    degree += 1
                else:
                    rest *= zero
            for a in range(m):
                zero = path_zero[start + a]
                total = 0.0
                if one[a]:
                    # Π over the others = Z0 · P(t) / (z_a + t): synthetic division
                    quotient[degree - 1] = product[degree]
                    for s in range(degree - 1, 0, -1):
                        quotient[s - 1] = product[s] - zero * quotient[s]
                    for s in range(degree):
                        total += quotient[s] * shapley_weights[m, s]
                    weight = (1.0 - zero) * rest * total
                else:
                    # Π over the others = (Z0 / z_a) · P(t); (0 - z_a) cancels the division
                    for s in range(degree + 1):
                        total += product[s] * shapley_weights[m, s]
                    weight = -rest * total
                if weight != 0.0:
                    column = path_column[start + a]
                    for label in range(k):
                        phi[i, label, column] += weight * leaf_values[leaf, label]
