"""The help texts say what --force replaces and what a coverage folder must hold."""

from __future__ import annotations

import re

import pytest

from penlearn.cli.main import build_parser


def _parser(command: str):
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return sub.choices[command]


def _help(command: str) -> str:
    return re.sub(r"\s+", " ", _parser(command).format_help())


@pytest.mark.parametrize("command, target", [
    ("learn", "MODEL.json file"), ("predict", "PREDICTIONS.csv file"),
    ("report", "REPORT.html file"), ("errors", "ERRORS.csv file"), ("peaks", "peak file"),
    ("demo", "a folder"),
    ("segment", "a folder"),
])
def test_force_says_what_it_replaces(command, target):
    force = next(a for a in _parser(command)._actions if "--force" in a.option_strings)
    assert target in force.help, force.help


@pytest.mark.parametrize("command", ["learn", "report"])
def test_data_dir_help_lists_what_a_coverage_folder_holds(command):
    text = _help(command)
    for part in ("coverage.csv[.gz]", "*.bedGraph[.gz]", "*.bw", "*.bigWig", "labels.csv"):
        assert part in text, (command, part)


def test_peaks_coverage_help_names_both_bigwig_suffixes():
    text = _help("peaks")
    assert ".bw" in text and ".bigWig" in text and "coverage.csv[.gz]" in text
