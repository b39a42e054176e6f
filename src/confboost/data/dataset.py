"""THE training data as the weak learners see it: one ``Dataset`` for every kind of column.

Owns ``Dataset`` and its parts, and ``LabelSigns``. A Dataset holds the training table in
one column index space (the table's positions, 0 .. n_columns - 1):

- a numeric part: the binned continuous columns, feature-major bin codes (what the
  histogram kernels read), with the table position of each (``numeric_columns``);
- a categorical part: each categorical column as value codes (``CategoricalColumn``);
- a text part: each text column as term postings, CSC (``TextColumn``);
- an exact part (``max_bins=None`` only): each continuous column with more distinct values
  than a bin code holds, as the rank of each example's value among the distinct values
  (``ExactColumn``), so that every threshold between two neighbouring values is tried, as
  icsiboost tries them.

A NumPy or sparse matrix is a Dataset with a numeric part only, whose positions are its
columns (``Dataset.from_array``); a table becomes one through ``data/columns.py``. Every
hypothesis a learner returns names the table positions it tests, so a model reads a
prediction ``Frame`` (``data/frame.py``) in the same index space.

Label signs are kept apart from the features because a scheme may relabel them:
AdaBoost.MO boosts on code-relabelled signs (paper §8) over the same features.
"""

from dataclasses import InitVar, dataclass, field

import numpy as np

from confboost.data.bin_mapper import BinMapper, _midpoints
from confboost.utils.dtypes import MAX_BINS, SIGN_DTYPE, X_BINNED_DTYPE


@dataclass
class CategoricalColumn:
    """One categorical column of the training data.

    Attributes
    ----------
    column : int
        Position of the column in the input table.
    values : list of str
        The distinct training values; code ``c`` is ``values[c]``.
    codes : ndarray of shape (n_samples,), int32
        Value code of each example, -1 where missing.
    """

    column: int
    values: list
    codes: np.ndarray


@dataclass
class TextColumn:
    """One text column of the training data.

    Built from the CSC postings (documents × terms) of the training documents, it keeps
    each distinct posting list once: terms with the same documents have the same test on
    the training set, hence the same Z, so the term search scores each list once
    (Reuters-21578, unigrams and bigrams: 101k lists for 338k terms, two thirds of them found
    in one document), reading the lists in place; a term's postings are a view of its list.

    Parameters
    ----------
    column : int
        Position of the column in the input table.
    terms : list of str
        The vocabulary; term ``j`` is ``terms[j]``.
    indptr, indices : ndarray
        CSC postings of the training documents, the rows of a column increasing. ``indices``
        is taken over: the distinct lists are moved to its start, and it is cut to them.
    per_term : bool, default=False
        Whether the term learner scores every term on its own (``scored_list``): a shard's
        column on a cluster, whose sums are added to other shards' whose distinct lists
        differ; False: it scores each distinct list once.

    Attributes
    ----------
    distinct_indptr, distinct_indices : ndarray
        The distinct posting lists, in the order of their first term: list ``u`` is
        ``distinct_indices[distinct_indptr[u]:distinct_indptr[u + 1]]``.
    distinct_first_term : ndarray of shape (n_distinct,), intp
        The first term of each distinct list, increasing.
    term_list : ndarray of shape (n_terms,), int32
        The distinct list of each term.
    scored_list : ndarray of shape (n_scored,), int32
        What the term learner sums and scores (``engine/learners/term.py``): the distinct
        list of each scored set of terms, the distinct lists themselves (``per_term`` False)
        or each term's.
    scored_first_term : ndarray of shape (n_scored,), intp
        The first term of each scored set, increasing.
    """

    column: int
    terms: list
    indptr: InitVar[np.ndarray]
    indices: InitVar[np.ndarray]
    distinct_indptr: np.ndarray = field(init=False)
    distinct_indices: np.ndarray = field(init=False)
    distinct_first_term: np.ndarray = field(init=False)
    term_list: np.ndarray = field(init=False)
    per_term: InitVar[bool] = False
    scored_list: np.ndarray = field(init=False)
    scored_first_term: np.ndarray = field(init=False)

    def __post_init__(self, indptr, indices, per_term):
        bounds = indptr.tolist()
        number_of = {}  # the hash of a list's bytes -> its number (the list itself not kept)
        collided = {}  # a hash that two distinct lists share -> their numbers after the first
        first_term = []
        term_list = np.empty(len(bounds) - 1, dtype=np.int32)
        for term in range(term_list.shape[0]):
            rows = indices[bounds[term]:bounds[term + 1]]
            key = hash(rows.tobytes())
            number = number_of.get(key)
            if number is not None and not self._same(rows, indices, bounds, first_term[number]):
                number = next((other for other in collided.get(key, ()) if self._same(
                    rows, indices, bounds, first_term[other])), None)
                if number is None:
                    collided.setdefault(key, []).append(len(first_term))
            if number is None:
                number = len(first_term)
                number_of.setdefault(key, number)
                first_term.append(term)
            term_list[term] = number
        del number_of, collided
        self.term_list = term_list
        self.distinct_first_term = np.array(first_term, dtype=np.intp)
        starts = indptr[self.distinct_first_term]
        lengths = indptr[self.distinct_first_term + 1] - starts
        self.distinct_indptr = np.zeros(lengths.shape[0] + 1, dtype=indptr.dtype)
        np.cumsum(lengths, out=self.distinct_indptr[1:])
        if lengths.shape[0] < term_list.shape[0]:  # each list moves to its place, never later
            to = self.distinct_indptr.tolist()
            for number, term in enumerate(first_term):
                if to[number] < bounds[term]:
                    indices[to[number]:to[number + 1]] = indices[bounds[term]:bounds[term + 1]]
            if indices.flags.owndata and indices.base is None:
                indices.resize(to[-1], refcheck=False)  # no copy: the list of lists is ours
            else:
                indices = indices[:to[-1]].copy()
        self.distinct_indices = indices
        if per_term:
            self.scored_list = term_list
            self.scored_first_term = np.arange(term_list.shape[0], dtype=np.intp)
        else:
            self.scored_list = np.arange(lengths.shape[0], dtype=np.int32)
            self.scored_first_term = self.distinct_first_term

    @staticmethod
    def _same(rows, indices, bounds, term):
        """Whether ``rows`` are the posting list of ``term``."""
        return np.array_equal(rows, indices[bounds[term]:bounds[term + 1]])

    @property
    def n_terms(self):
        """Number of terms."""
        return self.term_list.shape[0]

    def postings(self, term):
        """The training documents holding ``term``, increasing (a view)."""
        number = self.term_list[term]
        return self.distinct_indices[self.distinct_indptr[number]:
                                     self.distinct_indptr[number + 1]]


