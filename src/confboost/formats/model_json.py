"""Model files: versioned JSON holding data only, read back as untrusted input.

Owns the file format of a fitted ``BoostClassifier`` or ``Booster`` (``save_estimator``,
``load``; ``read_model`` reads a file as either: the command line reads a ``Booster``, which
needs no scikit-learn) and its versions. A file is data only: hypothesis types are looked
up in a fixed registry (``learners.HYPOTHESIS_TYPES``), never imported or evaluated from the
file, so loading a model can never run code. A file is untrusted input (DESIGN.md rule
12): ``load_document`` bounds its size and nesting, refuses NaN/Infinity literals and checks
the SHA-256 content checksum; ``estimator_from_document`` checks every field against the
model's own shape (classes and label columns, code matrix, per-round arrays, column indices
and kinds, finite numbers, through ``untrusted.py`` and each hypothesis' ``from_dict``) and
the parameters against the estimator's table (``params.check_parameters``). A bad file is
refused with one ``ValueError`` naming the file and the field, before any kernel runs. Its
cost follows its size: it is read in chunks, and a count it declares must be backed by its
entries (``MAX_UNLISTED_FEATURES``; each hypothesis' ``from_dict`` gets the label count
before it builds a table). ``save_estimator`` reads the document back as ``read_model``
does before writing it, so a file that would be refused is never written. Saves are atomic
(``write_atomic``): a crash while saving leaves the previous file whole.

Versions: 4 (this release) is version 3 with the fit's scores (``fit_scores.py``); a file
of version 3 or older loads without them. Version 3 is version 2 with a ``"checksum"``.
Version 2 stores every hypothesis at table column positions and every tree in the one node
layout (``learners/tree_hypothesis.py``); it is read without a checksum. Version 1 files
(confboost before its one data world) still load and predict the same:
``upgrade_v1`` rewrites them on load (a stump of a table indexed the table's continuous
columns only; trees had a numeric layout and a separate mixed one).
"""

import hashlib
import json
from pathlib import Path

import numpy as np

from confboost.engine.learners import LEARNERS, MAX_LEAVES
from confboost.formats.fit_scores import (
    fit_scores_document,
    read_fit_scores,
    read_scores,
    write_scores,
)
from confboost.utils.files import write_atomic
from confboost.utils.untrusted import (
    MAX_ENTRIES,
    fail,
    finite_float,
    prefixed,
    read_bool,
    read_bounded,
    read_float,
    read_floats,
    read_int,
    read_list,
    read_str,
    require,
)

FORMAT_NAME = "confboost-model"
#: Version 3 adds the content checksum to version 2, version 4 the fit's scores.
FORMAT_VERSION = 4
#: The versions ``load_document`` reads.
READ_VERSIONS = (1, 2, 3, 4)
#: The history's lists of scores, which may hold NaN or ±inf (``fit_scores.write_scores``).
SCORE_HISTORY = ("validation_score",)
#: Largest model file read (bytes).
MAX_FILE_BYTES = 2**31

#: The node kinds of a version-1 mixed tree, by their version-2 names.
_V1_NODE_KINDS = {"continuous": "threshold", "categorical": "value", "text": "term"}


