"""Tests of confboost.datasets.fetch and the search order of load, all offline.

Downloads go to ``file://`` mirrors built in a temporary folder (a few rows in each
publisher's format); a guard makes any other URL fail the test.  When the project's data
folder is present, fetching from a ``file://`` mirror of its originals must rebuild, with
every checksum of PROVENANCE.md verified, the very files ``load`` reads there.
"""

import csv
import gzip
import io
import tarfile
import urllib.request
from pathlib import Path

import pytest

from confboost.datasets import (
    CACHE_DIR_ENV,
    DATA_DIR_ENV,
    SOURCES,
    bundled_data_dir,
    default_cache_dir,
    default_data_dir,
    fetch,
    load,
    load_reuters21578,
    search_path,
)
from confboost.datasets.download import read_arff

_urlopen = urllib.request.urlopen


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """Refuse every URL but file:// ones, and count the opens."""
    opened = []

    def guarded(url, *args, **kwargs):
        if not str(url).startswith("file://"):
            raise AssertionError(f"a test tried to reach the network: {url}")
        opened.append(url)
        return _urlopen(url, *args, **kwargs)

    monkeypatch.setattr(urllib.request, "urlopen", guarded)
    return opened


def _gz(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(text.encode("utf-8")))


_ARFF = """% a sparse Mulan ARFF, 3 words and 2 labels
@relation tiny

@attribute 'a word' {0,1}
@attribute "x,y" {0,1}
@attribute w3 {0,1}
@attribute L2 {0,1}
@attribute L1 {0,1}

@data
{0 1,3 1}
{1 1,2 1,4 1}
{}
"""


def _tiny_mulan(mirror: Path) -> None:
    _gz(mirror / "medical" / "medical-train.arff.gz", _ARFF)
    _gz(mirror / "medical" / "medical-test.arff.gz", _ARFF.replace("{}", "{2 1,3 1,4 1}"))
    (mirror / "medical" / "medical.xml").write_text(
        '<labels xmlns="http://mulan.sourceforge.net/labels">\n'
        '<label name="L1"></label>\n<label name="L2"></label>\n</labels>\n'
    )


def _csv(path: Path) -> list[str]:
    return gzip.open(path, "rt", encoding="utf-8").read().splitlines()


def test_fetch_converts_a_sparse_mulan_copy_and_caches_it(tmp_path, offline):
    _tiny_mulan(tmp_path / "mirror")
    folder = fetch("medical", tmp_path / "cache", mirror=(tmp_path / "mirror").as_uri(),
                   verify=False)
    assert folder == tmp_path / "cache" / "medical"
    # features in file order, then the labels in the XML's order (L1 before L2)
    assert _csv(folder / "train.csv.gz") == [
        'a word,"x,y",w3,L1,L2', "1,0,0,0,1", "0,1,1,1,0", "0,0,0,0,0",
    ]
    assert _csv(folder / "test.csv.gz")[-1] == "0,0,1,1,1"
    assert (folder / "labels.txt").read_text() == "L1\nL2\n"
    # the originals are kept as the data folder keeps them
    assert gzip.decompress((folder / "medical-train.arff.gz").read_bytes()).decode() == _ARFF
    assert len(offline) == 3
    # a second call finds the files and opens nothing, even with the mirror gone
    (tmp_path / "mirror" / "medical" / "medical.xml").unlink()
    assert fetch("medical", tmp_path / "cache", mirror=(tmp_path / "mirror").as_uri()) == folder
    assert len(offline) == 3


def test_fetch_refuses_a_file_whose_checksum_differs(tmp_path):
    _tiny_mulan(tmp_path / "mirror")
    with pytest.raises(ValueError, match=r"medical-train.arff.gz.*SHA-256.*c764f45756ab1c55"):
        fetch("medical", tmp_path / "cache", mirror=(tmp_path / "mirror").as_uri())
    assert not (tmp_path / "cache" / "medical" / "medical-train.arff.gz").exists()


def test_fetch_names_every_url_that_failed(tmp_path):
    with pytest.raises(OSError, match=r"could not download; file://.*letter-recognition"):
        fetch("letter", tmp_path / "cache", mirror=(tmp_path / "empty").as_uri())
    assert not any((tmp_path / "cache" / "letter").iterdir())


