"""What every weak learner returns: a partition hypothesis and its fit on the training set.

A domain-partitioning hypothesis (paper §4.1) maps an example to a block j and outputs
``values[j, l]`` for label l. The learner also hands back the block of every training
example and the block statistics, so the round's α and weight update need no second pass
over the features.
"""

from dataclasses import dataclass

import numpy as np

from confboost.kernels.histogram import split_by_sign
from confboost.kernels.weight_update import block_masses
from confboost.utils.dtypes import WEIGHT_DTYPE
from confboost.utils.untrusted import read_floats, require

#: Bound on a column index read from a model file (the real bound, the model's column
#: count, is checked by ``BoostedModel.check_columns``).
MAX_INDEX = 2**31 - 1


class PartitionHypothesis:
    """Interface of a partition hypothesis (subclasses set ``type_name`` and ``values``).

    Attributes
    ----------
    values : ndarray of shape (n_blocks, k)
        h(x, l) on each block, before α.
    cover : ndarray of shape (n_blocks,) or None
        Training mass (sample weights) of each block, set after the round
        (``contributions.record_cover``); the explanations average over it. None in a model saved
        before covers were recorded.
    test_layout : {"single", "tree", "product"}
        How the tests make the blocks (the explanations pick their Shapley computation by
        it): one test, or tests of one column; a tree's nodes (``left``, ``right``,
        ``goes_left``); a product of signed terms (``goes_left`` per term,
        ``pattern_cover``).
    vote : ndarray of shape (k,) or None
        Set by a hypothesis whose values factor as ``c_j v_l``, one label vote v in
        {-1, +1}^k and one scalar confidence c_j per block, changed through
        ``set_leaf_values`` (a Hamming tree); None when every block has its own k values.
    """

    type_name = None
    values: np.ndarray
    cover = None
    test_layout = "single"
    vote = None

    def features(self):
        """Table positions of the columns the hypothesis tests, increasing."""
        raise NotImplementedError

    def blocks(self, X):
        """Block of each example, shape (n_samples,) (a partition of X × Y with a block per
        example and label: (n_samples, k)).

        Parameters
        ----------
        X : Frame, or ndarray of shape (n_samples, n_columns)
            The examples in the table's column space (``data/frame.py``).
        """
        raise NotImplementedError

    def with_columns(self, position):
        """A copy testing column ``position[c]`` wherever this one tests column ``c``.

        Parameters
        ----------
        position : mapping of int to int
            New table position of each column in ``features()``.
        """
        raise NotImplementedError

    def block_outputs(self, blocks):
        """h(x, l) of examples in blocks ``blocks`` (``blocks``'s output), shape
        (n_samples, k): each example's row of ``values`` (a hypothesis with a block per
        example and label reads its own column of each)."""
        return self.values[blocks]

    @classmethod
    def add_scores(cls, hypotheses, alphas, frame, scores):
        """Add Σ α h(x, ·) of hypotheses of this type to ``scores`` (n_samples, k).

        One call per type and model, so a type may predict all its hypotheses at once
        (stumps: one kernel pass); the default adds one hypothesis at a time.
        """
        for hypothesis, alpha in zip(hypotheses, alphas, strict=True):
            scores += alpha * hypothesis.block_outputs(hypothesis.blocks(frame))

    def columns_read(self):
        """(kind, table position) of every column the hypothesis reads at predict time,
        kind "continuous", "categorical" or "text" (a stump, a product: continuous);
        ``BoostedModel.check_columns`` checks them against the model's columns."""
        return [("continuous", column) for column in self.features()]

    def test_columns(self):
        """Table position of the column of each test, in the hypothesis' own order (a
        tree's nodes, a product's terms; one entry for a stump), shape (n_tests,), intp."""
        raise NotImplementedError

    def tested_points(self, column):
        """The threshold and value tests on table column ``column``.

        Returns
        -------
        thresholds : list of float
            Finite thresholds t of the tests ``x <= t`` on the column.
        values : list of str
            Values v of the tests ``x == v`` on the column.
        """
        raise NotImplementedError

    def to_dict(self):
        """The hypothesis as JSON-ready data (``"type"`` names the class)."""
        raise NotImplementedError

    def describe(self, names=None, classes=None, scale=1.0):
        """The hypothesis as a rule, e.g. ``petal length <= 2.45 -> setosa +1.92, ...``.

        Parameters
        ----------
        names : sequence of str, optional
            Name of each table column (default ``x0``, ``x1``, ...).
        classes : sequence of str, optional
            Name of each of the k output columns (default ``label 0``, ...; none for k = 1).
        scale : float, default=1.0
            Multiplies the outputs (α, for a round's α h).
        """
        raise NotImplementedError

    def __str__(self):
        return self.describe()

    @classmethod
    def from_dict(cls, data, n_labels=None):
        """Inverse of ``to_dict``; ValueError on malformed data.

        ``n_labels`` (the model's k, when known) is checked before any table is built, so
        that a file's cost stays linear in its size.
        """
        raise NotImplementedError


