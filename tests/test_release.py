"""What a release needs from the repository: the licence it declares, one version, the
metadata an installer reads (``make dist`` builds, checks and installs the wheel itself)."""

import re
from importlib.metadata import metadata, version
from pathlib import Path

import tomllib

import confboost

ROOT = Path(__file__).resolve().parents[1]


def test_the_licence_is_declared_as_spdx_and_shipped():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "BSD-3-Clause"  # an SPDX string, not the deprecated table
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("BSD 3-Clause License")
    assert "the confboost developers" in text


def test_the_version_is_written_once():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    project = tomllib.loads(pyproject)["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert 'version = { attr = "confboost.__version__" }' in pyproject
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+|\.dev\d+)?", confboost.__version__)
    assert version("confboost") == confboost.__version__  # the installed metadata reads it


def test_the_installed_metadata_names_the_licence_and_the_extras():
    meta = metadata("confboost")
    assert meta["License-Expression"] == "BSD-3-Clause"
    extras = set(meta.get_all("Provides-Extra"))
    assert {"plot", "dask", "docs"} <= extras