def test_fetch_letter_and_skin_layouts(tmp_path):
    mirror = tmp_path / "mirror"
    rows = ["T,2,8,3,5,1,8,13,0,6,6,10,8,0,8,0,8", "I,5,12,3,7,2,10,5,5,4,13,3,9,2,8,4,10"]
    _gz(mirror / "letter" / "letter-recognition.data.gz", "\n".join(rows) + "\n")
    # plain (not gzip) content is accepted too, with tabs and CRLF
    (mirror / "skin-segmentation").mkdir()
    (mirror / "skin-segmentation" / "Skin_NonSkin.txt.gz").write_bytes(
        b"74\t85\t123\t1\r\n255\t255\t255\t2\r\n")
    letter = fetch("letter", tmp_path / "c", mirror=mirror.as_uri(), verify=False)
    train = _csv(letter / "train.csv.gz")
    assert train[0].startswith("x-box,y-box,") and train[0].endswith(",yegvx,class")
    assert train[1:] == ["2,8,3,5,1,8,13,0,6,6,10,8,0,8,0,8,T",
                         "5,12,3,7,2,10,5,5,4,13,3,9,2,8,4,10,I"]
    assert _csv(letter / "test.csv.gz") == train[:1]  # fewer rows than the 16,000 train
    skin = fetch("skin-segmentation", tmp_path / "c", mirror=mirror.as_uri(), verify=False)
    assert _csv(skin / "data.csv.gz") == ["B,G,R,class", "74,85,123,1", "255,255,255,2"]


def test_fetch_for_a_bundled_set_or_an_unknown_name(tmp_path):
    assert fetch("glass", tmp_path) == bundled_data_dir() / "glass"
    with pytest.raises(ValueError, match="valid names"):
        fetch("iris", tmp_path)


def test_read_arff_dense_and_errors():
    names, numeric, rows = read_arff(
        "@relation r\n@attribute a numeric\n@attribute b {x,y}\n@data\n1.5,x\n?,y\n", "f")
    assert names == ["a", "b"] and numeric == [True, False]
    assert rows == [["1.5", "x"], ["?", "y"]]
    with pytest.raises(ValueError, match="f line 4: 1 values, 2 attributes"):
        read_arff("@attribute a numeric\n@attribute b numeric\n@data\n1\n", "f")
    with pytest.raises(ValueError, match="bad sparse entry"):
        read_arff("@attribute a numeric\n@data\n{7 1}\n", "f")
    with pytest.raises(ValueError, match="no @data"):
        read_arff("@attribute a numeric\n", "f")


# ----------------------------------------------------------------- the search order


def test_search_order_data_folder_then_cache_then_bundle(tmp_path, monkeypatch):
    data, cache = tmp_path / "data", tmp_path / "cache"
    monkeypatch.setenv(DATA_DIR_ENV, str(data))
    monkeypatch.setenv(CACHE_DIR_ENV, str(cache))
    assert [what for what, _ in search_path()] == [
        f"data folder (${DATA_DIR_ENV})", f"cache (${CACHE_DIR_ENV})", "bundled"]
    assert default_data_dir() == data and default_cache_dir() == cache
    assert Path(load("emotions").source) == bundled_data_dir() / "emotions"
    for root in (cache, data):  # a copy in the cache wins over the bundle; data over both
        (root / "emotions").mkdir(parents=True)
        for f in (bundled_data_dir() / "emotions").iterdir():
            (root / "emotions" / f.name).write_bytes(f.read_bytes())
        assert Path(load("emotions").source) == root / "emotions"


def test_cache_location_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv(CACHE_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / "confboost"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert default_cache_dir() == Path.home() / ".cache" / "confboost"


def test_missing_large_set_says_where_it_comes_from(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "none"))
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    for name, words in [("scene", "tsoumakas/mulan"), ("fashion-mnist", "zalandoresearch"),
                        ("letter", "archive.ics.uci.edu|UCI"), ("yeast-ml", "Elisseeff")]:
        with pytest.raises(FileNotFoundError) as err:
            load(name)
        message = str(err.value)
        assert f"fetch({name!r})" in message and str(tmp_path / "none") in message
        assert str(tmp_path / "cache") in message
        assert any(w in message for w in words.split("|")), message


def test_every_source_is_complete():
    for name, source in SOURCES.items():
        assert source.origin and source.outputs, name
        assert source.originals, name
        for original in source.originals:
            digests = [original.sha256] if original.sha256 else list(original.members.values())
            assert digests and all(len(d) == 16 for d in digests), (name, original)
            assert original.urls, (name, original)
            assert all(u.startswith(("https://", "http://")) for u in original.urls)


# ----------------------------------------------------------------- against the data folder


def _tar(path: Path, members: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as archive:
        for name, content in members.items():
            info = tarfile.TarInfo(f"reuters21578/{name}")
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))


