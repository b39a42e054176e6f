"""Sphinx configuration of the confboost documentation (``make docs``).

Pages are Markdown (MyST) or reStructuredText; the API reference is generated from the
numpydoc docstrings (autosummary); the gallery (sphinx-gallery) runs ``examples/*.py`` during
the build and shows their figures. Warnings are errors (``sphinx-build -W``).
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
os.environ.setdefault("MPLBACKEND", "Agg")  # the build's own process: figures off-screen

import confboost  # noqa: E402

project = "confboost"
author = "the confboost developers"
copyright = "2026, the confboost developers"  # noqa: A001
release = confboost.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "**/*.md5", "sg_execution_times.rst",
                    "make_figures.py", "_ext"]
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]  # pages taken from the README start at level 2 in places

autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()
numpydoc_xref_param_type = False

html_theme = "furo"
html_title = f"confboost {release}"
html_static_path = []
html_theme_options = {"sidebar_hide_name": False}

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "show_memory": False,
    "plot_gallery": "True",
    "image_scrapers": ("confboost_scraper",),
    "abort_on_example_error": True,
}

templates_path = ["_templates"]


def _skip_member(app, what, name, obj, skip, options):
    """Leave out scikit-learn's metadata-routing setters (``set_fit_request``...): theirs,
    not confboost's, and documented with references to scikit-learn's own site."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)
