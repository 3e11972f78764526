"""Validation that holds out whole groups of sequences (genomic regions).

A ChIP-seq user labels a few genomic regions and predicts peaks on the rest of the
genome: the new sequences are *other regions* of the same samples. A validation set
made of other samples of the training regions flatters a learned penalty exactly where
it fails on new regions (feature values beyond the training range), so every choice made
on validation (iterate, model class, level of log λ) holds out whole groups here.

The UCI ChIP-seq ids (Hocking et al. 2017) are
``<set>/samples/<group>/<sample>/problems/<chrom>:<start>-<end>``; the coverage pipeline's
ids are ``<sample>/<chrom>:<start>-<end>``. :func:`region_groups` takes the trailing
``chrom:start-end`` as the group; :func:`group_split`
(:func:`penlearn._folds.alternate_split`) sends whole groups to subtrain or validation.
"""

from __future__ import annotations

import re

import pandas as pd

from penlearn._folds import alternate_split as group_split

__all__ = ["check_groups", "group_split", "region_groups", "sequence_region"]

_REGION = re.compile(r"(?:^|/)(chr[^/:]+:\d+-\d+)$")


def sequence_region(sequence_id) -> str | None:
    """The ``chrom:start-end`` region that ends a ChIP-seq sequence id, else None.

    Examples
    --------
    >>> sequence_region("H3K9me3_TDH_BP/samples/bcell/ERS206573/problems/chr4:6827-7542")
    'chr4:6827-7542'
    >>> sequence_region("McGill0012/chr21:43118550-43459313")
    'chr21:43118550-43459313'
    >>> sequence_region("100_chr17") is None
    True
    """
    m = _REGION.search(sequence_id) if isinstance(sequence_id, str) else None
    return None if m is None else m.group(1)


def region_groups(ids) -> pd.Series | None:
    """The genomic region of each sequence id, or None unless every id ends in one.

    Parameters
    ----------
    ids : sequence of str
        Sequence ids, e.g.
        ``H3K4me3_TDH_immune/samples/tcell/McGill0008/problems/chr1:17175658-29878082``.

    Returns
    -------
    Series or None
        Indexed by the ids, the ``chrom:start-end`` part; None when some id has none or
        when all ids share one region (no group split is possible then).

    Examples
    --------
    >>> ids = ["a/problems/chr1:1-9", "b/problems/chr1:1-9", "a/problems/chr2:5-8"]
    >>> region_groups(ids).tolist()
    ['chr1:1-9', 'chr1:1-9', 'chr2:5-8']
    >>> region_groups(["1_chr1", "2_chr1"]) is None
    True
    """
    ids = list(ids)
    regions = [sequence_region(i) for i in ids]
    if None in regions:
        return None
    if len(set(regions)) < 2:
        return None
    return pd.Series(regions, index=pd.Index(ids, name="sequence_id"), name="group")


def check_groups(groups, ids) -> pd.Series:
    """``groups`` as a Series indexed by ``ids`` (a ValueError names a missing id).

    Parameters
    ----------
    groups : Series or dict
        Group label per sequence id (extra ids are ignored).
    ids : sequence
        The training sequence ids, each of which needs a group.

    Examples
    --------
    >>> check_groups({"a": 1, "b": 2, "z": 3}, ["a", "b"]).tolist()
    [1, 2]
    >>> check_groups(pd.Series({"a": 1}), ["a", "b"])
    Traceback (most recent call last):
    ...
    ValueError: groups has no group for 1 training sequence(s), e.g. ['b']
    """
    if isinstance(groups, dict):
        groups = pd.Series(groups)
    if not isinstance(groups, pd.Series):
        raise TypeError("groups must be a pandas Series indexed by sequence id, got "
                        f"{type(groups).__name__}")
    if groups.index.has_duplicates:
        dup = groups.index[groups.index.duplicated()][0]
        raise ValueError(f"groups has more than one entry for sequence {dup!r}")
    g = groups.reindex(pd.Index(list(ids)))
    missing = g.index[g.isna()]
    if len(missing):
        raise ValueError(f"groups has no group for {len(missing)} training sequence(s), "
                         f"e.g. {list(missing[:3])}")
    return g
