"""What the BoosTexter commands share: a stem's files, its model, and the errors as icsiboost
counts them.

``train`` (``train_command.py``) and ``test``, ``classify``, ``export-shyp``, ``import-shyp``
(``boostexter_commands.py``) find ``STEM.names`` / ``.data`` / ``.dev`` / ``.test`` and the model
file here, read and write models (confboost JSON with the stem's classes), and turn f into
the class scores and errors icsiboost prints.
"""

from pathlib import Path

import numpy as np

from confboost.cli import icsiboost_flags as icsi
from confboost.data.columns import FrameEncoder
from confboost.engine.model import BoostedModel
from confboost.formats.boostexter import read_data, read_names
from confboost.formats.model_json import read_model, save_estimator

MODEL_SUFFIX = ".model.json"



def _feature_types(spec):
    return {column.name: column.kind for column in spec.columns if column.kind != "ignore"}


def _encoder(spec, experts):
    """The ``FrameEncoder`` of the non-ignored columns of a ``.names`` spec."""
    columns = [column for column in spec.columns if column.kind != "ignore"]
    return FrameEncoder([c.name for c in columns], [c.kind for c in columns],
                        {p: experts[c.name] for p, c in enumerate(columns) if c.kind == "text"})


def _stem_file(stem, suffix):
    return Path(str(stem) + suffix)


def _path(arguments, suffix):
    """The file of ``suffix`` (.names, .data, .dev, .test): its option, else STEM.suffix."""
    option = {".names": "names", ".data": "train_file", ".dev": "dev_file",
              ".test": "test_file"}[suffix]
    given = getattr(arguments, option, None)
    return Path(given) if given else _stem_file(arguments.stem, suffix)


def _spec(arguments):
    """The ``.names`` of the command: its file, --text's settings, --ignore/--only applied."""
    spec = read_names(_path(arguments, ".names"), icsi.text_defaults(arguments))
    return icsi.select_columns(spec, arguments)


def _read_optional(arguments, suffix, spec):
    path = _path(arguments, suffix)
    if getattr(arguments, suffix[1:] + "_file", None) and not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    return (read_data(path, spec, unknown_values="missing", single=True) if path.exists()
            else None)


def _single_label(labels):
    return bool(np.all(labels.sum(axis=1) == 1))


def icsiboost_error(labels, scores, single_label):
    """icsiboost's error: argmax error on single-label data, else any-label-wrong error."""
    if single_label:
        top = np.argmax(scores, axis=1)
        return float(np.mean(labels[np.arange(labels.shape[0]), top] == 0))
    wrong = (scores > 0) != (labels > 0)
    return float(np.mean(wrong.any(axis=1)))


def _load_model(path, spec):
    """The ``Booster`` of a confboost model file of the stem (``model_json.read_model``: every
    field checked, no scikit-learn imported); ValueError unless it holds the ``.names``'s
    classes and columns."""
    from confboost.estimators.booster import Booster

    if not Path(path).exists():
        raise FileNotFoundError(f"{path}: no such model file (train one with `confboost train`)")
    estimator, document = read_model(path, Booster)
    classes = document.get("boostexter", {}).get("classes")
    if classes is not None and classes != spec.classes:
        raise ValueError(f"{path}: the model's classes {classes} differ from the .names "
                         f"classes {spec.classes}")
    names = [column.name for column in spec.columns if column.kind != "ignore"]
    fitted_names = [str(name) for name in getattr(estimator, "feature_names_in_", [])]
    if (not hasattr(estimator, "encoder_") and fitted_names == names
            and all(column.kind == "continuous" for column in spec.columns
                    if column.kind != "ignore")):
        # fitted in Python on a DataFrame of the .names's numeric columns (the array path)
        estimator.encoder_ = _encoder(spec, {})
    if not hasattr(estimator, "encoder_"):
        raise ValueError(f"{path}: not a model of a .names/.data data set (fit it on a "
                         "DataFrame whose columns are the .names columns)")
    if estimator.encoder_.names != names:
        raise ValueError(f"{path}: the model's columns {estimator.encoder_.names} differ from "
                         f"the .names columns {names}")
    if classes is None and not estimator._multilabel:
        # fitted in Python: f's columns follow classes_ (sorted), the commands the .names
        _python_class_order(estimator, spec, path)
    return estimator


def _python_class_order(estimator, spec, path):
    """Give a single-label model fitted in Python ``class_order_``: for each .names class,
    its position in ``classes_``; ValueError unless the two hold the same classes."""
    fitted = [str(label) for label in estimator.classes_]
    if sorted(fitted) != sorted(spec.classes):
        raise ValueError(f"{path}: the model's classes {fitted} differ from the .names "
                         f"classes {spec.classes}")
    estimator.class_order_ = np.array([fitted.index(name) for name in spec.classes])


def _save_model(estimator, path, spec, single_label=None):
    """Save with the stem's classes and, when known, whether every training example had one
    label (``confboost.load`` then reads a single-label classifier)."""
    section = {"classes": list(spec.classes)}
    if single_label is not None:
        section["single_label"] = bool(single_label)
    save_estimator(estimator, path, extra={"boostexter": section})


def _truncate(estimator, rounds):
    if rounds is not None and rounds < len(estimator.model_):
        model = estimator.model_
        estimator.model_ = BoostedModel(model.hypotheses[:rounds], model.alphas[:rounds],
                                        model.n_labels)
        estimator.history_ = {key: value[:rounds] for key, value in estimator.history_.items()}
        estimator.n_estimators_ = rounds


def _class_index(spec, name):
    if name is None:
        return None
    if name not in spec.classes:
        raise ValueError(f"--max-fmeasure: {name!r} is not a class of the .names file "
                         f"({', '.join(spec.classes)})")
    return spec.classes.index(name)


def _class_scores(estimator, scores, decoded=False):
    """One score per class, shape (n, k): AdaBoost.MO's f on its code bits decoded (unless
    ``decoded``), and the binary path's single f as [-f, f] (a 1-D y of two classes)."""
    if not decoded and getattr(estimator, "code_", np.zeros((0, 1))).shape[1] > 1:
        scores = estimator._outputs().decision_function(scores)  # AdaBoost.MO's decoder
    if scores.shape[1] == 1 and not estimator._multilabel:
        scores = np.column_stack([-scores[:, 0], scores[:, 0]])
    order = getattr(estimator, "class_order_", None)
    return scores if order is None else scores[:, order]
