"""The boosted model: weak hypotheses and their α, f(x, l) = Σ_t α_t h_t(x, l).

A model reads one ``Frame`` (``data/frame.py``): every hypothesis names the table positions
it tests, so an ndarray (a Frame with a numeric part only) and a table's Frame are read the
same way. Each hypothesis type adds its share of f (``PartitionHypothesis.add_scores``:
stumps in one kernel pass); saving and loading are ``formats/model_json.py``'s. A model read from
a file is untrusted: ``from_dict`` checks every field (``untrusted.py``) and
``check_columns`` every column index against the model's columns, so no kernel sees an
index it cannot use; ``decision_function`` checks that X has the columns the model reads.
"""

import numpy as np

from confboost.data.frame import as_frame
from confboost.engine.learners import HYPOTHESIS_TYPES
from confboost.utils.sparse import issparse
from confboost.utils.untrusted import (
    fail,
    prefixed,
    read_floats,
    read_int,
    read_ints,
    read_list,
    require,
)


class BoostedModel:
    """A sequence of weak hypotheses with their weights.

    Parameters
    ----------
    hypotheses : list of PartitionHypothesis
    alphas : ndarray of shape (n_rounds,)
    n_labels : int
        k, the number of columns of f.
    """

    def __init__(self, hypotheses, alphas, n_labels):
        self.hypotheses = list(hypotheses)
        self.alphas = np.asarray(alphas, dtype=np.float64)
        self.n_labels = int(n_labels)
        if len(self.hypotheses) != self.alphas.shape[0]:
            raise ValueError("one alpha per hypothesis is needed")

    def __len__(self):
        return len(self.hypotheses)

    def decision_function(self, X):
        """f(x, l) for every example.

        Parameters
        ----------
        X : Frame, ndarray of shape (n_samples, n_columns), or scipy sparse matrix
            The examples in the table's column space; a sparse matrix is densified on the
            columns the model tests only.

        Returns
        -------
        scores : ndarray of shape (n_samples, k)
        """
        self._check_input(X)
        if issparse(X):
            return self._sparse_decision_function(X)
        frame = as_frame(X)
        scores = np.zeros((frame.n_samples, self.n_labels), dtype=np.float64)
        groups = {}
        for hypothesis, alpha in zip(self.hypotheses, self.alphas, strict=True):
            hypotheses, alphas = groups.setdefault(type(hypothesis), ([], []))
            hypotheses.append(hypothesis)
            alphas.append(alpha)
        for kind, (hypotheses, alphas) in groups.items():
            kind.add_scores(hypotheses, alphas, frame, scores)
        return scores

    def _on_used_columns(self):
        """The columns the model tests, and the model re-indexed onto them."""
        used = np.unique([c for h in self.hypotheses for c in h.features()]).astype(np.intp)
        position = {int(c): i for i, c in enumerate(used)}
        return used, BoostedModel([h.with_columns(position) for h in self.hypotheses],
                                  self.alphas, self.n_labels)

    def _sparse_decision_function(self, X, rows_per_chunk=65536):
        """``decision_function`` of a scipy sparse matrix, densifying only the tested
        columns, ``rows_per_chunk`` rows at a time."""
        X = X.tocsr()
        scores = np.zeros((X.shape[0], self.n_labels), dtype=np.float64)
        if not self.hypotheses:
            return scores
        used, model = self._on_used_columns()
        for start in range(0, X.shape[0], rows_per_chunk):
            chunk = X[start:start + rows_per_chunk].tocsc()[:, used]
            dense = np.asarray(chunk.toarray(), dtype=np.float64)
            scores[start:start + dense.shape[0]] = model.decision_function(dense)
        return scores

    def staged_decision_function(self, X):
        """Yield f after each round, shape (n_samples, k) each."""
        self._check_input(X)
        if issparse(X):
            if not self.hypotheses:
                return
            used, model = self._on_used_columns()
            dense = np.asarray(X.tocsc()[:, used].toarray(), dtype=np.float64)
            yield from model.staged_decision_function(dense)
            return
        frame = as_frame(X)
        scores = np.zeros((frame.n_samples, self.n_labels), dtype=np.float64)
        for hypothesis, alpha in zip(self.hypotheses, self.alphas, strict=True):
            scores += alpha * hypothesis.block_outputs(hypothesis.blocks(frame))
            yield scores.copy()

    def to_dict(self):
        """The model as JSON-ready data."""
        return {
            "n_labels": self.n_labels,
            "alphas": self.alphas.tolist(),
            "hypotheses": [_with_cover(h) for h in self.hypotheses],
        }

    @classmethod
    def from_dict(cls, data):
        """Inverse of ``to_dict``, for data from a file (untrusted).

        Every field is checked (types, shapes, finite numbers, tree structure, label
        count); the column indices are checked against the model's columns afterwards by
        ``check_columns``. ValueError names the field, e.g. ``hypotheses[3].feature``.
        """
        n_labels = read_int(require(data, "n_labels", "model"), "n_labels", 1, MAX_LABELS)
        entries = read_list(require(data, "hypotheses", "model"), "hypotheses")
        alphas = read_floats(require(data, "alphas", "model"), "alphas", (len(entries),))
        hypotheses = []
        for position, entry in enumerate(entries):
            field = f"hypotheses[{position}]"
            type_name = require(entry, "type", field)
            if not isinstance(type_name, str) or type_name not in HYPOTHESIS_TYPES:
                fail(f"{field}.type", f"must be one of {sorted(HYPOTHESIS_TYPES)}", type_name)
            try:
                hypothesis = HYPOTHESIS_TYPES[type_name].from_dict(entry, n_labels=n_labels)
                _read_cover(hypothesis, entry)
            except ValueError as error:
                raise prefixed(f"{field}.", error) from None
            if hypothesis.values.shape[1] != n_labels:
                fail(f"{field}.values", f"must have n_labels = {n_labels} columns",
                     hypothesis.values.shape)
            hypotheses.append(hypothesis)
        model = cls(hypotheses, alphas, n_labels)
        # f sums α_t h_t over the rounds: keep every f finite, whatever the file says
        reach = sum(abs(a) * float(np.abs(h.values).max(initial=0.0))
                    for h, a in zip(hypotheses, model.alphas, strict=True))
        if not reach < MAX_SCORE:
            fail("alphas", f"with the values, |f| could reach {reach:.3g}: at most "
                           f"{MAX_SCORE:g} is allowed", reach)
        return model

    def check_columns(self, kinds):
        """ValueError unless every column a hypothesis reads exists with its kind.

        Parameters
        ----------
        kinds : list of str
            The kind of each table column (``FrameEncoder.kinds``; every column
            "continuous" for a model of arrays).
        """
        for position, hypothesis in enumerate(self.hypotheses):
            field = f"hypotheses[{position}].{_COLUMN_FIELD[type(hypothesis).type_name]}"
            for kind, index in hypothesis.columns_read():
                if not (0 <= index < len(kinds) and kinds[index] == kind):
                    fail(field, f"must be a {kind} column of the model's {len(kinds)}", index)

    def _check_input(self, X):
        """ValueError unless ``X`` has every continuous column the model reads (a Frame of
        a table checks its other columns itself)."""
        needed = max((index + 1 for h in self.hypotheses for kind, index in h.columns_read()
                      if kind == "continuous"), default=0)
        shape = X.shape if hasattr(X, "shape") else np.shape(X)
        width = shape[1] if len(shape) == 2 else 0
        if width < needed:
            raise ValueError(f"X has {width} columns, but the model reads column {needed - 1}")


