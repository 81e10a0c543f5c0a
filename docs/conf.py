"""Sphinx configuration for the sksmooth documentation."""

import os
import sys

sys.path.insert(0, os.path.abspath(".."))

import sksmooth  # noqa: E402

project = "sksmooth"
author = "sksmooth developers"
copyright = "2026, sksmooth developers"
release = sksmooth.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "numpydoc",
]
autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_static_path = []
templates_path = []
intersphinx_mapping = {}
suppress_warnings = ["toc.not_included"]