def _checksum(payload):
    """SHA-256 of the payload's canonical JSON (sorted keys, no spaces), as hex."""
    text = json.dumps(payload, allow_nan=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def save_document(path, document):
    """Write a model document (a dict) as versioned JSON with a checksum, atomically."""
    payload = {"format": FORMAT_NAME, "version": FORMAT_VERSION, **document}
    payload["checksum"] = _checksum(payload)
    write_atomic(path, json.dumps(payload, allow_nan=False))


def _refuse_constant(name):
    raise ValueError(f"the number {name} (JSON has no such literal)")


def load_document(path):
    """Read a model document written by ``save_document`` (or by a release writing version
    1 or 2), in the current layout; ValueError naming ``path``.

    Refused: files over ``MAX_FILE_BYTES``, text that is not UTF-8 JSON, JSON nested
    deeper than the interpreter allows, ``NaN``/``Infinity`` literals and numbers beyond
    float64 (``1e999``), a missing header, an unknown version, and (version 3 on) a checksum
    that does not match the content. Memory follows the file's size.
    """
    path = Path(path)
    try:
        raw = read_bounded(path, MAX_FILE_BYTES)
    except IsADirectoryError:
        raise ValueError(f"{path}: is a folder, not a model file") from None
    try:
        payload = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant,
                             parse_float=finite_float)
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not a confboost model file (not UTF-8 text: byte "
                         f"{error.start})") from None
    except RecursionError:
        raise ValueError(f"{path}: not a confboost model file (JSON nested too deep)") from None
    except ValueError as error:  # json.JSONDecodeError and the refused numbers
        raise ValueError(f"{path}: not a confboost model file (invalid JSON: {error})") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT_NAME:
        raise ValueError(f"{path}: not a confboost model file (no '{FORMAT_NAME}' header)")
    version = payload.get("version")
    if version not in READ_VERSIONS or isinstance(version, bool):
        raise ValueError(f"{path}: model format version {version!r} is not supported (this "
                         f"confboost reads versions {list(READ_VERSIONS)})")
    if version >= 3:
        stored = payload.pop("checksum", None)
        if stored != _checksum(payload):
            raise ValueError(f"{path}: checksum: the content does not match the checksum "
                             "(the file is corrupt or was edited)")
    if version == 1:
        try:
            return upgrade_v1(payload)
        except (KeyError, TypeError, AttributeError, IndexError, ValueError) as error:
            raise ValueError(f"{path}: malformed version-1 model file ({error})") from None
    return dict(payload, version=FORMAT_VERSION)


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


#: Most features of a model file that lists none of them (``feature_kinds``,
#: ``feature_names_in`` or ``frame``, as version 1 files): loading costs a word per feature,
#: and a count the file does not back with content would cost memory its size does not.
MAX_UNLISTED_FEATURES = 2**20
#: The sections the command line adds to a model file (``save_estimator``'s ``extra``).
EXTRA_SECTIONS = ("boostexter",)

#: Most classes of a saved model whose code matrix is checked (ρ is O(k² k')).
MAX_CODE_CLASSES = 4096


def model_document(estimator):
    """The JSON-ready document of a fitted estimator (``save_document`` adds the header).

    Parameters
    ----------
    estimator : BoostClassifier
        Fitted.

    Returns
    -------
    document : dict
    """
    from confboost.data.columns import text_expert_to_json

    params = {key: (value.tolist() if isinstance(value, np.ndarray) else value)
              for key, value in estimator.get_params().items()
              if (key != "random_state" or isinstance(value, (int, type(None))))
              and not callable(value)}
    params["text_expert"] = text_expert_to_json(estimator.text_expert)
    if isinstance(estimator.class_weight, dict):  # JSON keys are strings: keep the labels
        params["class_weight"] = [[_json_scalar(key), float(value)]
                                  for key, value in estimator.class_weight.items()]
    calibrator = getattr(estimator, "calibrator_", None)
    frame = estimator.encoder_.to_dict() if hasattr(estimator, "encoder_") else None
    return {
        "estimator": "BoostClassifier",
        "params": params,
        "classes": estimator.classes_.tolist(),
        "multilabel": bool(estimator._multilabel),
        "n_features_in": int(estimator.n_features_in_),
        "feature_names_in": (estimator.feature_names_in_.tolist()
                             if hasattr(estimator, "feature_names_in_") else None),
        "smoothing": estimator.smoothing_,
        "code": estimator.code_.tolist() if hasattr(estimator, "code_") else None,
        "thresholds": (estimator.thresholds_.tolist()
                       if hasattr(estimator, "thresholds_") else None),
        "history": {key: (write_scores(value) if key in SCORE_HISTORY
                          else np.asarray(value).tolist())
                    for key, value in estimator.history_.items()},
        "best_iteration": getattr(estimator, "best_iteration_", None),
        "weak_learner": estimator.weak_learner_,
        "max_leaves": estimator.max_leaves_,
        "learning_rate": estimator.learning_rate_,
        "calibration": calibrator.to_dict() if calibrator is not None else None,
        "feature_kinds": (estimator.feature_kinds_.tolist()
                          if hasattr(estimator, "feature_kinds_") else None),
        "model": estimator.model_.to_dict(),
        **({"frame": frame} if frame is not None else {}),
        **fit_scores_document(estimator),
    }