_SGML = """<!DOCTYPE lewis SYSTEM "lewis.dtd">
<REUTERS TOPICS="YES" LEWISSPLIT="TRAIN" CGISPLIT="TRAINING-SET" OLDID="5544" NEWID="2">
<DATE>26-FEB-1987 15:01:01.79&#5;</DATE>
<TOPICS><D>cocoa</D><D>grain</D></TOPICS>
<PLACES><D>usa</D></PLACES><PEOPLE></PEOPLE><ORGS></ORGS><EXCHANGES></EXCHANGES>
<TEXT>&#2;
<TITLE>BAHIA &lt;COCOA&gt; REVIEW</TITLE>
<DATELINE>    SALVADOR, Feb 26 - </DATELINE><BODY>Showers in the Bahia&#127;
cocoa zone &amp; more.
 Reuter
&#3;</BODY></TEXT>
</REUTERS>
<REUTERS TOPICS="YES" LEWISSPLIT="TEST" CGISPLIT="PUBLISHED-TESTSET" OLDID="1" NEWID="1">
<DATE>01-APR-1987</DATE>
<TOPICS><D>grain</D></TOPICS>
<PLACES></PLACES><PEOPLE></PEOPLE><ORGS></ORGS><EXCHANGES></EXCHANGES>
<TEXT TYPE="BRIEF">&#2;
******<TITLE>GRAIN SHIPMENTS UP</TITLE>
Blah blah blah.
&#3;</TEXT>
</REUTERS>
"""


def test_fetch_parses_the_reuters_sgml_archive(tmp_path):
    members = {f"reut2-{i:03d}.sgm": b"" for i in range(22)}
    members["reut2-000.sgm"] = _SGML.encode("latin-1")
    _tar(tmp_path / "mirror" / "reuters21578" / "reuters21578.tar.gz", members)
    folder = fetch("reuters21578", tmp_path / "c", mirror=(tmp_path / "mirror").as_uri(),
                   verify=False)
    rows = list(csv.reader(io.StringIO(gzip.open(folder / "reuters21578.csv.gz", "rt",
                                                 newline="").read())))
    assert rows[0][:7] == ["newid", "oldid", "lewissplit", "cgisplit", "topics_attr",
                           "modapte", "topics"]
    assert rows[1] == ["1", "1", "TEST", "PUBLISHED-TESTSET", "YES", "test", "grain", "", "",
                       "", "", "01-APR-1987", "BRIEF", "GRAIN SHIPMENTS UP", "",
                       "******GRAIN SHIPMENTS UP\nBlah blah blah."]  # no <BODY>: the text
    assert rows[2][5:7] == ["train", "cocoa;grain"]
    assert rows[2][11:] == ["26-FEB-1987 15:01:01.79&#5;", "NORM", "BAHIA <COCOA> REVIEW",
                            "SALVADOR, Feb 26 -",
                            "Showers in the Bahia\x7f\ncocoa zone & more.\n Reuter"]
    split = load_reuters21578(tmp_path / "c")
    assert split.categories == ["grain"] and split.Y_train.tolist() == [[1]]
    assert split.train_text == ["BAHIA <COCOA> REVIEW\nShowers in the Bahia\x7f\ncocoa zone "
                                "& more.\n Reuter"]
    # a member whose checksum differs is refused
    with pytest.raises(ValueError, match="reut2-000.sgm of .*SHA-256.*9ff9bb40624ef992"):
        fetch("reuters21578", tmp_path / "d", mirror=(tmp_path / "mirror").as_uri())


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.slow) if n in ("fashion-mnist", "reuters21578") else n
    for n in sorted(SOURCES)
])
def test_fetch_rebuilds_the_data_folder_exactly(name, tmp_path):
    shared = default_data_dir()
    if shared is None or not (shared / name / "PROVENANCE.md").is_file():
        pytest.skip(f"no data folder holding {name!r} (set {DATA_DIR_ENV}) to mirror")
    mirror = shared.as_uri()
    if name == "reuters21578":  # the data folder keeps the SGML files, not the archive
        sgml = sorted((shared / name / "sgml").glob("reut2-*.sgm.gz"))
        _tar(tmp_path / "mirror" / name / "reuters21578.tar.gz",
             {f.name[:-3]: gzip.decompress(f.read_bytes()) for f in sgml})
        mirror = (tmp_path / "mirror").as_uri()
    folder = fetch(name, tmp_path, mirror=mirror)  # every checksum verified
    for output in SOURCES[name].outputs:
        a, b = folder / output, shared / name / output
        read = gzip.decompress if output.endswith(".gz") else (lambda x: x)
        assert read(a.read_bytes()) == read(b.read_bytes()), output  # so load reads the same


def test_fetch_does_nothing_when_load_already_finds_the_set(tmp_path, monkeypatch, offline):
    data = tmp_path / "data"
    _tiny_mulan(tmp_path / "mirror")
    fetch("medical", data, mirror=(tmp_path / "mirror").as_uri(), verify=False)
    monkeypatch.setenv(DATA_DIR_ENV, str(data))
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    opened = len(offline)
    assert fetch("medical") == data / "medical"  # found in the data folder
    assert len(offline) == opened and not (tmp_path / "cache").exists()
