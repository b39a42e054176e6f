"""Where each large data set comes from: public URLs, checksums and the licence, by name.

This module owns the facts a user needs to obtain a set that is not bundled with
confboost: the publisher and licence (``Source.origin``), the original files with the URLs
they are published at and the SHA-256 of their content, and the files ``load`` reads once
they are converted, with the SHA-256 of each.  Every URL, commit and checksum comes from
the set's ``PROVENANCE.md`` in the project's data folder (``shared/data/<name>/``); the
checksums are the first 16 hex digits of the SHA-256 of the *decompressed* content, as
those files list them, so a gzip re-compression does not change them.

``download.py`` downloads and converts; ``locations.py`` words the "not found" message from
``how_to_get``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_MULAN = "https://raw.githubusercontent.com/tsoumakas/mulan/43f6389095ad71984264db4387a8074b22bc7d4a/data/multi-label"
_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases"
_FASHION = (
    "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com",
    "https://raw.githubusercontent.com/zalandoresearch/fashion-mnist/master/data/fashion",
)


@dataclass(frozen=True)
class Original:
    """One file as its publisher distributes it.

    Attributes
    ----------
    stored : str
        Its name in the set's folder (the layout of ``shared/data/<name>/``): the upstream
        name, plus ``.gz`` when the folder keeps it gzip-compressed.
    urls : tuple of str
        Where it is published, tried in order (plain or gzip content both accepted).
    sha256 : str
        First 16 hex digits of the SHA-256 of its decompressed content; empty for an
        archive checked member by member instead.
    members : dict of str -> str
        For a tar archive: member file name -> first 16 hex digits of its SHA-256.
    """

    stored: str
    urls: tuple[str, ...]
    sha256: str
    members: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Source:
    """Where one set comes from and how ``fetch`` rebuilds the files ``load`` reads.

    Attributes
    ----------
    origin : str
        Publisher, upstream location and licence, in one sentence.
    originals : tuple of Original
        The files to download.
    convert : {"copy", "letter", "skin", "mulan", "reuters"}
        The converter of ``download.py`` that turns the originals into ``outputs``.
    outputs : dict of str -> str
        File that ``load`` reads -> first 16 hex digits of the SHA-256 of its
        decompressed content.
    """

    origin: str
    originals: tuple[Original, ...]
    convert: str
    outputs: dict[str, str]


def _mulan(name: str, folder: str, hashes: dict[str, str], reference: str) -> Source:
    originals = tuple(
        Original(stored, (f"{_MULAN}/{folder}/{stored.removesuffix('.gz')}",), hashes[stored])
        for stored in (f"{folder}-train.arff.gz", f"{folder}-test.arff.gz", f"{folder}.xml")
    )
    return Source(
        origin=(
            f"{reference}; the standard Mulan train/test ARFF files and label XML, from the "
            f"Mulan project's repository (github.com/tsoumakas/mulan, data/multi-label/"
            f"{folder}/, commit 43f6389); no licence stated for the data"
        ),
        originals=originals,
        convert="mulan",
        outputs={k: hashes[k] for k in ("train.csv.gz", "test.csv.gz", "labels.txt")},
    )


SOURCES: dict[str, Source] = {
    "letter": Source(
        origin=(
            "UCI Machine Learning Repository, Letter Recognition (Frey & Slate 1991; CC BY "
            "4.0): letter-recognition.data, first 16,000 rows train, last 4,000 test"
        ),
        originals=(Original(
            "letter-recognition.data.gz",
            (f"{_UCI}/letter-recognition/letter-recognition.data",
             "https://raw.githubusercontent.com/kgolofit/MOW-14Z/"
             "f2596d1bdc2eec1bdd546cf9da0bd3f47d438f6a/letter-recognition.data"),
            "2b89f3602cf768d3",
        ),),
        convert="letter",
        outputs={"train.csv.gz": "9aea47fe2c63c197", "test.csv.gz": "98b609b1a012f47b"},
    ),
    "skin-segmentation": Source(
        origin=(
            "UCI Machine Learning Repository, Skin Segmentation (Bhatt & Dhall; CC BY 4.0): "
            "Skin_NonSkin.txt, columns B, G, R, class"
        ),
        originals=(Original(
            "Skin_NonSkin.txt.gz", (f"{_UCI}/00229/Skin_NonSkin.txt",), "008f1fb6a169498d"
        ),),
        convert="skin",
        outputs={"data.csv.gz": "5f41684c57659e7b"},
    ),
    "fashion-mnist": Source(
        origin=(
            "Zalando Research, Fashion-MNIST (Xiao, Rasul & Vollgraf 2017; MIT licence): "
            "the four IDX files of github.com/zalandoresearch/fashion-mnist"
        ),
        originals=tuple(
            Original(stored, tuple(f"{base}/{stored}" for base in _FASHION), digest)
            for stored, digest in (
                ("train-images-idx3-ubyte.gz", "c59f468a2f672dc8"),
                ("train-labels-idx1-ubyte.gz", "bad3541b69d91243"),
                ("t10k-images-idx3-ubyte.gz", "5b4141f0afbad91e"),
                ("t10k-labels-idx1-ubyte.gz", "0402a96d92fd2663"),
            )
        ),
        convert="copy",
        outputs={
            "train-images-idx3-ubyte.gz": "c59f468a2f672dc8",
            "train-labels-idx1-ubyte.gz": "bad3541b69d91243",
            "t10k-images-idx3-ubyte.gz": "5b4141f0afbad91e",
            "t10k-labels-idx1-ubyte.gz": "0402a96d92fd2663",
        },
    ),
    "yeast-ml": _mulan("yeast-ml", "yeast", {
        "yeast-train.arff.gz": "e759dc991ff54694", "yeast-test.arff.gz": "4aaac102bff9669a",
        "yeast.xml": "c3056cc26444b515", "labels.txt": "4c45249d1dc901ed",
        "train.csv.gz": "d842c1c34e34cbe3", "test.csv.gz": "c54bef3e06f3206a",
    }, "Elisseeff & Weston (NIPS 2001) yeast gene functional classes"),
    "scene": _mulan("scene", "scene", {
        "scene-train.arff.gz": "b53ba93bdf412de9", "scene-test.arff.gz": "ea38d20296b3ff7e",
        "scene.xml": "55d8b247b949ad5c", "labels.txt": "d53aa1cbdb62c348",
        "train.csv.gz": "d6a48845411e4625", "test.csv.gz": "c57d4035b378eed4",
    }, "Boutell et al. (Pattern Recognition 2004) scene classification"),
    "enron": _mulan("enron", "enron", {
        "enron-train.arff.gz": "2988cefc1cdf7a80", "enron-test.arff.gz": "2f3aad54a8f54caa",
        "enron.xml": "ed40c92d7f613eed", "labels.txt": "ab15ca96db914eec",
        "train.csv.gz": "da9586de366afb51", "test.csv.gz": "69f98762ce9f8512",
    }, "Enron e-mail topics (UC Berkeley Enron project, prepared by J. Read for MEKA)"),
    "medical": _mulan("medical", "medical", {
        "medical-train.arff.gz": "c764f45756ab1c55", "medical-test.arff.gz": "6be472e75a6c0b09",
        "medical.xml": "51fa9d5c09e48caf", "labels.txt": "0aaf4a8be9adf281",
        "train.csv.gz": "9908d58277184971", "test.csv.gz": "f53ef5ba3add41b9",
    }, "CMC 2007 Medical NLP Challenge radiology reports (Pestian et al., BioNLP 2007)"),
    "reuters21578": Source(
        origin=(
            "Reuters-21578, Distribution 1.0 (D. Lewis; free for research use): the 22 SGML "
            "files of reuters21578.tar.gz in the UCI KDD archive, parsed into one CSV row per "
            "story with the ModApte split"
        ),
        originals=(Original(
            "reuters21578.tar.gz",
            ("https://kdd.ics.uci.edu/databases/reuters21578/reuters21578.tar.gz",
             f"{_UCI}/reuters21578-mld/reuters21578.tar.gz"),
            "",
            # the SHA-256 of each SGML file of the data folder's byte copy (sgml/*.gz)
            members={f"reut2-{i:03d}.sgm": digest for i, digest in enumerate((
                "9ff9bb40624ef992", "1528e7e82d110d88", "99f18068d0518952", "78a3a8d7e04bc9d4",
                "726342c19a658733", "d09de619b6dd2d04", "b5535c0d66b01f49", "aa706007ec84a035",
                "a3994583694a00b7", "29995f606dd1a9bd", "996df6008089bd09", "d3a2782015247d9c",
                "da31035d483851f2", "8f7700bc0455fac3", "ef936bd3e0f36cf7", "6d3bcec73eff871b",
                "be2f03a185fff701", "f370e610b4b1342e", "a5f971bf25448e91", "d3b07097fba2633d",
                "f6ad1b724125c202", "3f5196d32869723c"))},
        ),),
        convert="reuters",
        outputs={"reuters21578.csv.gz": "87761b4298cd5cb1"},
    ),
}  # fmt: skip
"""Name -> ``Source`` for every set that is not bundled with confboost."""


def how_to_get(name: str) -> str:
    """One paragraph saying where set ``name`` comes from and how to make it loadable.

    Parameters
    ----------
    name : str
        A normalised data set name (a key of ``DATASETS``, or ``"reuters21578"``).

    Returns
    -------
    str
        The origin, the ``fetch`` call and where a copy may go instead; empty for a bundled
        set.
    """
    source = SOURCES.get(name)
    if source is None:
        return ""
    return (
        f"{name!r} comes from {source.origin}. Download it once with "
        f"confboost.datasets.fetch({name!r}) (into the cache folder), or put a copy laid out "
        f"like the project's data folder (<folder>/{name}/{', '.join(source.outputs)}) in "
        "the folder named by $CONFBOOST_DATA."
    )