def save_estimator(estimator, path, extra=None):
    """Write a fitted estimator to ``path`` atomically (see ``BoostClassifier.save``).

    Parameters
    ----------
    estimator : BoostClassifier
    path : str or Path
    extra : dict, optional
        More top-level entries (the command line keeps its ``"boostexter"`` section here);
        they are covered by the checksum.

    Raises
    ------
    ValueError
        Naming ``path`` and the field, when the file would not be read back (a string
        longer than ``untrusted.MAX_STRING``, a section the reader does not know); nothing
        is written then. The document is read back exactly as ``read_model`` reads it.
    """
    document = {**model_document(estimator), **(extra or {})}
    unknown = sorted(set(extra or {}) - set(EXTRA_SECTIONS))
    if unknown:
        raise ValueError(f"{path}: cannot save the sections {unknown}: a model file has the "
                         f"sections {list(EXTRA_SECTIONS)} only")
    # what is written is what the reader takes: read the document back as load will
    try:
        copy = json.loads(json.dumps(document, allow_nan=False), parse_float=finite_float)
        estimator_from_document(copy, type(estimator))
        read_sections(copy)
    except ValueError as error:
        raise ValueError(f"{path}: cannot save this model, a model file could not be read "
                         f"back: {error}") from None
    save_document(path, document)


def _json_scalar(value):
    """A class label as JSON keeps it: numpy scalars as Python ones."""
    return value.item() if isinstance(value, np.generic) else value


def read_model(path, estimator_class):
    """Read a model file as an estimator of ``estimator_class``, checking every field, and
    its document (for the sections beyond the estimator's, as the command line's
    ``"boostexter"``).

    The command line reads its models as ``booster.Booster``: no scikit-learn is imported,
    and the file's parameters are checked exactly as ``BoostClassifier`` checks them
    (``params.check_parameters``).

    Parameters
    ----------
    path : str or Path
    estimator_class : type
        ``BoostClassifier``, or ``Booster`` (or a subclass of either).

    Returns
    -------
    estimator : estimator_class
        Fitted, predicting exactly what the saved one did.
    document : dict
        The file's content (``load_document``).

    Raises
    ------
    ValueError
        ``"<path>: <field>: <problem>"`` for any file that is not a valid model.
    """
    document = load_document(path)
    try:
        estimator = estimator_from_document(document, estimator_class)
        read_sections(document)
    except ValueError as error:
        raise prefixed(f"{path}: ", error) from None
    return estimator, document


