"""The estimator without scikit-learn: ``Booster``, its parameters, fit and outputs.

``BoostClassifier`` (``classifier.py``) is a ``Booster`` with the scikit-learn surface on
top: scikit-learn's parameter validation, tags, ``score``, ``feature_importances_`` and the
inspection mixin. A ``Booster`` alone fits and predicts tables with categorical or text
columns (a dict of columns and ``feature_types``) through the same fit object
(``training.fit_runs.Fit``), importing nothing of scikit-learn: the BoosTexter commands fit
one, and read their confboost model files into one (``formats.model_json.read_model``), so
``confboost train``, ``test``, ``classify``, ``show`` and ``export-shyp`` import neither
scikit-learn nor the SciPy statistics and pandas it pulls in (DESIGN rule 13). Arrays need
scikit-learn's ``validate_data``, which needs the scikit-learn estimator.

Both check each parameter against the one declarative table (``training.params.PARAMETERS``)
at fit: a ``Booster`` with ``check_parameters`` (plain Python), ``BoostClassifier`` with
scikit-learn's validation (the same answers and messages); then both the rule across
parameters (``check_across``). ``fit`` hands the checked estimator to a ``Fit``, which
returns every fitted attribute at once; ``fit`` assigns them in one store, so another
thread predicting during a refit sees the previous model or the new one, never a mix.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from confboost.engine.schemes import scheme_outputs
from confboost.formats.fit_scores import UNSAVED
from confboost.formats.model_json import save_estimator
from confboost.kernels.criterion_numpy import MODES
from confboost.training.fit_runs import Fit, is_fitted_attribute
from confboost.training.inputs import fitted_input
from confboost.training.params import check_across, check_parameters
from confboost.training.targets import encode_targets
from confboost.utils.threads import numba_threads

if TYPE_CHECKING:  # annotations only
    import numpy as np
    from numpy.typing import ArrayLike

    from confboost.engine.callbacks import TrainingCallback


class Booster:
    """Boosting with confidence-rated predictions, without scikit-learn's surface.

    The parameters, their defaults and their meaning, and the fitted attributes, are
    ``BoostClassifier``'s (see its docstring), which is a ``Booster``.
    """

    #: Whether X may be an array (checked by scikit-learn's ``validate_data``, which needs
    #: the scikit-learn estimator: ``BoostClassifier``'s).
    _takes_arrays = False

    def __init__(self, n_estimators=100, *, scheme="mh", confidence="real", alpha="auto",
                 smoothing="auto", init="uniform", code="random", code_length=None,
                 decoding="loss", max_bins=255, trim=0.0, n_jobs=None, random_state=None,
                 verbose=0, weak_learner="auto", max_leaves="auto", max_depth=None,
                 min_leaf_weight=0.0, product_terms=3, learning_rate="auto", feature_types=None,
                 text_expert=None, early_stopping="auto", validation_fraction=0.1,
                 n_iter_no_change=10, tol=1e-7, scoring="loss", warm_start=False,
                 class_weight=None, calibration="temperature"):
        self.n_estimators = n_estimators
        self.scheme = scheme
        self.confidence = confidence
        self.alpha = alpha
        self.smoothing = smoothing
        self.init = init
        self.code = code
        self.code_length = code_length
        self.decoding = decoding
        self.max_bins = max_bins
        self.trim = trim
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.weak_learner = weak_learner
        self.max_leaves = max_leaves
        self.max_depth = max_depth
        self.min_leaf_weight = min_leaf_weight
        self.product_terms = product_terms
        self.learning_rate = learning_rate
        self.feature_types = feature_types
        self.text_expert = text_expert
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.scoring = scoring
        self.warm_start = warm_start
        self.class_weight = class_weight
        self.calibration = calibration

    def get_params(self, deep=True):
        """The parameters by name, sorted as scikit-learn's ``get_params`` sorts them (a
        ``Booster`` and a ``BoostClassifier`` write the same model file byte for byte)."""
        names = sorted(name for name in inspect.signature(Booster.__init__).parameters
                       if name != "self")
        return {name: getattr(self, name) for name in names}

    def _check_parameters(self):
        """Check each parameter alone against ``params.PARAMETERS`` (ValueError naming it)."""
        check_parameters(self.get_params(), type(self).__name__)

    def _validate_params_once(self):
        """Check each parameter (``_check_parameters``), then the rule across parameters
        (``params.check_across``). Returns the confidence mode code (``criterion_numpy.MODES``)."""
        self._check_parameters()
        check_across(self.get_params())
        return MODES[self.confidence]

    def _check_fitted(self):
        # scikit-learn's rule (``check_is_fitted``): a fitted attribute is set
        if not any(name.endswith("_") and not name.startswith("__") for name in vars(self)):
            raise ValueError(f"this {type(self).__name__} is not fitted yet: call fit first")

    def _fitted(self):
        """This estimator as it is now, frozen: a copy sharing the attribute dict read once
        (a refit replaces that dict, never changes it), so that every output of one call
        comes from one model."""
        view = object.__new__(type(self))
        view.__dict__ = self.__dict__
        return view

    def _encode_targets(self, y):
        """Label signs (n, k) and each example's class (``targets.encode_targets``); sets
        ``classes_``."""
        signs, encoded, self.classes_, self._multilabel = encode_targets(y)
        return signs, encoded

    def fit(self, X: Any, y: ArrayLike, sample_weight: ArrayLike | None = None,
            callbacks: Sequence[Callable | TrainingCallback] | None = None,
            eval_set: Any = None, eval_names: Sequence[str] | None = None) -> Booster:
        """Boost on (X, y).

        Parameters
        ----------
        X : array-like, DataFrame or scipy sparse (CSR/CSC) of shape (n_samples, n_features)
            Numeric features; NaN is a missing value (its own block in every stump). float32
            is used as is; sparse input is binned without densifying it (an implicit zero is
            the value 0), and gives the same model as its dense equivalent. A DataFrame (or
            dict of columns) may also hold categorical and text columns (see
            ``feature_types``).
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
            Class labels, or a 0/1 indicator matrix for multi-label data.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights, not all zero: the starting distribution D_1.
        callbacks : sequence, optional
            Training callbacks (``confboost.engine.callbacks``), as LightGBM's and
            XGBoost's: objects with ``before_training(env)``, ``after_iteration(env)``
            (returning True stops the loop) and ``after_training(env)``, run in ascending
            ``order``, each given a ``CallbackEnv`` (the round index, the run so far and
            its model, the round's record, the evaluation results, a view of the
            estimator); or plain functions ``f(round_index, record)``, or ``f(env)`` with
            one parameter (told apart by their signature). A
            ``confboost.training.checkpoint.Checkpoint(path, every)`` saves the run every
            ``every`` rounds, and a fit that finds its file resumes from it: a run killed
            at any round and fitted again with the same checkpoint gives the model of an
            uninterrupted run, bit for bit, early stopping and ``best_iteration_`` included.
        eval_set : list of (X_val, y_val) pairs, or one pair, optional
            Validation data, as LightGBM's ``fit(eval_set=...)``: every round is scored on
            each pair (``evals_result_``); the first pair's scores are
            ``validation_score_`` and ``history_["validation_score"]``, early stopping (on
            by default when an eval_set is given, see ``early_stopping``) and calibration
            read the first pair only, and the whole of X trains.
        eval_names : list of str, optional
            The pairs' names in ``evals_result_`` and ``best_score_``; "valid_0",
            "valid_1", ... by default.

        Returns
        -------
        self

        Notes
        -----
        A fit is all or nothing: it never changes the estimator until its end, where every
        fitted attribute is assigned in one store. A fit that raises or is interrupted
        (KeyboardInterrupt) leaves the estimator as it was, unfitted or with its previous
        model, and ``predict`` from another thread during a refit gets the previous model's
        answer or the new one's. With ``warm_start=True`` a second fit continues the first
        fit's runs, on the same data with the same parameters (but ``n_estimators``,
        ``n_jobs`` and ``verbose``), and refuses anything else with a ValueError naming the
        difference.
        """
        self._adopt(self._fit(X, y, sample_weight, callbacks, eval_set, eval_names))
        return self

    def _fit(self, X, y, sample_weight, callbacks, eval_set, eval_names=None):
        """The ``FitResult`` of a fit on (X, y): a ``training.fit_runs.Fit`` of this
        estimator, new or continuing the previous one's runs (``warm_start``)."""
        mode = self._validate_params_once()
        fit = self._new_fit(mode)
        state = self.__dict__.get("_warm")
        if self.warm_start and state is not None:
            return fit.continue_fit(state, X, y, sample_weight, callbacks or (), eval_set,
                                    eval_names)
        return fit.fit(X, y, sample_weight, callbacks or (), eval_set, eval_names)

    def _new_fit(self, mode):
        """The ``Fit`` of this estimator (the Dask estimator's runs on its cluster)."""
        return Fit(self, mode)

    def _adopt(self, result):
        """Assign a fit's attributes in one store: the parameters and other attributes as
        they are, the previous fitted attributes gone, the new ones set."""
        attributes = {key: value for key, value in self.__dict__.items()
                      if not is_fitted_attribute(key)}
        attributes.update(result.attributes)
        attributes["_warm"] = result.state if self.warm_start else None
        self.__dict__ = attributes

    def _tree_params(self, max_leaves):
        """The tree learners' parameters, as the learners take them (the local fit's and
        the Dask learners'), with ``max_leaves`` resolved (``training.params.tree_defaults``)."""
        return {"max_leaves": int(max_leaves),
                "max_depth": None if self.max_depth is None else int(self.max_depth),
                "min_leaf_weight": float(self.min_leaf_weight)}

    def _prepare(self, X):
        """X as the model reads it (the input adapter of the fit, ``training.inputs``)."""
        self._check_fitted()
        return fitted_input(self).transform(self, X)

    def _scores(self, X):
        X = self._prepare(X)
        with numba_threads(self.n_jobs, X.shape[0] * len(self.model_) * self.model_.n_labels):
            return self.model_.decision_function(X)

    def _outputs(self):
        """What f means under the fitted scheme (``schemes.scheme_outputs``): the scheme and
        decoding of the fit, whatever ``set_params`` changed since."""
        self._check_fitted()
        fitted = self.__dict__.get("_fit_params") or self.get_params()
        return scheme_outputs(fitted["scheme"], self.classes_, self._multilabel,
                              getattr(self, "code_", None), fitted["decoding"],
                              getattr(self, "thresholds_", None))

    def decision_function(self, X: Any) -> np.ndarray:
        """f(x) for binary data, shape (n_samples,); otherwise shape (n_samples, k).

        MH and MR: f(x, l). MO: the decoder's class scores (negated exponential losses,
        or negated Hamming distances), whose argmax is the prediction.
        """
        fitted = self._fitted()
        return fitted._outputs().decision_function(fitted._scores(X))

    def _staged_scores(self, X):
        """f after each round, shape (n_samples, k) each (before the scheme's outputs)."""
        yield from self.model_.staged_decision_function(self._prepare(X))

    def staged_decision_function(self, X: Any) -> Iterator[np.ndarray]:
        """Yield ``decision_function(X)`` after each round."""
        fitted = self._fitted()
        outputs = fitted._outputs()
        for scores in fitted._staged_scores(X):
            yield outputs.decision_function(scores)

    def predict(self, X: Any) -> np.ndarray:
        """Class labels, or 0/1 indicator rows for multi-label data (see the class doc)."""
        fitted = self._fitted()
        return fitted._outputs().predict(fitted._scores(X))

    def staged_predict(self, X: Any) -> Iterator[np.ndarray]:
        """Yield ``predict(X)`` after each round."""
        fitted = self._fitted()
        outputs = fitted._outputs()
        for round_index, scores in enumerate(fitted._staged_scores(X)):
            yield outputs.predict(scores, round_index)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class (or label) probabilities, shape (n_samples, n_classes).

        With the default calibration, σ(a g) or softmax(a g) of the scheme's logit g with
        the fitted temperature a (see the class doc and ``confboost.training.calibration``). With
        ``calibration=None``: binary σ(2 f) for the second class, columns [1 - p, p] (real
        AdaBoost's f estimates ½ ln(P(y=+1 | x) / P(y=-1 | x)), Friedman, Hastie &
        Tibshirani 2000); MH single-label σ(2 f(x, l)) normalised over the classes; MH
        multi-label σ(2 f(x, l)) per label; MR single-label softmax of f; MR multi-label
        σ(2 (f - ``threshold_``)) per label; MO softmax of ``decision_function``.
        """
        fitted = self._fitted()
        return fitted._outputs().predict_proba(fitted._scores(X),
                                               getattr(fitted, "calibrator_", None))

    def __getattr__(self, name):
        # only for an attribute not found: a fitted score a loaded model file did not hold
        # says why it is absent (``formats/fit_scores.py``)
        unsaved = self.__dict__.get(UNSAVED) or {}
        if name in unsaved:
            raise AttributeError(unsaved[name], name=name, obj=self)
        descriptor = getattr(type(self), name, None)
        if hasattr(descriptor, "__get__"):  # a property that raised: raise its own error
            return descriptor.__get__(self, type(self))
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}",
                             name=name, obj=self)

    def __getstate__(self):
        # the run state of warm_start (its datasets, schemes and records) is not pickled: a
        # pickled model's next warm-start fit starts afresh
        state = dict(self.__dict__)
        state.pop("_warm", None)
        return state

    def save(self, path: str | os.PathLike) -> None:
        """Write the fitted model to ``path`` as versioned JSON, data only, with a checksum
        (``formats/model_json.py``; read it back with ``confboost.load``). The write is atomic: a
        crash or a kill while saving leaves the previous file at ``path`` whole."""
        self._check_fitted()
        save_estimator(self, path)
