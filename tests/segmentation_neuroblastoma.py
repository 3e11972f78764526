"""Cached neuroblastoma inputs for the segmentation / labels / errors / features tests.

The 154 verified raw sequences (``profiles.csv.gz``) mapped to the library's snake_case
conventions, their systematic labels, and one K = 20 segmentation shared by all test
files (computed once per test session).
"""

from __future__ import annotations

from functools import lru_cache

import pandas as pd
from conftest import DATA, need

NB = DATA / "neuroblastoma"


def sequence_ids(profile_id, chromosome) -> pd.Series:
    return profile_id.astype(str) + "_chr" + chromosome.astype(str)


@lru_cache(maxsize=1)
def sequences() -> pd.DataFrame:
    p = pd.read_csv(need(NB / "profiles.csv.gz"), dtype={"chromosome": str})
    return pd.DataFrame(
        {
            "sequence_id": sequence_ids(p["profile.id"], p["chromosome"]),
            "position": p["position"],
            "value": p["logratio"],
        }
    )


@lru_cache(maxsize=1)
def labels() -> pd.DataFrame:
    lab = pd.read_csv(need(NB / "systematic_labels.csv.gz"))
    lab = lab.rename(columns={"sequenceID": "sequence_id", "labelStart": "start",
                              "labelEnd": "end"})
    ids = set(sequences()["sequence_id"])
    return lab[lab["sequence_id"].isin(ids)][["sequence_id", "start", "end", "annotation"]]


@lru_cache(maxsize=1)
def processed_errors() -> pd.DataFrame:
    err = pd.read_csv(need(NB / "processed_errors.csv.gz"))
    return err.rename(
        columns={"sequenceID": "sequence_id", "n.segments": "n_segments",
                 "possible.fp": "possible_fp", "possible.fn": "possible_fn",
                 "min.lambda": "min_lambda", "max.lambda": "max_lambda",
                 "min.log.lambda": "min_log_lambda", "max.log.lambda": "max_log_lambda"}
    )


@lru_cache(maxsize=1)
def segmented():
    from penlearn import segment_sequences

    return segment_sequences(sequences(), 20, progress=False)


@lru_cache(maxsize=1)
def evaluation() -> pd.DataFrame:
    from penlearn import error_functions

    models, changes = segmented()
    return error_functions(models, changes, labels())
