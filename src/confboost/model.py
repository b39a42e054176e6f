"""The boosted model: weak hypotheses and their α, f(x, l) = Σ_t α_t h_t(x, l).

A model reads one ``Frame`` (``data/frame.py``): every hypothesis names the table positions
it tests, so an ndarray (a Frame with a numeric part only) and a table's Frame are read the
same way. Each hypothesis type adds its share of f (``PartitionHypothesis.add_scores``:
stumps in one kernel pass); saving and loading are ``persistence.py``'s.
"""

import numpy as np
from scipy.sparse import issparse

from confboost.data.frame import as_frame
from confboost.learners import HYPOTHESIS_TYPES


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
            scores += alpha * hypothesis.values[hypothesis.blocks(frame)]
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
        """Inverse of ``to_dict``; ValueError naming what is malformed."""
        try:
            hypotheses = []
            for position, entry in enumerate(data["hypotheses"]):
                type_name = entry.get("type")
                if type_name not in HYPOTHESIS_TYPES:
                    raise ValueError(f"hypothesis {position} has unknown type {type_name!r}; "
                                     f"known: {sorted(HYPOTHESIS_TYPES)}")
                hypothesis = HYPOTHESIS_TYPES[type_name].from_dict(entry)
                _read_cover(hypothesis, entry, position)
                hypotheses.append(hypothesis)
            return cls(hypotheses, data["alphas"], data["n_labels"])
        except (KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"malformed model data: {error!r}") from None


def _with_cover(hypothesis):
    """``to_dict`` plus the training cover the explanations need (``explain.py``)."""
    data = hypothesis.to_dict()
    if hypothesis.cover is not None:
        data["cover"] = np.asarray(hypothesis.cover).tolist()
    if getattr(hypothesis, "pattern_cover", None) is not None:
        patterns, masses = hypothesis.pattern_cover
        data["pattern_cover"] = [np.asarray(patterns).tolist(), np.asarray(masses).tolist()]
    return data


def _read_cover(hypothesis, entry, position):
    """Set a saved hypothesis' cover (optional: older files have none); ValueError when
    malformed."""
    def masses(values, shape, what):
        array = np.asarray(values, dtype=np.float64)
        if array.shape != shape or not np.all(np.isfinite(array)) or np.any(array < 0):
            raise ValueError(f"hypothesis {position}: {what} must be {shape[0]} finite "
                             f"non-negative numbers")
        return array

    if "cover" in entry:
        hypothesis.cover = masses(entry["cover"], (hypothesis.values.shape[0],), "cover")
    if "pattern_cover" in entry:
        if not hasattr(hypothesis, "pattern_cover"):
            raise ValueError(f"hypothesis {position}: only a product has a pattern_cover")
        patterns, weights = entry["pattern_cover"]
        patterns = np.asarray(patterns)
        if (patterns.ndim != 1 or (patterns.size and patterns.dtype.kind not in "iu")
                or np.any(patterns < 0)
                or np.any(patterns >= 1 << hypothesis.feature.shape[0])):
            raise ValueError(f"hypothesis {position}: pattern_cover patterns must be sign "
                             f"patterns of its {hypothesis.feature.shape[0]} terms")
        hypothesis.pattern_cover = (patterns.astype(np.int64),
                                    masses(weights, patterns.shape, "pattern_cover masses"))
