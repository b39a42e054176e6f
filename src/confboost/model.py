"""The boosted model: weak hypotheses and their α, f(x, l) = Σ_t α_t h_t(x, l), save/load.

A model file is versioned JSON holding data only: hypothesis types are looked up in a fixed
registry (``learners.HYPOTHESIS_TYPES``), never imported or evaluated from the file, so
loading a model can never run code.
"""

import json
from pathlib import Path

import numpy as np
from scipy.sparse import issparse

from confboost.kernels.predict import predict_stumps
from confboost.learners import HYPOTHESIS_TYPES, ProductHypothesis, StumpHypothesis

FORMAT_NAME = "confboost-model"
FORMAT_VERSION = 1


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

    def _stump_arrays(self, rounds):
        features = np.array([h.feature for h in rounds[0]], dtype=np.intp)
        thresholds = np.array([h.threshold for h in rounds[0]], dtype=np.float64)
        values = np.array([h.values * a for h, a in zip(*rounds, strict=False)], dtype=np.float64)
        return features, thresholds, values.reshape(len(features), 3, self.n_labels)

    def decision_function(self, X):
        """f(x, l) for every example.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features), float64, or MixedFrame
            A ``MixedFrame`` (``data/frame.py``) for models of mixed data: stumps read its
            continuous part, the other hypotheses the frame itself.

        Returns
        -------
        scores : ndarray of shape (n_samples, k)
        """
        if issparse(X):
            return self._sparse_decision_function(X)
        raw = X
        X = np.asarray(_numeric_part(X))
        X = np.ascontiguousarray(X, dtype=X.dtype if X.dtype == np.float32 else np.float64)
        scores = np.zeros((X.shape[0], self.n_labels), dtype=np.float64)
        stumps = [(h, a) for h, a in zip(self.hypotheses, self.alphas, strict=False)
                  if isinstance(h, StumpHypothesis)]
        if stumps:
            hyps, alphas = zip(*stumps, strict=False)
            features, thresholds, values = self._stump_arrays((hyps, alphas))
            predict_stumps(X, features, thresholds, values, scores)
        for hypothesis, alpha in zip(self.hypotheses, self.alphas, strict=False):
            if not isinstance(hypothesis, StumpHypothesis):
                scores += alpha * hypothesis.values[hypothesis.blocks(raw)]
        return scores

    def _used_columns(self, X):
        """Dense copy of the columns of sparse ``X`` the model tests, and a model on them.

        Stump models are re-indexed onto the used columns only; models with other
        hypotheses (trees) read the whole dense copy of ``X``.
        """
        if not all(isinstance(h, StumpHypothesis) for h in self.hypotheses):
            return np.asarray(X.toarray(), dtype=np.float64), self
        used = np.unique([f for h in self.hypotheses for f in h.features()]).astype(np.intp)
        dense = np.asarray(X.tocsc()[:, used].toarray(), dtype=np.float64)
        remapped = []
        for h in self.hypotheses:
            data = h.to_dict()
            data["feature"] = int(np.searchsorted(used, h.feature))
            remapped.append(type(h).from_dict(data))
        return dense, BoostedModel(remapped, self.alphas, self.n_labels)

    def _sparse_decision_function(self, X, rows_per_chunk=65536):
        """``decision_function`` of a scipy sparse matrix, densifying only the tested
        columns, ``rows_per_chunk`` rows at a time."""
        X = X.tocsr()
        scores = np.zeros((X.shape[0], self.n_labels), dtype=np.float64)
        if not self.hypotheses:
            return scores
        for start in range(0, X.shape[0], rows_per_chunk):
            dense, model = self._used_columns(X[start:start + rows_per_chunk])
            scores[start:start + dense.shape[0]] = model.decision_function(dense)
        return scores

    def staged_decision_function(self, X):
        """Yield f after each round, shape (n_samples, k) each."""
        if issparse(X):
            if not self.hypotheses:
                return
            dense, model = self._used_columns(X)
            yield from model.staged_decision_function(dense)
            return
        raw = X
        X = np.asarray(_numeric_part(X), dtype=np.float64)
        scores = np.zeros((X.shape[0], self.n_labels), dtype=np.float64)
        for hypothesis, alpha in zip(self.hypotheses, self.alphas, strict=False):
            blocks = hypothesis.blocks(X if isinstance(hypothesis, StumpHypothesis) else raw)
            scores += alpha * hypothesis.values[blocks]
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
        if not isinstance(hypothesis, ProductHypothesis):
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


def _numeric_part(X):
    """The continuous matrix of a ``MixedFrame``, or ``X`` itself."""
    return getattr(X, "numeric", X)


def save_document(path, document):
    """Write a model document (a dict) as versioned JSON."""
    payload = {"format": FORMAT_NAME, "version": FORMAT_VERSION, **document}
    Path(path).write_text(json.dumps(payload, allow_nan=False))


def load_document(path):
    """Read a model document written by ``save_document``; ValueError if it is not one."""
    try:
        payload = json.loads(Path(path).read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not a confboost model file (invalid JSON: {error})") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT_NAME:
        raise ValueError(f"{path}: not a confboost model file (no '{FORMAT_NAME}' header)")
    if payload.get("version") != FORMAT_VERSION:
        raise ValueError(f"{path}: model format version {payload.get('version')!r} is not "
                         f"supported (this confboost reads version {FORMAT_VERSION})")
    return payload
