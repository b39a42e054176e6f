"""Readers of the data files: gzip CSV (one header, label last) and gzip IDX.

This module owns decoding a set's files into one table (``Table``): numeric cells to
floats (empty -> NaN), nominal columns to integer codes, class labels to int64 or str,
multi-label columns to a 0/1 matrix in ``labels.txt`` order.  It knows nothing of splits
or of where the files are (``loader.py`` and ``locations.py``).
"""

from __future__ import annotations

import csv
import gzip
import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from confboost.datasets.registry import Spec

_INT_RE = re.compile(r"[+-]?\d+\Z")


def _read_csv(path: Path) -> tuple[list[str], np.ndarray]:
    """Header and cells (2-D str array) of one gzip CSV."""
    with gzip.open(path, "rt", encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        rows = [r for r in reader if r]
    for i, r in enumerate(rows):
        if len(r) != len(header):
            raise ValueError(
                f"{path}: data row {i + 1} has {len(r)} fields, the header has {len(header)}"
            )
    cells = np.array(rows, dtype=str) if rows else np.empty((0, len(header)), dtype=str)
    return header, cells.reshape(len(rows), len(header))


def _parse_float(cells: np.ndarray, dtype) -> np.ndarray:
    missing = cells == ""
    if missing.any():
        cells = np.where(missing, "nan", cells)
    return cells.astype(dtype)


def _to_float(cells: np.ndarray, names: Sequence[str], where: str, dtype) -> np.ndarray:
    """Numeric cells -> float array, empty cells -> NaN."""
    try:
        sample = cells[:256]
        if sample.size and np.unique(sample).size * 20 < sample.size:
            # few distinct strings (binary / small-integer data): parse each once
            uniq, inverse = np.unique(cells, return_inverse=True)
            return _parse_float(uniq, dtype)[inverse].reshape(cells.shape)
        return _parse_float(cells, dtype)
    except ValueError:
        for j in range(cells.shape[1]):
            try:
                cells[:, j].astype(dtype)
            except ValueError as exc:
                raise ValueError(f"{where}: non-numeric value in column {names[j]!r}") from exc
        raise


def _encode_categorical(col: np.ndarray, dtype) -> tuple[np.ndarray, list[str]]:
    present = col != ""
    cats = np.unique(col[present])
    out = np.full(col.shape[0], np.nan, dtype=dtype)
    out[present] = np.searchsorted(cats, col[present])
    return out, [str(c) for c in cats]


def _labels(cells: np.ndarray, where: str) -> np.ndarray:
    if (cells == "").any():
        raise ValueError(f"{where}: empty class label")
    uniq = np.unique(cells)
    if all(_INT_RE.match(str(u)) for u in uniq):
        return cells.astype(np.int64)
    return cells.astype(str)


@dataclass
class Table:
    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    categorical: list[int]
    categories: dict[int, list[str]]
    label_names: list[str] | None  # multi-label only
    part_rows: list[int]  # rows read from each file (IDX: each images/labels pair)


def read_csv_parts(spec: Spec, folder: Path, files: Sequence[str], dtype) -> Table:
    """Read and concatenate CSV files (one header, same columns) into one table."""
    header: list[str] | None = None
    blocks = []
    for f in files:
        h, cells = _read_csv(folder / f)
        if header is None:
            header = h
        elif h != header:
            raise ValueError(f"{folder / f}: header differs from {folder / files[0]}")
        blocks.append(cells)
    assert header is not None
    cells = np.concatenate(blocks, axis=0)
    where = str(folder)

    label_names = None
    if spec.task == "multilabel":
        label_names = (folder / "labels.txt").read_text(encoding="utf-8").split("\n")
        label_names = [s.strip() for s in label_names if s.strip()]
        k = len(label_names)
        if header[-k:] != label_names:
            raise ValueError(f"{where}: the last {k} columns are not labels.txt in order")
        lab = cells[:, -k:]
        if not np.isin(lab, ("0", "1")).all():
            raise ValueError(f"{where}: label columns hold values other than 0/1")
        y = (lab == "1").astype(np.int8)
        feat_cols = list(range(len(header) - k))
    else:
        if header[-1] != "class":
            raise ValueError(f"{where}: last column is {header[-1]!r}, expected 'class'")
        y = _labels(cells[:, -1], where)
        feat_cols = list(range(len(header) - 1))

    for d in spec.drop:
        if d not in header:
            raise ValueError(f"{where}: expected an identifier column {d!r} to drop")
    feat_cols = [j for j in feat_cols if header[j] not in spec.drop]
    names = [header[j] for j in feat_cols]
    cells = cells[:, feat_cols]

    categories: dict[int, list[str]] = {}
    if spec.all_categorical:
        X = np.empty(cells.shape, dtype=dtype)
        for j in range(cells.shape[1]):
            X[:, j], categories[j] = _encode_categorical(cells[:, j], dtype)
    else:
        X = _to_float(cells, names, where, dtype)
    return Table(
        X=np.ascontiguousarray(X),
        y=y,
        feature_names=names,
        categorical=sorted(categories),
        categories=categories,
        label_names=label_names,
        part_rows=[b.shape[0] for b in blocks],
    )


def _read_idx(path: Path) -> np.ndarray:
    """One gzip IDX file (uint8 payload) as an array of its declared shape."""
    with gzip.open(path, "rb") as fh:
        buf = fh.read()
    (magic,) = struct.unpack_from(">I", buf, 0)
    ndim, type_code = magic & 0xFF, (magic >> 8) & 0xFF
    if magic >> 16 != 0 or type_code != 0x08 or ndim == 0:
        raise ValueError(f"{path}: not a uint8 IDX file (magic {magic})")
    dims = struct.unpack_from(f">{ndim}I", buf, 4)
    data = np.frombuffer(buf, dtype=np.uint8, offset=4 + 4 * ndim)
    if data.size != int(np.prod(dims)):
        raise ValueError(f"{path}: {data.size} bytes of data, header says {dims}")
    return data.reshape(dims)


def read_idx_parts(folder: Path, files: Sequence[str], dtype) -> Table:
    """Read (images, labels) IDX file pairs and concatenate them."""
    Xs, ys = [], []
    for img, lab in zip(files[0::2], files[1::2], strict=True):
        images = _read_idx(folder / img)
        labels = _read_idx(folder / lab)
        if images.shape[0] != labels.shape[0] or labels.ndim != 1:
            raise ValueError(f"{folder}: {img} and {lab} disagree on the number of rows")
        Xs.append(images.reshape(images.shape[0], -1))
        ys.append(labels.astype(np.int64))
    X = np.concatenate(Xs).astype(dtype)
    rows, cols = images.shape[1:] if images.ndim == 3 else (1, X.shape[1])
    names = [f"pixel_{r}_{c}" for r in range(rows) for c in range(cols)]
    return Table(
        X=X,
        y=np.concatenate(ys),
        feature_names=names,
        categorical=[],
        categories={},
        label_names=None,
        part_rows=[len(part) for part in ys],
    )
