"""The fit's scores in a model file: ``n_iter_``, ``train_score_``, ``validation_score_``,
``evals_result_`` and ``best_score_``.

Owns their fields of the model document (version 4 of ``model_json``'s format): written for
each attribute the estimator has, read back checked and bounded by the file (each list one
entry a round run, each name a bounded string). A score may be NaN or infinite (a scorer
undefined on a set, as ROC AUC on one class): it is written ``null``, ``"inf"`` or
``"-inf"`` (``write_scores``) and read back as such (``read_scores``); every other number
is finite. A file without a field (older versions, a model imported from ``.shyp``, a fit
that records no such score) loads without the attribute; reading it then raises an
``AttributeError`` that says why (``UNSAVED``, kept by the estimator).
"""

import numpy as np

from confboost.utils.untrusted import (
    MAX_ENTRIES,
    fail,
    read_float,
    read_int,
    read_list,
    read_str,
    write_float,
)

#: The fitted attributes this module saves, by their field in the document.
FIELDS = {"n_iter": "n_iter_", "train_score": "train_score_",
          "validation_score": "validation_score_", "evals_result": "evals_result_",
          "best_score": "best_score_"}
#: The estimator's attribute naming, for each of ``FIELDS`` a file lacked, why it is absent.
UNSAVED = "_unsaved_"
#: Most evaluation sets, and metrics per set, a file may name.
MAX_NAMES = 64


def fit_scores_document(estimator):
    """The document's fields for the scores ``estimator`` has (JSON-ready dict)."""
    fields = {}
    for field, attribute in FIELDS.items():
        if attribute not in vars(estimator):
            continue
        value = vars(estimator)[attribute]
        if field == "n_iter":
            fields[field] = int(value)
        elif field == "evals_result":
            fields[field] = {name: {metric: write_scores(values)
                                    for metric, values in metrics.items()}
                             for name, metrics in value.items()}
        elif field == "best_score":
            fields[field] = {name: {metric: write_scores([v])[0] for metric, v in metrics.items()}
                             for name, metrics in value.items()}
        else:
            fields[field] = write_scores(value)
    return fields


def write_scores(values):
    """Scores as JSON holds them: finite numbers as they are, NaN as ``null``, ±inf as
    ``"inf"`` / ``"-inf"``."""
    return [None if np.isnan(v) else write_float(v)
            for v in np.asarray(values, dtype=np.float64).tolist()]


def read_scores(value, field, length=None):
    """A list of scores (``write_scores``'s spelling), as float64 of shape (n,)."""
    entries = read_list(value, field, length)
    return np.array([np.nan if entry is None else
                     read_float(entry, f"{field}[{position}]", infinite=True)
                     for position, entry in enumerate(entries)], dtype=np.float64)


def read_fit_scores(document, n_rounds, best_iteration):
    """The scores of a model document, checked; ValueError naming the field.

    Parameters
    ----------
    document : dict
        The model document (untrusted).
    n_rounds : int
        Rounds in the model: ``n_iter`` is at least that.
    best_iteration : int or None
        The document's ``best_iteration``: without it ``best_score`` must be empty.

    Returns
    -------
    attributes : dict
        The fitted attributes found, by name, and ``UNSAVED``: for each attribute the file
        lacks, the sentence its ``AttributeError`` says.
    """
    attributes, unsaved = {}, {}
    n_iter = document.get("n_iter")
    if n_iter is not None:
        n_iter = attributes["n_iter_"] = read_int(n_iter, "n_iter", n_rounds, MAX_ENTRIES)
    for field in ("train_score", "validation_score"):
        value = document.get(field)
        if value is None:
            continue
        scores = read_scores(value, field)
        if len(scores) and (n_iter is None or len(scores) != n_iter + 1):
            fail(field, "must be empty or hold n_iter + 1 scores (f = 0, then each round)",
                 len(scores))
        attributes[f"{field}_"] = scores
    if document.get("evals_result") is not None:
        attributes["evals_result_"] = {
            name: {metric: read_scores(values, field, n_iter).tolist()
                   for metric, values, field in _named(metrics, where)}
            for name, metrics, where in _named(document["evals_result"], "evals_result",
                                               n_iter)}
    if document.get("best_score") is not None:
        scores = {name: {metric: float(read_scores([value], field)[0])
                         for metric, value, field in _named(metrics, where)}
                  for name, metrics, where in _named(document["best_score"], "best_score")}
        if scores and best_iteration is None:
            fail("best_score", "must be empty without best_iteration", sorted(scores))
        attributes["best_score_"] = scores
    for attribute in FIELDS.values():
        if attribute not in attributes:
            unsaved[attribute] = (
                f"{attribute} is not known for this model: the file it was loaded from does "
                "not hold it (a file written before model format 4, a model imported from "
                ".shyp, or a fit that does not record it); fit the estimator to have it")
    attributes[UNSAVED] = unsaved
    return attributes


def _named(value, field, n_iter=0):
    """(name, entry, the entry's field) of a JSON object of at most ``MAX_NAMES`` entries
    named by strings of at most 1,000 characters; with ``n_iter`` None it must be empty
    (no round count to check its lists by)."""
    if not isinstance(value, dict) or len(value) > MAX_NAMES:
        fail(field, f"must be an object of at most {MAX_NAMES} entries", value)
    if value and n_iter is None:
        fail(field, "must be empty without n_iter", sorted(value)[:4])
    return [(read_str(name, f"{field} name", 1000), entry, f"{field}[{name!r}]")
            for name, entry in value.items()]