def estimator_from_document(document, estimator_class):
    """The fitted estimator of a model document (untrusted); ValueError naming the field.

    Parameters
    ----------
    document : dict
        As ``load_document`` returns it.
    estimator_class : type
        The class of the estimator made (``BoostClassifier`` or ``Booster``); the
        parameters are checked against ``training.params.PARAMETERS`` whatever it is.

    Returns
    -------
    estimator : estimator_class
    """
    from confboost.data.columns import FEATURE_KINDS, FrameEncoder, text_expert_from_json
    from confboost.engine.model import BoostedModel
    from confboost.training.params import PARAMETERS, check_across, check_parameters

    if document.get("estimator") != "BoostClassifier":
        fail("estimator", "must be 'BoostClassifier'", document.get("estimator"))
    params = require(document, "params", "document")
    if not isinstance(params, dict):
        fail("params", "must be a JSON object", params)
    params = dict(params)
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        fail("params", "has unknown parameters", unknown)
    params["text_expert"] = text_expert_from_json(params.get("text_expert"))
    if isinstance(params.get("class_weight"), list):  # [[label, weight], ...]
        pairs = read_list(params["class_weight"], "params.class_weight")
        if not all(isinstance(pair, list) and len(pair) == 2
                   and isinstance(pair[0], str | int | float) for pair in pairs):
            fail("params.class_weight", "must be a list of [label, weight] pairs", pairs)
        params["class_weight"] = {label: read_float(weight, "params.class_weight", low=0.0)
                                  for label, weight in pairs}
    estimator = estimator_class(**params)
    try:
        check_parameters(estimator.get_params(), "BoostClassifier")
        check_across(estimator.get_params())
    except ValueError as error:
        raise prefixed("params: ", error) from None

    multilabel = read_bool(require(document, "multilabel", "document"), "multilabel")
    classes = _read_classes(require(document, "classes", "document"), multilabel)
    n_features = read_int(require(document, "n_features_in", "document"), "n_features_in",
                          1, MAX_ENTRIES)
    if (n_features > MAX_UNLISTED_FEATURES and document.get("feature_kinds") is None
            and document.get("feature_names_in") is None and document.get("frame") is None):
        fail("n_features_in", f"must be at most {MAX_UNLISTED_FEATURES} in a file that lists "
                              "no feature (feature_kinds, feature_names_in or frame)", n_features)
    names = document.get("feature_names_in")
    if names is not None:
        names = [read_str(name, f"feature_names_in[{i}]")
                 for i, name in enumerate(read_list(names, "feature_names_in", n_features))]
    smoothing = read_float(require(document, "smoothing", "document"), "smoothing", low=0.0)
    try:
        model = BoostedModel.from_dict(require(document, "model", "document"))
    except ValueError as error:
        raise prefixed("model.", error) from None
    code = _read_code(document.get("code"), estimator.scheme, classes, multilabel)
    wanted = _label_columns(estimator.scheme, classes, multilabel, code)
    if model.n_labels not in wanted:
        fail("model.n_labels", f"must be {' or '.join(map(str, wanted))} for {len(classes)} "
                               f"classes under scheme {estimator.scheme!r}", model.n_labels)
    n_rounds = len(model)
    history = _read_history(require(document, "history", "document"), n_rounds)
    n_run = len(next(iter(history.values()))) if history else n_rounds
    best = document.get("best_iteration")
    if best is not None:
        best = read_int(best, "best_iteration", 1, n_run + 1)
    calibration = _read_calibration(document.get("calibration"), multilabel, model.n_labels)
    scores = read_fit_scores(document, n_rounds, best)
    # the learner weak_learner="auto" chose (files from before "auto" name it in params)
    learner = read_str(document.get("weak_learner", estimator.weak_learner), "weak_learner")
    if learner not in LEARNERS:
        fail("weak_learner", f"must be one of {sorted(LEARNERS)}", learner)
    # the tree size and step "auto" chose (files from before "auto" name them in params)
    max_leaves = read_int(document.get("max_leaves", estimator.max_leaves), "max_leaves", 2,
                          MAX_LEAVES + 1)
    learning_rate = read_float(document.get("learning_rate", estimator.learning_rate),
                               "learning_rate", 0.0, 1.0)
    kinds = document.get("feature_kinds")
    if kinds is not None:
        kinds = read_list(kinds, "feature_kinds", n_features)
        if not all(kind in FEATURE_KINDS for kind in kinds):
            fail("feature_kinds", f"must hold kinds of {FEATURE_KINDS}", kinds)
    thresholds = document.get("thresholds")
    if thresholds is not None:
        if not (multilabel and estimator.scheme == "mr"):
            fail("thresholds", "only a multi-label MR model has thresholds", "a list")
        thresholds = read_floats(thresholds, "thresholds", (n_rounds,))
    elif multilabel and estimator.scheme == "mr" and n_rounds:
        raise ValueError("thresholds: missing (a multi-label MR model needs one a round)")

    encoder = None
    if document.get("frame") is not None:
        try:
            encoder = FrameEncoder.from_dict(document["frame"])
        except ValueError as error:
            raise prefixed("frame.", error) from None
        if len(encoder.names) != n_features:
            fail("frame.columns", f"must have n_features_in = {n_features} entries",
                 len(encoder.names))
    try:
        if encoder is not None:
            model.check_columns(encoder.kinds)
        else:
            model.check_columns(["continuous"] * n_features)
    except ValueError as error:
        raise prefixed("model.", error) from None

    # every field is valid: set the fitted attributes
    estimator.classes_ = classes
    estimator._multilabel = multilabel
    estimator.n_features_in_ = n_features
    if names is not None:
        estimator.feature_names_in_ = np.asarray(names, dtype=object)
    estimator.smoothing_ = smoothing
    if code is not None:
        estimator.code_, estimator.code_distance_ = code
    if thresholds is not None:
        estimator.thresholds_ = thresholds
        estimator.threshold_ = float(thresholds[-1])
    estimator.history_ = history
    estimator.model_ = model
    estimator.best_iteration_ = best
    estimator.weak_learner_ = learner
    estimator.max_leaves_, estimator.learning_rate_ = max_leaves, learning_rate
    estimator.calibrator_ = calibration
    if encoder is not None:
        estimator.encoder_ = encoder
    estimator.feature_kinds_ = np.asarray(
        kinds if kinds is not None else (encoder.kinds if encoder is not None
                                         else ["continuous"] * n_features), dtype=object)
    estimator.n_estimators_ = n_rounds
    estimator.__dict__.update(scores)
    return estimator


