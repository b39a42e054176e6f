"""Readable models: every round as an object, and the rounds printed as rules.

Owns ``Round`` (one round's α, hypothesis, columns and their names, Z_t) and ``rules_text``,
the listing in BoosTexter's spirit that ``BoostClassifier.rules`` and ``confboost show``
print: one rule per round with the column and class names, outputs already multiplied by
α_t (so they are what the round adds to f(x, l)).
"""

from dataclasses import dataclass

import numpy as np

from confboost.engine.learners.base import PartitionHypothesis


@dataclass(frozen=True)
class Round:
    """One boosting round of a fitted model.

    Attributes
    ----------
    number : int
        1 for the first round.
    alpha : float
        α_t.
    hypothesis : PartitionHypothesis
        h_t; ``alpha * hypothesis.values`` is what the round adds to f on each block.
    columns : tuple of int
        The input columns h_t reads (table positions), in increasing order.
    column_names : tuple of str
    z : float
        Z_t, the round's normaliser; -ln Z_t is its share of the bound's decrease.
    feature_names : tuple of str
        Name of each feature index the hypothesis uses (its ``describe``'s ``names``).
    class_names : tuple of str
        Name of each column of f.
    """

    number: int
    alpha: float
    hypothesis: PartitionHypothesis
    columns: tuple
    column_names: tuple
    z: float
    feature_names: tuple
    class_names: tuple

    @property
    def column(self):
        """The one column the hypothesis reads (None when it reads several)."""
        return self.columns[0] if len(self.columns) == 1 else None

    def __str__(self):
        rule = self.hypothesis.describe(self.feature_names, self.class_names, self.alpha)
        head = f"round {self.number} (alpha {self.alpha:.4g}, Z {self.z:.4f}):"
        if "\n" not in rule and len(head) + len(rule) > 100:
            rule = rule.replace("; ", "\n")  # one block a line
        if "\n" in rule:
            return head + "\n" + "\n".join("    " + line for line in rule.splitlines())
        return f"{head} {rule}"


def table_names(estimator):
    """Names of the input columns: the fitted names, or ``x0``, ``x1``, ..."""
    if hasattr(estimator, "feature_names_in_"):
        return [str(name) for name in estimator.feature_names_in_]
    if hasattr(estimator, "encoder_"):
        return [str(name) for name in estimator.encoder_.names]
    return [f"x{column}" for column in range(estimator.n_features_in_)]


def output_names(estimator):
    """Name of each column of f: the class of f > 0 for binary data, the class or label,
    or the code bit (``scheme="mo"``)."""
    k = estimator.model_.n_labels
    if hasattr(estimator, "code_") and estimator.code_.shape[1] > 1:
        return [f"bit {bit}" for bit in range(k)]
    classes = [str(c) for c in estimator.classes_]
    return classes[1:] if k == 1 and not estimator._multilabel else classes


def model_rounds(estimator, class_names=None):
    """The fitted rounds of a ``BoostClassifier`` as ``Round`` objects.

    Parameters
    ----------
    estimator : BoostClassifier
    class_names : sequence of str, optional
        Names of the columns of f (default ``output_names``).

    Returns
    -------
    list of Round
    """
    names = table_names(estimator)
    classes = tuple(class_names if class_names is not None else output_names(estimator))
    rounds = []
    # a model read from a .shyp file was not trained here: its Z_t are unknown (nan)
    z_rounds = estimator.history_.get("z", np.full(len(estimator.model_), np.nan))
    for number, (hypothesis, alpha, z) in enumerate(zip(
            estimator.model_.hypotheses, estimator.model_.alphas, z_rounds,
            strict=False), start=1):
        columns = tuple(hypothesis.features())
        rounds.append(Round(number, float(alpha), hypothesis, columns,
                            tuple(names[c] for c in columns), float(z), tuple(names),
                            classes))
    return rounds


def rules_text(estimator, top=None, first=None, class_names=None):
    """The model's rounds as rules, one per round.

    Parameters
    ----------
    estimator : BoostClassifier
    top : int, optional
        Only the ``top`` rounds of largest bound decrease -ln Z_t, largest first.
    first : int, optional
        Only the first ``first`` rounds.
    class_names : sequence of str, optional

    Returns
    -------
    str
    """
    rounds = model_rounds(estimator, class_names)
    if first is not None:
        rounds = rounds[:first]
    if top is not None:
        order = np.argsort([r.z for r in rounds], kind="stable")[:top]
        rounds = [rounds[i] for i in order]
    learner = estimator.weak_learner_
    head = (f"{len(estimator.model_)} rounds of {learner} (scheme {estimator.scheme}, "
            f"confidence {estimator.confidence}); f(x, l) = sum of the rounds' outputs, "
            f"shown as alpha_t h_t(x, l)")
    if top is not None:
        head += f"; the {len(rounds)} rounds of least Z_t"
    return "\n".join([head, *map(str, rounds)]) + "\n"