def column_label(names, index):
    """The name of feature ``index`` (``x3`` without names)."""
    return f"x{index}" if names is None else str(names[index])


def outputs_text(row, classes):
    """The k outputs of a block as ``setosa +1.92, versicolor -0.85`` (one bare number
    for k = 1 without class names)."""
    if not np.any(row):
        return "0"
    if classes is None:
        if len(row) == 1:
            return f"{row[0]:+.3g}"
        classes = [f"label {l}" for l in range(len(row))]
    return ", ".join(f"{name} {value:+.3g}" for name, value in zip(classes, row, strict=True))


def blocks_text(tests, values, classes, scale):
    """``test -> outputs; test -> outputs`` for the blocks of a partition."""
    return "; ".join(f"{test} -> {outputs_text(scale * row, classes)}"
                     for test, row in zip(tests, values, strict=True))


def tree_text(left, right, condition, values, classes, scale):
    """A tree as nested ``if condition: / else:`` lines, outputs at the leaves.

    Parameters
    ----------
    left, right : ndarray of shape (n_nodes,)
        Children (``c < 0``: leaf ``-c - 1``).
    condition : callable
        ``condition(node)``: the test that sends an example left, as text.
    values : ndarray of shape (n_leaves, k)
    classes : sequence of str or None
    scale : float
    """
    if len(left) == 0:
        return outputs_text(scale * values[0], classes)
    lines = []

    def walk(node, depth):
        pad = "  " * depth
        if node < 0:
            lines.append(f"{pad}-> {outputs_text(scale * values[-node - 1], classes)}")
            return
        lines.append(f"{pad}if {condition(node)}:")
        walk(left[node], depth + 1)
        lines.append(f"{pad}else:")
        walk(right[node], depth + 1)

    walk(0, 0)
    return "\n".join(lines)


def saved_values(data, n_blocks, name="values", n_labels=None):
    """The ``(n_blocks, k)`` table of finite values of a saved hypothesis.

    Parameters
    ----------
    data : dict
        ``to_dict``'s output, from a file: untrusted.
    n_blocks : int
        The number of blocks the hypothesis kind has.
    name : str, default="values"
        The field.
    n_labels : int or None
        The number of columns k wanted (None: any).

    Raises
    ------
    ValueError
        Naming the field, when it is missing, not a table of finite numbers, or of
        another shape.
    """
    return read_floats(require(data, name, "hypothesis"), name, (n_blocks, n_labels))


@dataclass
class PartitionFit:
    """A weak learner's result for one round.

    Attributes
    ----------
    hypothesis : PartitionHypothesis
    train_blocks : ndarray of shape (n_samples,), uint8, or (n_samples, k), uint16
        Block of each training example (of each example and label, for a hypothesis on
        X × Y with a partition per label).
    weight_pos, weight_neg : ndarray of shape (n_blocks, k)
        W+ and W- of each block under the weights the learner was given.
    criterion : float
        The learner's Z for this hypothesis (Eq. 10/16, or §3.1/§3.3's form).
    train_patterns : ndarray of shape (n_samples,) or None
        Products only: the sign pattern of each training example (bit j set where term j
        is -1), whose training masses the explanations of a product average over.
    """

    hypothesis: PartitionHypothesis
    train_blocks: np.ndarray
    weight_pos: np.ndarray
    weight_neg: np.ndarray
    criterion: float
    train_patterns: np.ndarray | None = None


def leaf_statistics(train_blocks, n_leaves, pos, neg):
    """Σ of ``pos`` and ``neg`` over each leaf's examples, shape (n_leaves, k) each
    (``kernels/weight_update.block_masses``)."""
    return block_masses(train_blocks, n_leaves, np.asarray(pos, dtype=WEIGHT_DTYPE),
                        np.asarray(neg, dtype=WEIGHT_DTYPE))


def label_masses(weights, labels, work=None):
    """W[i, l] split by label sign: (W * [Y = +1], W * [Y = -1]), shape (n, k) each, in one
    pass (``kernels/histogram.split_by_sign``); into the arrays ``work`` keeps across
    rounds (``learners/grower.WorkArrays``, a learner's) when it is given, else new ones."""
    weights = np.ascontiguousarray(weights, dtype=WEIGHT_DTYPE)
    if work is None:
        pos = np.empty(weights.shape, dtype=WEIGHT_DTYPE)
        neg = np.empty(weights.shape, dtype=WEIGHT_DTYPE)
    else:
        pos, neg = work.get("pos", weights.shape), work.get("neg", weights.shape)
    split_by_sign(weights, np.ascontiguousarray(labels.sign_index), pos, neg)
    return pos, neg