def load_estimator(path, estimator_class):
    """Read a model file as a user of ``estimator_class`` expects it (``confboost.load``).

    ``read_model``, then: a model that ``confboost train`` fitted on single-label data (its
    ``"boostexter"`` section says ``"single_label": true``) becomes the single-label
    classifier it is: ``classes_`` are the ``.names`` classes, ``predict`` returns one of
    them per example (argmax of f over the classes, as the command line's top class),
    ``predict_proba`` one row over the classes. f keeps its k columns (two for two classes,
    where a model fitted in Python on two classes has one), in the ``.names`` order.

    Returns
    -------
    estimator
    """
    estimator, document = read_model(path, estimator_class)
    boostexter = document.get("boostexter")
    if not (isinstance(boostexter, dict) and boostexter.get("single_label") is True
            and isinstance(boostexter.get("classes"), list)):
        return estimator
    classes = boostexter["classes"]
    wanted = len(estimator.classes_) if hasattr(estimator, "code_") else estimator.model_.n_labels
    if len(classes) != wanted:
        fail("boostexter.classes", f"must name the model's {wanted} classes", len(classes))
    estimator.classes_ = np.asarray([read_str(name, "boostexter.classes") for name in classes])
    estimator._multilabel = False
    for name in ("thresholds_", "threshold_"):  # a multi-label MR cut: argmax needs none
        if hasattr(estimator, name):
            delattr(estimator, name)
    return estimator


def _read_calibration(value, multilabel, n_labels):
    """The ``Calibrator`` of the file, or None: its link must be the model's (σ per column
    for a binary or multi-label model, softmax over the classes otherwise; a softmax over
    one column would give probabilities of exactly 0 and 1)."""
    from confboost.training.calibration import SLOPE_BOUNDS, Calibrator

    if value is None:
        return None
    kind = read_str(require(value, "kind", "calibration"), "calibration.kind")
    wanted = "sigmoid" if multilabel or n_labels == 1 else "softmax"
    if kind != wanted:
        fail("calibration.kind", f"must be {wanted!r} for a "
                                 f"{'multi-label' if multilabel else 'single-label'} model "
                                 f"of {n_labels} label column(s)", kind)
    slope = read_float(require(value, "slope", "calibration"), "calibration.slope",
                       *SLOPE_BOUNDS)
    if set(value) != {"kind", "slope"}:
        fail("calibration", "must have the fields kind and slope only", sorted(value))
    return Calibrator(kind, slope)


