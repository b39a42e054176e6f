"""Every command over a corpus of bad files exits 2 with one line naming the file, never a
traceback."""

import io
import json

import pytest

from confboost.cli import main

NAMES = "yes, no.\nsize: continuous.\ncolour: red, green, blue.\nbody: text.\n"
DATA = ("1.5, red, cheap pills now, yes.\n2.5, green, team meeting notes, no.\n"
        "0.5, red, cheap now, yes.\n3.0, blue, meeting report, no.\n")

#: (file suffix, content) of each bad file; the others of the stem stay good.
CORPUS = [
    (".names", b""),
    (".names", b"\xff\xfe\x00garbage\x00"),
    (".names", b"yes, no.\nsize continuous\n"),
    (".names", b"yes, no.\nsize: integer.\n"),
    (".names", b"yes, no.\nbody: text:expert_length=3000.\n"),
    (".names", b"yes, no.\nbody: text:drop=(a+)+b.\n"),
    (".names", b"yes, yes.\nsize: continuous.\n"),
    (".names", b"[" * 5000),
    (".data", b"1.5, red\n"),
    (".data", b"\xff\xfe\xfd, red, x, yes.\n"),
    (".data", b"abc, red, cheap, yes.\n"),
    (".data", b"1.5, purple, cheap, yes.\n"),
    (".data", b"1.5, red, cheap, maybe.\n"),
    (".data", b"1e999, red, cheap, yes.\n"),
    (".data", b"\x00" * 64),
    (".test", b"1.5, red\n"),
    (".test", b"\xff\xfe, red, x, yes.\n"),
    (".test", b"1.5, red, cheap, maybe.\n"),
    (".model.json", b""),
    (".model.json", b"{" * 100_000),
    (".model.json", b'{"format": "confboost-model", "version": 3}'),
    (".model.json", b"\x89PNG\r\n\x1a\n"),
    (".model.json", b'{"format": "confboost-model", "version": 2, "estimator": '
                    b'"BoostClassifier", "params": {}, "model": {"alphas": [NaN]}}'),
    (".shyp", b"3\n\nnot a shyp file\n"),
    (".shyp", b"\xff" * 32),
    (".shyp", b"1\n\n   1.0 Text:SGRAM:body:cheap\n" + b"9" * 400 + b"\n"),
]

COMMANDS = [
    ["train", "-n", "2"],
    ["test"],
    ["classify"],
    ["export-shyp"],
    ["import-shyp"],
    ["icsiboost", "-n", "2"],
]


@pytest.fixture()
def stem(tmp_path):
    stem = tmp_path / "corpusstem"
    (tmp_path / "corpusstem.names").write_text(NAMES)
    for suffix in (".data", ".test"):
        (tmp_path / f"corpusstem{suffix}").write_text(DATA)
    assert main(["train", "-S", str(stem), "-n", "3"]) == 0
    assert main(["export-shyp", "-S", str(stem)]) == 0
    return stem


def _run(argv, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("1.5, red, cheap pills\n"))
    try:
        status = main(argv)
    except SystemExit as error:
        status = error.code
    return status, capsys.readouterr().err


@pytest.mark.parametrize(("suffix", "content"), CORPUS,
                         ids=[f"{s}-{i}" for i, (s, _) in enumerate(CORPUS)])
def test_every_command_refuses_a_bad_file_in_one_line(stem, capsys, monkeypatch, suffix,
                                                      content):
    capsys.readouterr()
    bad = stem.with_name(stem.name + suffix)
    good = {p: p.read_bytes() for p in stem.parent.iterdir() if p.is_file()}
    for command in COMMANDS:
        for path, data in good.items():
            path.write_bytes(data)
        bad.write_bytes(content)
        status, err = _run([command[0], "-S", str(stem), *command[1:]], capsys, monkeypatch)
        reads = _reads(command[0], suffix)
        if status == 0:
            assert not reads, f"{command[0]} accepted a bad {suffix}"
            continue
        lines = err.strip().splitlines()
        assert status == 2, (command, suffix, err[-2000:])
        assert len(lines) == 1 and "Traceback" not in err, (command, suffix, err[-2000:])
        assert lines[0].startswith(f"confboost {command[0]}: error:"), lines[0]
        assert stem.name in lines[0], (command, suffix, lines[0])


def _reads(command, suffix):
    """Whether ``command`` must read the file of ``suffix`` (and so refuse it)."""
    if suffix == ".names":
        return True
    if suffix == ".data":
        return command in ("train", "icsiboost")
    if suffix == ".test":
        return command in ("train", "icsiboost", "test")
    if suffix == ".model.json":
        return command in ("test", "export-shyp")
    return command == "import-shyp"


def test_show_refuses_a_bad_model_in_one_line(tmp_path, capsys, monkeypatch):
    for _, content in [c for c in CORPUS if c[0] == ".model.json"]:
        path = tmp_path / "bad.json"
        path.write_bytes(content)
        status, err = _run(["show", "-m", str(path)], capsys, monkeypatch)
        lines = err.strip().splitlines()
        assert status == 2 and len(lines) == 1 and str(path) in lines[0], err[-2000:]
    document = {"format": "confboost-model", "version": 2}
    path.write_text(json.dumps(document))
    status, err = _run(["show", "-m", str(path)], capsys, monkeypatch)
    assert status == 2 and str(path) in err


def test_train_checks_its_output_path_before_training(stem, capsys):
    capsys.readouterr()
    missing = stem.parent / "no-such-folder" / "m.json"
    status = main(["train", "-S", str(stem), "-n", "2", "-o", str(missing)])
    out, err = capsys.readouterr()
    assert status == 2 and str(missing) in err and "no folder" in err
    assert "rnd" not in out  # refused before the first round
