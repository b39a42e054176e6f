"""Model files: versioned JSON holding data only, read back through the hypothesis registry.

Owns the file format of a fitted ``BoostClassifier`` (``save_estimator``, ``load``) and its
versions. A file is data only: hypothesis types are looked up in a fixed registry
(``learners.HYPOTHESIS_TYPES``), never imported or evaluated from the file, so loading a
model can never run code.

Versions: 2 (this release) stores every hypothesis at table column positions and every
tree in the one node layout (``learners/tree.py``). Version 1 files (confboost before the
engine redesign of issue 11) still load and predict the same: ``upgrade_v1`` rewrites them
on load (a stump of a table indexed the table's continuous columns only; trees had a
numeric layout and a separate mixed one).
"""

import json
from pathlib import Path

import numpy as np

FORMAT_NAME = "confboost-model"
FORMAT_VERSION = 2

#: The node kinds of a version-1 mixed tree, by their version-2 names.
_V1_NODE_KINDS = {"continuous": "threshold", "categorical": "value", "text": "term"}


def save_document(path, document):
    """Write a model document (a dict) as versioned JSON."""
    payload = {"format": FORMAT_NAME, "version": FORMAT_VERSION, **document}
    Path(path).write_text(json.dumps(payload, allow_nan=False))


def load_document(path):
    """Read a model document written by ``save_document`` (or by a release writing version
    1), in the current version; ValueError if it is not one."""
    try:
        payload = json.loads(Path(path).read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not a confboost model file (invalid JSON: {error})") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT_NAME:
        raise ValueError(f"{path}: not a confboost model file (no '{FORMAT_NAME}' header)")
    if payload.get("version") == 1:
        try:
            return upgrade_v1(payload)
        except (KeyError, TypeError, AttributeError, IndexError) as error:
            raise ValueError(f"{path}: malformed version-1 model file ({error!r})") from None
    if payload.get("version") != FORMAT_VERSION:
        raise ValueError(f"{path}: model format version {payload.get('version')!r} is not "
                         f"supported (this confboost reads versions 1 and {FORMAT_VERSION})")
    return payload


def upgrade_v1(document):
    """A version-1 model document rewritten as version 2 (a new dict).

    - On a table (a document with a ``"frame"``), stump ``feature`` f indexed the table's
      continuous columns: it becomes their f-th table position.
    - A numeric ``"tree"`` / ``"hamming_tree"`` (``feature`` per node) becomes the one node
      layout with every node a threshold node; a ``"mixed_tree"`` /
      ``"mixed_hamming_tree"`` becomes a ``"tree"`` / ``"hamming_tree"`` with its node kinds
      renamed (continuous → threshold, categorical → value, text → term).
    """
    document = dict(document, version=FORMAT_VERSION)
    frame = document.get("frame")
    continuous = (None if frame is None else
                  [c for c, column in enumerate(frame["columns"])
                   if column["kind"] == "continuous"])
    hypotheses = []
    for entry in document["model"]["hypotheses"]:
        entry = dict(entry)
        kind = entry.get("type")
        if kind == "stump" and continuous is not None:
            feature = entry["feature"]
            if not isinstance(feature, int) or not 0 <= feature < len(continuous):
                raise ValueError(f"stump feature {feature!r} names no continuous column of "
                                 f"the table ({len(continuous)} continuous columns)")
            entry["feature"] = continuous[feature]
        elif kind in ("tree", "hamming_tree"):
            n = len(entry["feature"])
            entry["kind"] = ["threshold"] * n
            entry["column"] = entry.pop("feature")
            entry["value"] = [None] * n
        elif kind in ("mixed_tree", "mixed_hamming_tree"):
            entry["type"] = kind.removeprefix("mixed_")
            entry["kind"] = [_V1_NODE_KINDS.get(name, name) for name in entry["kind"]]
        hypotheses.append(entry)
    document["model"] = dict(document["model"], hypotheses=hypotheses)
    return document


def save_estimator(estimator, path):
    """Write a fitted ``BoostClassifier`` to ``path`` (see ``BoostClassifier.save``)."""
    from confboost.data.columns import text_expert_to_json

    classes = estimator.classes_.tolist()
    params = {key: (value.tolist() if isinstance(value, np.ndarray) else value)
              for key, value in estimator.get_params().items()
              if key != "random_state" or isinstance(value, (int, type(None)))}
    params["text_expert"] = text_expert_to_json(estimator.text_expert)
    frame = estimator.encoder_.to_dict() if hasattr(estimator, "encoder_") else None
    save_document(path, {
        "estimator": "BoostClassifier",
        "params": params,
        "classes": classes,
        "multilabel": bool(estimator._multilabel),
        "n_features_in": int(estimator.n_features_in_),
        "feature_names_in": (estimator.feature_names_in_.tolist()
                             if hasattr(estimator, "feature_names_in_") else None),
        "smoothing": estimator.smoothing_,
        "code": estimator.code_.tolist() if hasattr(estimator, "code_") else None,
        "thresholds": (estimator.thresholds_.tolist() if hasattr(estimator, "thresholds_")
                       else None),
        "history": {key: np.asarray(value).tolist()
                    for key, value in estimator.history_.items()},
        "model": estimator.model_.to_dict(),
        **({"frame": frame} if frame is not None else {}),
    })


def load(path):
    """Read a ``BoostClassifier`` saved with ``save``.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    BoostClassifier
        Fitted, predicting exactly what the saved one did.
    """
    from confboost.data.columns import FrameEncoder, text_expert_from_json
    from confboost.estimators import BoostClassifier
    from confboost.model import BoostedModel
    from confboost.schemes.codes import min_distance, validate_code

    document = load_document(path)
    if document.get("estimator") != "BoostClassifier":
        raise ValueError(f"{path}: holds a {document.get('estimator')!r}, not a BoostClassifier")
    try:
        params = dict(document["params"])
        params["text_expert"] = text_expert_from_json(params.get("text_expert"))
        estimator = BoostClassifier(**params)
        estimator.classes_ = np.asarray(document["classes"])
        estimator._multilabel = bool(document["multilabel"])
        estimator.n_features_in_ = int(document["n_features_in"])
        if document.get("feature_names_in") is not None:
            estimator.feature_names_in_ = np.asarray(document["feature_names_in"], dtype=object)
        estimator.smoothing_ = float(document["smoothing"])
        if document.get("code") is not None:
            estimator.code_ = validate_code(document["code"], len(estimator.classes_))
            estimator.code_distance_ = min_distance(estimator.code_)
        if document.get("thresholds") is not None:
            estimator.thresholds_ = np.asarray(document["thresholds"], dtype=np.float64)
            estimator.threshold_ = float(estimator.thresholds_[-1])
        estimator.history_ = {key: np.asarray(value)
                              for key, value in document["history"].items()}
        estimator.model_ = BoostedModel.from_dict(document["model"])
        if document.get("frame") is not None:
            estimator.encoder_ = FrameEncoder.from_dict(document["frame"])
    except (KeyError, TypeError) as error:
        raise ValueError(f"{path}: malformed model file ({error!r})") from None
    estimator.n_estimators_ = len(estimator.model_)
    return estimator