def read_sections(document):
    """The command line's sections of a model document, checked; ValueError naming the
    field. ``"boostexter"``: ``{"classes": [str, ...], "single_label": bool}``, the class
    names of a model trained on a ``.names`` file, one per class of the model, and whether
    its data was single-label (``load_estimator``)."""
    section = document.get("boostexter")
    if section is None:
        return
    if not isinstance(section, dict) or set(section) - {"classes", "single_label"}:
        fail("boostexter", "must be an object with the fields classes and single_label",
             section)
    if not isinstance(section.get("single_label", False), bool):
        fail("boostexter.single_label", "must be true or false", section["single_label"])
    names = section.get("classes")
    if names is None:
        return
    classes = read_list(require(document, "classes", "document"), "classes")
    names = read_list(names, "boostexter.classes", len(classes))
    for position, name in enumerate(names):
        read_str(name, f"boostexter.classes[{position}]")


def _read_classes(value, multilabel):
    """``classes_``: distinct scalars of one type (multi-label: 0..n-1)."""
    classes = read_list(value, "classes", max_length=1_000_000)
    if multilabel:
        if classes != list(range(len(classes))) or not classes:
            fail("classes", "must be 0, 1, ..., n-1 for a multi-label model", classes)
        return np.arange(len(classes))
    if len(classes) < 2:
        fail("classes", "must hold at least two classes", classes)
    kinds = {type(c) for c in classes}
    if not (kinds <= {str} or kinds <= {int, bool} or kinds <= {int, float}):
        fail("classes", "must be strings or numbers, all of one kind", classes)
    for position, label in enumerate(classes):
        if isinstance(label, str):
            read_str(label, f"classes[{position}]")
        elif isinstance(label, float):
            read_float(label, f"classes[{position}]")
    array = np.asarray(classes)
    if np.unique(array).size != array.size:
        fail("classes", "must be distinct", classes)
    return array


def _read_code(value, scheme, classes, multilabel):
    """(code_, code_distance_) of an MO model, or None."""
    from confboost.engine.schemes.codes import min_distance, validate_code

    if scheme != "mo":
        if value is not None:
            fail("code", "only an MO model has a code", "a matrix")
        return None
    if multilabel:
        fail("multilabel", "an MO model is single-label", True)
    if value is None:
        raise ValueError("code: missing (an MO model needs its code matrix)")
    if len(classes) > MAX_CODE_CLASSES:
        fail("classes", f"an MO model has at most {MAX_CODE_CLASSES} classes", len(classes))
    rows = read_floats(value, "code", (len(classes), None))
    if not np.isin(rows, (-1.0, 1.0)).all():
        fail("code", "must hold -1 and +1 only", rows[~np.isin(rows, (-1.0, 1.0))][0])
    try:
        code = validate_code(rows, len(classes))
    except ValueError as error:
        raise prefixed("code: ", error) from None
    return code, min_distance(code)


def _label_columns(scheme, classes, multilabel, code):
    """The numbers of columns of f the model may have: one per class, or one for two
    classes (fitted in Python; the command line's single-label models keep two)."""
    if code is not None:
        return (code[0].shape[1],)
    if not multilabel and len(classes) == 2:
        return (1, 2)
    return (len(classes),)


def _read_history(value, n_rounds):
    """``history_``: named per-round lists of finite numbers (or flags), all of one length,
    at least the model's ``n_rounds`` (early stopping records the rounds it cut off too)."""
    if not isinstance(value, dict) or len(value) > 64:
        fail("history", "must be an object of at most 64 per-round lists", value)
    history = {}
    length = None
    for key, entries in value.items():
        field = f"history[{key!r}]"
        entries = read_list(entries, field, length)
        if length is None:
            length = len(entries)
            if length < n_rounds:
                fail(field, f"must have at least the model's {n_rounds} rounds", length)
        if key in SCORE_HISTORY:
            history[key] = read_scores(entries, field)
        elif all(isinstance(entry, bool) for entry in entries) and entries:
            history[key] = np.asarray(entries, dtype=bool)
        else:
            history[key] = read_floats(entries, field, (length,))
    return history
