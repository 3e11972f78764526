"""Transitional: ``penlearn/__init__.py`` still imports from here; the code lives in
:mod:`penlearn.line_search.first_min`. Delete this file once the package root imports
``FirstMinResult`` and ``first_min_monotone`` from :mod:`penlearn.line_search`."""

from penlearn.line_search.first_min import FirstMinResult, first_min_monotone

__all__ = ["FirstMinResult", "first_min_monotone"]