@dataclass
class ExactColumn:
    """One continuous column whose thresholds are all the midpoints of its values.

    Attributes
    ----------
    column : int
        Position of the column in the input table.
    values : ndarray of shape (n_values,), float64
        The distinct non-missing training values, increasing.
    ranks : ndarray of shape (n_samples,), int32
        Index in ``values`` of each example's value, -1 where missing.
    """

    column: int
    values: np.ndarray
    ranks: np.ndarray

    @classmethod
    def from_values(cls, column, raw):
        """The ``ExactColumn`` of one column's raw values (NaN = missing)."""
        raw = np.asarray(raw, dtype=np.float64)
        present = ~np.isnan(raw)
        values, inverse = np.unique(raw[present], return_inverse=True)
        ranks = np.full(raw.shape[0], -1, dtype=np.int32)
        ranks[present] = inverse
        return cls(column, values, ranks)

    def threshold(self, rank):
        """The raw threshold between value ``rank`` and the next one (their midpoint, as the
        bins' boundaries are: ``bin_mapper._midpoints``); ``inf`` after the last value."""
        if rank >= self.values.shape[0] - 1:
            return np.inf
        return float(_midpoints(self.values[rank], self.values[rank + 1]))


@dataclass
class Dataset:
    """The training examples' features, in one column index space.

    Attributes
    ----------
    codes : ndarray of shape (n_numeric, n_samples), uint8
        Feature-major bin codes of the continuous columns (``BinMapper.transform``);
        ``n_numeric`` may be 0.
    n_bins : ndarray of shape (n_numeric,), intp
        Value bins per continuous column.
    bin_mapper : BinMapper or None
        The fitted mapper, which turns a bin threshold back into a raw threshold (None
        when there is no continuous column).
    numeric_columns : ndarray of shape (n_numeric,), intp
        Table position of each row of ``codes``.
    categorical : list of CategoricalColumn
    text : list of TextColumn
    n_samples : int
    n_columns : int
        Width of the table (ignored columns included).
    exact : list of ExactColumn
        The continuous columns kept unbinned (``from_array`` with ``max_bins=None``); they
        are not rows of ``codes``.
    """

    codes: np.ndarray
    n_bins: np.ndarray
    bin_mapper: BinMapper | None
    numeric_columns: np.ndarray
    categorical: list = field(default_factory=list)
    text: list = field(default_factory=list)
    n_samples: int = 0
    n_columns: int = 0
    exact: list = field(default_factory=list)

    @classmethod
    def from_array(cls, X, max_bins, random_state=None, sample_weight=None):
        """Bin a raw ``(n_samples, n_features)`` float matrix (NaN = missing), dense or
        sparse: a Dataset with a numeric part only.

        Rows of zero ``sample_weight`` do not shape the bins (``BinMapper.fit``).
        ``max_bins=None`` bins exactly (one bin per value) every column with at most
        ``MAX_BINS`` distinct values and keeps the others as ``ExactColumn``: every
        threshold between two values is then a candidate, for every column.
        """
        n_columns = X.shape[1]
        exact = []
        if max_bins is None:
            max_bins = MAX_BINS
            exact = [ExactColumn.from_values(j, _dense_column(X, j)) for j in range(n_columns)]
            exact = [column for column in exact if column.values.shape[0] > MAX_BINS]
            wide = [column.column for column in exact]
            binned = np.setdiff1d(np.arange(n_columns), wide)
            if wide:
                X = X[:, binned]
        else:
            binned = np.arange(n_columns)
        mapper = BinMapper(max_bins=max_bins, random_state=random_state)
        codes = np.ascontiguousarray(mapper.fit_transform(X, sample_weight),
                                     dtype=X_BINNED_DTYPE)
        return cls(codes=codes, n_bins=mapper.n_bins_, bin_mapper=mapper,
                   numeric_columns=binned.astype(np.intp), n_samples=X.shape[0],
                   n_columns=n_columns, exact=exact)

    @property
    def n_features(self):
        """Continuous columns (rows of ``codes``)."""
        return self.codes.shape[0]

    @property
    def has_numeric(self):
        return self.codes.shape[0] > 0

    def raw_threshold(self, feature, threshold_bin):
        """The raw value of a bin threshold of numeric feature ``feature`` (a row of
        ``codes``): ``inf`` when every value bin is at or below it."""
        if threshold_bin >= self.n_bins[feature] - 1:
            return np.inf
        return self.bin_mapper.threshold(feature, threshold_bin)


def _dense_column(X, j):
    """Column ``j`` of a dense or sparse matrix, as a 1-D float64 array."""
    column = X[:, j]
    if hasattr(column, "toarray"):
        column = column.toarray()
    return np.asarray(column, dtype=np.float64).ravel()


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
