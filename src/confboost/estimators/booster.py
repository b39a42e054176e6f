"""The estimator without scikit-learn: ``Booster``, its parameters, fit and outputs.

``BoostClassifier`` (``estimators.py``) is a ``Booster`` with the scikit-learn surface on top:
scikit-learn's parameter validation, tags, ``score``, ``feature_importances_`` and the
interpretation mixin. A ``Booster`` alone fits and predicts tables with categorical or text
columns (a dict of columns and ``feature_types``) through the same ``fitting.py`` and
``inputs.py``, importing nothing of scikit-learn: the BoosTexter commands fit one, and read
their confboost model files into one (``persistence.read_model``), so ``confboost train``,
``test``, ``classify``, ``show`` and ``export-shyp`` import neither scikit-learn nor the
SciPy statistics and pandas it pulls in (issue 18; DESIGN rule 13). Arrays need
scikit-learn's ``validate_data``, which needs the scikit-learn estimator.

Both check each parameter against the one declarative table (``_params.PARAMETERS``) at fit:
a ``Booster`` with ``_params.check_parameters`` (plain Python), ``BoostClassifier`` with
scikit-learn's validation (the same answers and messages); then both the rule across
parameters (``_params.check_across``). Both write the same model file (``persistence.py``).
"""

import inspect

