"""Benchmark data sets with their official train/test splits, as numpy arrays.

This package owns the real benchmark data used to test and benchmark confboost: the UCI /
StatLog multiclass sets, Fashion-MNIST and skin-segmentation (large sets for speed), the
Mulan multi-label sets and Reuters-21578 (text).  It reads the copies described, one folder
per set, by ``<data folder>/<name>/PROVENANCE.md`` (source, licence, counts and the
official split); the small sets are bundled inside the package (``datasets/data/<name>/``,
see the README there) so that examples and tests run without any data folder, and the
large ones can be downloaded once from their public sources with ``fetch``.

One module per job:

- ``registry``: ``Split``, ``DatasetInfo``, ``DATASETS`` and each set's reading recipe;
- ``sources``: where each large set comes from (URLs, checksums, licence);
- ``locations``: the search order (data folder, cache, bundled) and the "not found" error;
- ``readers``: gzip CSV and IDX files -> one table;
- ``loader``: ``load``, the split, checked against PROVENANCE.md;
- ``download``: ``fetch``, download, verify and convert into the cache;
- ``reuters``: Reuters-21578, ModApte split (raw text, its own loader).

No preprocessing beyond decoding: numeric features are returned as they are in the files,
nominal features as integer codes, missing values as NaN.

Public API
----------
``load(name, ...) -> Split``
    One data set with its train/test split (official where there is one, otherwise a
    seeded stratified k-fold).
``fetch(name, cache_dir=None) -> Path``
    Download a large set from its public source into the cache, once.
``load_reuters21578(...) -> ReutersSplit``
    Reuters-21578 ModApte, its 90 topics, as text.
``available(data_dir=None) -> list[str]``
    The names loadable from a data folder (or from the default search).
``default_data_dir()``, ``default_cache_dir()``, ``bundled_data_dir()``, ``search_path()``
    The places ``load`` looks, in order.
``DATASETS``
    ``name -> DatasetInfo`` short metadata (task, number of classes, split, size class).
``SOURCES``
    ``name -> Source``: where each large set comes from.
``Split``, ``DatasetInfo``, ``DATA_DIR_ENV``, ``CACHE_DIR_ENV``, ``BUNDLED``.
"""

from confboost.datasets.download import fetch
from confboost.datasets.loader import load
from confboost.datasets.locations import (
    BUNDLED,
    CACHE_DIR_ENV,
    DATA_DIR_ENV,
    available,
    bundled_data_dir,
    default_cache_dir,
    default_data_dir,
    search_path,
)
from confboost.datasets.registry import DATASETS, DatasetInfo, Split
from confboost.datasets.reuters import ReutersSplit, load_reuters21578
from confboost.datasets.sources import SOURCES

__all__ = [
    "BUNDLED",
    "CACHE_DIR_ENV",
    "DATASETS",
    "DATA_DIR_ENV",
    "SOURCES",
    "DatasetInfo",
    "ReutersSplit",
    "Split",
    "available",
    "bundled_data_dir",
    "default_cache_dir",
    "default_data_dir",
    "fetch",
    "load",
    "load_reuters21578",
    "search_path",
]
