"""Single-end fragments held between ``callpeak``'s passes as their sorted starts,
delta-coded (``penlearn.peaks.formats.fragment_starts``, issue 55): the same starts
back, the same pileup as the reads', in about two bytes a fragment."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from penlearn.peaks.formats._pileup_kernel import extended_depth_runs, extended_starts
from penlearn.peaks.formats.fragment_starts import pack_starts, packed_pileup
from penlearn.peaks.formats.read_arrays import ReadArrays, chrom_pileup


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(-300, 2**31 - 1), max_size=60),
       st.sampled_from([np.int32, np.int64]))
def test_packed_starts_are_the_starts(values, dtype):
    lo = np.sort(np.asarray(values, np.int64)).astype(dtype)
    got = pack_starts(lo, 200, None).starts()
    assert got.dtype == lo.dtype and got.tolist() == lo.tolist()


def test_packed_starts_hold_two_bytes_a_fragment():
    rng = np.random.default_rng(0)
    lo = np.sort(rng.integers(0, 150_000_000, 1_000_000)).astype(np.int32)
    p = pack_starts(lo, 200, None)
    assert p.nbytes < 2.01 * len(lo)
    assert np.array_equal(p.starts(), lo)
    # differences of 2^16 and more (sparse stretches) held apart, exactly
    lo = np.array([0, 65535, 65536 + 65535, 2**31 - 1], np.int32)
    p = pack_starts(lo, 200, None)
    assert p.large.tolist() == [65536, 2**31 - 1 - 65536 - 65535]
    assert p.starts().tolist() == lo.tolist()


def test_pack_starts_refuses_unsorted_starts():
    with pytest.raises(ValueError, match="sorted"):
        pack_starts(np.array([5, 3], np.int32), 200, None)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5000), st.booleans()), max_size=80),
       st.integers(1, 400), st.integers(-50, 50), st.sampled_from([None, 3000, 6000]))
def test_packed_pileup_is_the_reads_pileup(reads, extsize, shift, size):
    five = np.array([r[0] for r in reads], np.int32)
    reverse = np.array([r[1] for r in reads], bool)
    if size is not None:
        five = np.minimum(five, size - 1)
    order = np.argsort(five, kind="stable")
    five, reverse = five[order], reverse[order]
    want = extended_depth_runs(five, reverse, extsize, shift, size)
    arrays = ReadArrays(False, {"c": (five, reverse, None)},
                        None if size is None else {"c": size})
    runs, packed = packed_pileup(five, reverse, extsize, shift, size)
    for got in (runs, packed.pileup(), chrom_pileup(arrays, "c", extsize, shift)):
        assert [x.tolist() for x in got] == [x.tolist() for x in want]
    assert packed.starts().tolist() == extended_starts(five, reverse, extsize, shift,
                                                       size).tolist()