#: Where ``check_columns`` finds each type's column indices in its saved fields.
_COLUMN_FIELD = {"stump": "feature", "product": "feature", "categorical": "column",
                 "term": "column", "tree": "column", "hamming_tree": "column",
                 "label_trees": "trees"}
#: Most label columns of a saved model.
MAX_LABELS = 1_000_000
#: Bound on Σ_t |α_t| max |h_t| of a loaded model, so that f stays finite with room to spare
#: for the decoders (exp of a score is taken in log-sum form).
MAX_SCORE = 1e300


def _with_cover(hypothesis):
    """``to_dict`` plus the training cover the explanations need (``explain/``)."""
    data = hypothesis.to_dict()
    if hypothesis.cover is not None:
        data["cover"] = np.asarray(hypothesis.cover).tolist()
    if getattr(hypothesis, "pattern_cover", None) is not None:
        patterns, masses = hypothesis.pattern_cover
        data["pattern_cover"] = [np.asarray(patterns).tolist(), np.asarray(masses).tolist()]
    return data


def _read_cover(hypothesis, entry):
    """Set a saved hypothesis' cover (optional: older files have none); ValueError naming
    the field when malformed."""
    if "cover" in entry:
        cover = read_floats(entry["cover"], "cover", (hypothesis.values.shape[0],))
        if (cover < 0).any():
            fail("cover", "must be non-negative masses", cover.tolist())
        hypothesis.cover = cover
    if "pattern_cover" in entry:
        if not hasattr(hypothesis, "pattern_cover"):
            fail("pattern_cover", "only a product has one", hypothesis.type_name)
        patterns, weights = read_list(entry["pattern_cover"], "pattern_cover", 2)
        n_terms = hypothesis.feature.shape[0]
        patterns = read_ints(patterns, "pattern_cover[0]", 0, 1 << n_terms)
        weights = read_floats(weights, "pattern_cover[1]", (patterns.shape[0],))
        if (weights < 0).any():
            fail("pattern_cover[1]", "must be non-negative masses", weights.tolist())
        hypothesis.pattern_cover = (patterns.astype(np.int64), weights)
