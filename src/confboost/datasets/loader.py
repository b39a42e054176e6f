"""``load``: one benchmark data set, read and checked, divided into train and test.

This module owns choosing the split (the official one, a predefined alternative, or a
seeded stratified k-fold), checking the rows, features and classes read against the
set's PROVENANCE.md (``registry.SPECS``), and returning a ``Split``.  Reading files is
``readers.py``; finding them is ``locations.py``.
"""

from __future__ import annotations

import os

import numpy as np

from confboost.datasets.locations import resolve
from confboost.datasets.readers import read_csv_parts, read_idx_parts
from confboost.datasets.registry import SPECS, Split, normalise


def load(
    name: str,
    data_dir: str | os.PathLike | None = None,
    fold: int = 0,
    n_folds: int = 5,
    random_state: int | None = 0,
    *,
    split: str | None = None,
    dtype=np.float64,
) -> Split:
    """Load one benchmark data set with its train/test split.

    Parameters
    ----------
    name : str
        A key of ``DATASETS`` (case-insensitive, ``_`` accepted for ``-``): letter,
        satimage, segment, vowel, soybean-large, splice, glass, vehicle, waveform,
        pendigits, optdigits, car, yeast-multiclass, breast-cancer-wisconsin,
        skin-segmentation, fashion-mnist, yeast-ml, scene, emotions, enron, medical.
    data_dir : str, path, ``"bundled"`` or None, default None
        Folder holding one sub-folder per set (the layout of ``shared/data``).  None:
        the first of the data folder (``$CONFBOOST_DATA`` or ``../shared/data`` (beside <repo>)),
        the download cache of ``fetch`` and the bundled copy that holds the files.
        ``"bundled"``: the copy shipped inside the package.
    fold : int, default 0
        Which fold is the test part when the split is a k-fold (``0 <= fold < n_folds``).
        Ignored for predefined splits.
    n_folds : int, default 5
        Number of folds (>= 2) for k-fold splits.  Ignored for predefined splits.
    random_state : int or None, default 0
        Seed of the k-fold shuffle.  Ignored for predefined splits.
    split : str or None, default None
        None: the set's default (``DATASETS[name].default_split``: the official split
        where PROVENANCE.md names one, else ``"cv"``).  ``"official"`` (or ``"uci"`` for
        segment): that predefined split.  ``"cv"``: pool all rows (train then test file)
        and take fold ``fold`` of a shuffled ``StratifiedKFold`` (plain ``KFold`` for
        multi-label sets) as the test part.
    dtype : numpy float dtype, default float64
        dtype of ``X`` (float32 halves the memory of fashion-mnist).

    Returns
    -------
    Split
        ``X_train`` (n_train, n_features), ``y_train`` (n_train,) or (n_train, n_labels),
        ``X_test``, ``y_test``, and the metadata described in ``Split``.

    Raises
    ------
    ValueError
        Unknown name (the message lists the valid ones), unknown split, bad
        ``fold``/``n_folds``, or files whose row / class / feature counts differ from
        PROVENANCE.md.
    FileNotFoundError
        No folder searched holds the files; the message names the places looked at,
        where the set comes from and the ``fetch`` call that downloads it.
    """
    key = normalise(name)
    spec = SPECS[key]
    split_name = spec.default_split if split is None else str(split).lower()
    if split_name != "cv" and split_name not in spec.predefined:
        raise ValueError(
            f"{key!r} has no split {split!r}; choose one of {(*spec.predefined, 'cv')}"
        )
    if split_name == "cv":
        n_folds = int(n_folds)
        if n_folds < 2:
            raise ValueError(f"n_folds must be at least 2, got {n_folds}")
        fold = int(fold)
        if not 0 <= fold < n_folds:
            raise ValueError(f"fold must be in [0, {n_folds}), got {fold}")
        files: tuple[str, ...] = spec.pool
    else:
        train_files, test_files, (n_tr, n_te), note = spec.predefined[split_name]
        files = train_files + test_files
    folder = resolve(key, data_dir, spec.needed(split_name))

    if spec.reader == "idx":
        table = read_idx_parts(folder, files, dtype)
    else:
        table = read_csv_parts(spec, folder, files, dtype)
    X, y = table.X, table.y
    where = f"{key} ({folder})"

    # checks against PROVENANCE.md
    if X.shape[1] != spec.n_features:
        raise ValueError(f"{where}: {X.shape[1]} features, expected {spec.n_features}")
    if spec.task == "multilabel":
        classes = np.asarray(table.label_names)
        label_names = list(table.label_names or [])
    else:
        classes = np.unique(y)
        label_names = [spec.class_names.get(c.item(), str(c)) for c in classes]
    if len(classes) != spec.n_classes:
        raise ValueError(f"{where}: {len(classes)} classes, expected {spec.n_classes}")
    if not spec.has_missing and spec.reader == "csv" and np.isnan(X).any():
        raise ValueError(f"{where}: unexpected missing values")

    if split_name == "cv":
        if X.shape[0] != spec.n_rows:
            raise ValueError(f"{where}: {X.shape[0]} rows, expected {spec.n_rows}")
        from sklearn.model_selection import KFold, StratifiedKFold

        if spec.task == "multilabel":
            splitter = KFold(n_splits=n_folds, shuffle=True, random_state=random_state)
            kind = "seeded"
        else:
            splitter = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=random_state)
            kind = "seeded stratified"
        train_idx, test_idx = list(splitter.split(X, y))[fold]
        note = spec.cv_note or f"over all {X.shape[0]:,} rows"
        if spec.predefined and not spec.cv_note:
            note += " (train and test files pooled)"
        description = (
            f"{kind} {n_folds}-fold CV, fold {fold}, random_state={random_state}, {note}: "
            f"{len(train_idx):,} / {len(test_idx):,}"
        )
    else:
        n_train_parts = len(train_files) if spec.reader == "csv" else len(train_files) // 2
        got = (sum(table.part_rows[:n_train_parts]), sum(table.part_rows[n_train_parts:]))
        if got != (n_tr, n_te):
            raise ValueError(f"{where}: {got[0]} + {got[1]} rows, expected {n_tr} + {n_te}")
        # rows are train files then test files: slices (views, no copy)
        train_idx, test_idx = slice(0, n_tr), slice(n_tr, n_tr + n_te)
        kind = "official" if split_name == "official" else f"{split_name.upper()} predefined"
        description = f"{kind} {n_tr:,} / {n_te:,} ({note})"

    return Split(
        X_train=X[train_idx],
        y_train=y[train_idx],
        X_test=X[test_idx],
        y_test=y[test_idx],
        name=key,
        task=spec.task,
        feature_names=table.feature_names,
        classes=classes,
        label_names=label_names,
        categorical_features=table.categorical,
        categories=table.categories,
        split_description=description,
        source=str(folder),
    )
