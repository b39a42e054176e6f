"""Reuters-21578 with the ModApte split and its 90 topic categories (BoosTexter's benchmark).

Reads ``reuters21578/reuters21578.csv.gz`` of the shared data folder (its PROVENANCE.md
describes it): one row per story with the ``modapte`` split column and the ``;``-separated
``topics``. The usual "90 categories" are the topics that occur in both the ModApte training
and test documents; the documents kept are those with at least one of them (7,770 train and
3,019 test). A document's text is its title and body joined by a newline.
"""

import csv
import gzip
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from confboost.datasets import default_data_dir


@dataclass
class ReutersSplit:
    """The ModApte split of Reuters-21578.

    Attributes
    ----------
    train_text, test_text : list of str
        Title and body of each document.
    Y_train, Y_test : ndarray of shape (n, n_categories), int8
        0/1 topic indicators.
    categories : list of str
        The topic of each column, sorted.
    """

    train_text: list
    Y_train: np.ndarray
    test_text: list
    Y_test: np.ndarray
    categories: list


def load_reuters21578(data_dir=None, min_documents=1):
    """Load Reuters-21578, ModApte split, topics that occur in both train and test.

    Parameters
    ----------
    data_dir : str or Path, optional
        The shared data folder (default ``confboost.datasets.default_data_dir()``).
    min_documents : int, default=1
        Keep topics with at least this many training and this many test documents (1: the
        usual 90 categories).

    Returns
    -------
    ReutersSplit
    """
    data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
    if data_dir is None:
        raise FileNotFoundError("no data folder: set $CONFBOOST_DATA to the shared data folder")
    path = data_dir / "reuters21578" / "reuters21578.csv.gz"
    if not path.exists():
        raise FileNotFoundError(f"{path}: Reuters-21578 is not in the data folder")
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    parts = {"train": [], "test": []}
    with gzip.open(path, "rt", encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["modapte"] in parts:
                topics = [t for t in row["topics"].split(";") if t]
                parts[row["modapte"]].append((row["title"] + "\n" + row["body"], topics))
    counts = {}
    for split, documents in parts.items():
        for _, topics in documents:
            for topic in topics:
                counts.setdefault(topic, {"train": 0, "test": 0})[split] += 1
    categories = sorted(topic for topic, count in counts.items()
                        if count["train"] >= min_documents and count["test"] >= min_documents)
    column = {topic: j for j, topic in enumerate(categories)}
    out = []
    for split in ("train", "test"):
        texts, rows = [], []
        for text, topics in parts[split]:
            kept = [column[t] for t in topics if t in column]
            if kept:
                texts.append(text)
                rows.append(kept)
        Y = np.zeros((len(rows), len(categories)), dtype=np.int8)
        for i, kept in enumerate(rows):
            Y[i, kept] = 1
        out += [texts, Y]
    return ReutersSplit(out[0], out[1], out[2], out[3], categories)
