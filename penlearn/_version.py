"""The installed package version, read once from the package metadata (one place)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["package_version"]


def package_version() -> str:
    """The version of the installed ``penlearn`` distribution.

    Examples
    --------
    >>> isinstance(package_version(), str)
    True
    """
    try:
        return version("penlearn")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"