from confboost.data.columns import is_mixed
from confboost.engine.schemes import scheme_outputs
from confboost.formats.model_json import save_estimator
from confboost.kernels.criterion_numpy import MODES
from confboost.training import fit_runs as fitting
from confboost.training.inputs import prediction_data
from confboost.training.params import check_across, check_parameters
from confboost.training.targets import encode_targets
from confboost.utils.threads import numba_threads


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
                 verbose=0, weak_learner="auto", max_leaves=16, max_depth=None,
                 min_leaf_weight=0.0, product_terms=3, learning_rate=1.0, feature_types=None,
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
        """Check each parameter alone against ``_params.PARAMETERS`` (ValueError naming it)."""
        check_parameters(self.get_params(), type(self).__name__)

    def _validate_params_once(self):
        """Check each parameter (``_check_parameters``), then the rule across parameters
        (``_params.check_across``). Returns the confidence mode code (``criterion.MODES``)."""
        self._check_parameters()
        check_across(self.get_params())
        return MODES[self.confidence]

    def _check_fitted(self):
        # scikit-learn's rule (``check_is_fitted``): a fitted attribute is set, as from the
        # first step of fit on, where the callbacks read the outputs
        if not any(name.endswith("_") and not name.startswith("__") for name in vars(self)):
            raise ValueError(f"this {type(self).__name__} is not fitted yet: call fit first")

    def _encode_targets(self, y):
        """Label signs (n, k) and each example's class (``targets.encode_targets``); sets
        ``classes_``."""
        signs, encoded, self.classes_, self._multilabel = encode_targets(y)
        return signs, encoded

    def fit(self, X, y, sample_weight=None, callbacks=None, eval_set=None):
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
        callbacks : sequence of callables, optional
            Called as ``callback(round_index, record)`` after every round
            (``boosting.BoostingRun.run``); returning True stops the loop. A
            ``confboost.training.checkpoint.Checkpoint(path, every)`` among them saves the run every
            ``every`` rounds, and a fit that finds its file resumes from it: a run killed
            at any round and fitted again with the same checkpoint gives the model of an
            uninterrupted run, bit for bit.
        eval_set : list of one (X_val, y_val) pair, optional
            Validation data, as LightGBM's ``fit(eval_set=...)``: every round is scored
            on it (``history_["validation_score"]``), early stopping (on by default when
            an eval_set is given, see ``early_stopping``) and calibration use it, and the
            whole of X trains.

        Returns
        -------
        self

        Notes
        -----
        A fit is all or nothing: it starts from the parameters alone (the previous fitted
        attributes are set aside, not changed) and a fit that raises or is interrupted
        (KeyboardInterrupt) puts them back in one store: the estimator is as it was,
        unfitted or with its previous model. Callbacks see the new attributes as they
        are set.
        """
        with fitting.all_or_nothing(self):
            self._fit(X, y, sample_weight, callbacks, eval_set)
        return self

    def _fit(self, X, y, sample_weight, callbacks, eval_set):
        """``fit`` on an estimator with no fitted attributes (``fitting.fit``)."""
        mode = self._validate_params_once()
        if not (self._takes_arrays or is_mixed(X, self.feature_types)):
            raise TypeError("a Booster fits a table with categorical or text columns (a dict "
                            "of columns and feature_types); use BoostClassifier for arrays, "
                            "sparse matrices and all-continuous tables")
        fitting.fit(self, X, y, sample_weight, callbacks, eval_set, mode)

    def _tree_params(self):
        return {"max_leaves": int(self.max_leaves),
                "max_depth": None if self.max_depth is None else int(self.max_depth),
                "min_leaf_weight": float(self.min_leaf_weight)}

    def _prepare(self, X):
        """X as the model reads it (``inputs.prediction_data``)."""
        self._check_fitted()
        return prediction_data(self, X)

    def _scores(self, X):
        X = self._prepare(X)
        with numba_threads(self.n_jobs, X.shape[0] * len(self.model_) * self.model_.n_labels):
            return self.model_.decision_function(X)

    def _outputs(self):
        """What f means under the fitted scheme (``schemes.scheme_outputs``)."""
        self._check_fitted()
        return scheme_outputs(self.scheme, self.classes_, self._multilabel,
                              getattr(self, "code_", None), self.decoding,
                              getattr(self, "thresholds_", None))

    def decision_function(self, X):
        """f(x) for binary data, shape (n_samples,); otherwise shape (n_samples, k).

        MH and MR: f(x, l). MO: the decoder's class scores (negated exponential losses,
        or negated Hamming distances), whose argmax is the prediction.
        """
        return self._outputs().decision_function(self._scores(X))

    def _staged_scores(self, X):
        """f after each round, shape (n_samples, k) each (before the scheme's outputs)."""
        yield from self.model_.staged_decision_function(self._prepare(X))

    def staged_decision_function(self, X):
        """Yield ``decision_function(X)`` after each round."""
        outputs = self._outputs()
        for scores in self._staged_scores(X):
            yield outputs.decision_function(scores)

    def predict(self, X):
        """Class labels, or 0/1 indicator rows for multi-label data (see the class doc)."""
        return self._outputs().predict(self._scores(X))

    def staged_predict(self, X):
        """Yield ``predict(X)`` after each round."""
        outputs = self._outputs()
        for round_index, scores in enumerate(self._staged_scores(X)):
            yield outputs.predict(scores, round_index)

    def predict_proba(self, X):
        """Class (or label) probabilities, shape (n_samples, n_classes).

        With the default calibration, σ(a g) or softmax(a g) of the scheme's logit g with
        the fitted temperature a (see the class doc and ``confboost.training.calibration``). With
        ``calibration=None``: binary σ(2 f) for the second class, columns [1 - p, p] (real
        AdaBoost's f estimates ½ ln(P(y=+1 | x) / P(y=-1 | x)), Friedman, Hastie &
        Tibshirani 2000); MH single-label σ(2 f(x, l)) normalised over the classes; MH
        multi-label σ(2 f(x, l)) per label; MR single-label softmax of f; MR multi-label
        σ(2 (f - ``threshold_``)) per label; MO softmax of ``decision_function``.
        """
        return self._outputs().predict_proba(self._scores(X),
                                             getattr(self, "calibrator_", None))

    def __getstate__(self):
        # the run state of warm_start holds closures over the run: not pickled (a pickled
        # model's next warm-start fit starts afresh)
        state = dict(self.__dict__)
        state.pop("_warm", None)
        return state

    def save(self, path):
        """Write the fitted model to ``path`` as versioned JSON, data only, with a checksum
        (``persistence.py``; read it back with ``confboost.load``). The write is atomic: a
        crash or a kill while saving leaves the previous file at ``path`` whole."""
        self._check_fitted()
        save_estimator(self, path)
