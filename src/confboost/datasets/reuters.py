"""Reuters-21578 with the ModApte split and its 90 topic categories (BoosTexter's benchmark).

Reads ``reuters21578/reuters21578.csv.gz`` from the data folder or the cache (the search
of ``locations.py``; the data folder's PROVENANCE.md describes the file): one row per story
with the ``modapte`` split column and the ``;``-separated ``topics``. The usual "90
categories" are the topics that occur in both the ModApte training and test documents; the
documents kept are those with at least one of them (7,770 train and 3,019 test). A
document's text is its title and body joined by a newline. This is the only Reuters loader;
the experiments and benchmarks build on it.

It also owns ``sgml_to_csv``, which ``fetch("reuters21578")`` uses to parse the 22 SGML
files of the distribution into that CSV, byte for byte the data folder's copy.
"""

import csv
import gzip
import io
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from confboost.datasets.locations import search_path
from confboost.datasets.sources import how_to_get

_FILE = "reuters21578.csv.gz"


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
        Folder holding ``reuters21578/reuters21578.csv.gz``; None: the first of the data
        folder and the cache (``confboost.datasets.search_path()``) that holds it.
    min_documents : int, default=1
        Keep topics with at least this many training and this many test documents (1: the
        usual 90 categories).

    Returns
    -------
    ReutersSplit

    Raises
    ------
    FileNotFoundError
        The file is in none of the folders searched; the message names them and says
        where Reuters-21578 comes from.
    """
    path = _find(data_dir)
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


def _find(data_dir):
    """Path of the Reuters CSV under ``data_dir`` or the first searched folder holding it."""
    if isinstance(data_dir, str) and data_dir == "bundled":
        raise FileNotFoundError("Reuters-21578 is not bundled with confboost. "
                                f"{how_to_get('reuters21578')}")
    roots = [Path(data_dir).expanduser()] if data_dir is not None else [
        root for what, root in search_path() if what != "bundled"]
    for root in roots:
        if (root / "reuters21578" / _FILE).is_file():
            return root / "reuters21578" / _FILE
    looked = ", ".join(str(root / "reuters21578" / _FILE) for root in roots)
    raise FileNotFoundError(f"Reuters-21578 not found (looked for {looked}). "
                            f"{how_to_get('reuters21578')}")


# --------------------------------------------------------------------------- SGML -> CSV

CSV_COLUMNS = ("newid", "oldid", "lewissplit", "cgisplit", "topics_attr", "modapte", "topics",
               "places", "people", "orgs", "exchanges", "date", "text_type", "title",
               "dateline", "body")
_STORY = re.compile(r"<REUTERS\b([^>]*)>(.*?)</REUTERS>", re.S)
_ATTRIBUTE = re.compile(r'(\w+)="([^"]*)"')
_CHAR_REF = re.compile(r"&#(\d+);")
_TAG = re.compile(r"<[^>]+>")


def _decode(text):
    """SGML text -> str: control-character references dropped, &#127; and &lt; &gt; &amp;
    decoded, surrounding whitespace stripped."""
    text = _CHAR_REF.sub(lambda m: "" if int(m.group(1)) < 32 else chr(int(m.group(1))), text)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").strip()


def _element(text, tag):
    found = re.search(rf"<{tag}>(.*?)</{tag}>", text, re.S)
    return found.group(1) if found else None


def _categories(story, tag):
    return ";".join(_decode(d) for d in re.findall(r"<D>(.*?)</D>", _element(story, tag) or ""))


def sgml_to_csv(sgml_texts):
    """Parse Reuters-21578's SGML files into the CSV ``load_reuters21578`` reads.

    Parameters
    ----------
    sgml_texts : iterable of str
        The content of ``reut2-000.sgm`` ... ``reut2-021.sgm`` (decoded as Latin-1).

    Returns
    -------
    bytes
        UTF-8 CSV, one header row (``CSV_COLUMNS``) and one row per story sorted by NEWID;
        ``modapte`` is ``train`` (LEWISSPLIT="TRAIN", TOPICS="YES"), ``test`` (TEST, YES)
        or ``unused`` (README §VIII.B); category lists are ``;``-separated; a story with no
        ``<BODY>`` has the tag-stripped text of its ``<TEXT>`` as body.

    Raises
    ------
    ValueError
        A story without a ``<TEXT>`` element or without one of its attributes.
    """
    rows = []
    for sgml in sgml_texts:
        for match in _STORY.finditer(sgml):
            attributes, story = dict(_ATTRIBUTE.findall(match.group(1))), match.group(2)
            text = re.search(r"<TEXT\b([^>]*)>(.*?)</TEXT>", story, re.S)
            try:
                split, topics_attr = attributes["LEWISSPLIT"], attributes["TOPICS"]
                newid, oldid, cgisplit = (attributes[k] for k in ("NEWID", "OLDID", "CGISPLIT"))
            except KeyError as missing:
                raise ValueError(f"Reuters story without the attribute {missing}") from None
            if text is None:
                raise ValueError(f"Reuters story NEWID={newid} has no <TEXT>")
            body = _element(text.group(2), "BODY")
            modapte = {("TRAIN", "YES"): "train", ("TEST", "YES"): "test"}.get(
                (split, topics_attr), "unused")
            rows.append([
                newid, oldid, split, cgisplit, topics_attr, modapte,
                *(_categories(story, tag) for tag in ("TOPICS", "PLACES", "PEOPLE", "ORGS",
                                                      "EXCHANGES")),
                (_element(story, "DATE") or "").strip(),
                dict(_ATTRIBUTE.findall(text.group(1))).get("TYPE", "NORM"),
                _decode(_element(text.group(2), "TITLE") or ""),
                _decode(_element(text.group(2), "DATELINE") or ""),
                _decode(body if body is not None else _TAG.sub("", text.group(2))),
            ])
    rows.sort(key=lambda row: int(row[0]))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")
