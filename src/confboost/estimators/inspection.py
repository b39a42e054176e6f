"""What a fitted estimator shows of itself: its rounds, its rules, exact contributions.

Owns ``InterpretMixin``, the part of ``BoostClassifier``'s surface that reads a fitted model
rather than fitting one: ``rounds_``, ``estimators_``, ``estimator_weights_`` and ``rules``
(``explain/rules.py``), and ``explain`` (``explain/contributions.py``). It needs of the
estimator ``model_``, ``history_``, ``_prepare``, ``_fitted`` and ``n_features_in_``.
"""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from confboost.explain.contributions import contributions
from confboost.explain.rules import model_rounds, rules_text
from confboost.utils.threads import numba_threads


class InterpretMixin:
    """Rounds, rules and exact contributions of a fitted boosted classifier."""

    @property
    def rounds_(self):
        """The fitted rounds as ``rules.Round`` objects: ``alpha``, ``hypothesis``,
        ``column``/``columns``, ``column_names``, ``z``; ``str()`` of one is its rule."""
        check_is_fitted(self)
        return model_rounds(self)

    @property
    def estimators_(self):
        """The weak hypotheses h_t, one per round (``str()`` of each reads as a rule)."""
        check_is_fitted(self)
        return list(self.model_.hypotheses)

    @property
    def estimator_weights_(self):
        """α_t of each round, shape (n_rounds,)."""
        check_is_fitted(self)
        return self.model_.alphas.copy()

    def rules(self, top: int | None = None) -> str:
        """The model as readable rules, one per round, with column and class names.

        Parameters
        ----------
        top : int, optional
            Only the ``top`` rounds of least Z_t (largest share of the bound's decrease),
            largest first; all rounds in order by default.

        Returns
        -------
        str
        """
        check_is_fitted(self)
        return rules_text(self, top=top)

    def explain(self, X) -> np.ndarray:
        """Exact contribution of every input column to the decision of every example.

        Each round's α_t h_t is split over the columns it reads by exact Shapley values
        averaging over the training data (``explain.contributions``): a stump's whole output
        goes to its column, a tree's by path-dependent TreeSHAP (Lundberg et al. 2020), a
        product's by exact Shapley over its columns. The last entry of the last axis is the
        bias (the training mean of f), and the last axis sums to ``decision_function(X)``
        (to rounding). For ``scheme="mo"`` the contributions are to f on the k' code
        columns (``model_.decision_function``), which the decoder then reads.

        Parameters
        ----------
        X : array-like, DataFrame or sparse of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_features + 1) for binary data, otherwise
        (n_samples, k, n_features + 1)
        """
        fitted = self._fitted()  # one model throughout, whatever a refit does meanwhile
        X = fitted._prepare(X)
        if hasattr(X, "toarray"):
            X = np.asarray(X.toarray(), dtype=np.float64)
        model = fitted.model_
        with numba_threads(fitted.n_jobs, X.shape[0] * len(model) * model.n_labels):
            out = contributions(model, X, fitted.n_features_in_)
        return out[:, 0] if out.shape[1] == 1 and not fitted._multilabel else out
