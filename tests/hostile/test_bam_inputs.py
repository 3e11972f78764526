"""BAM files damaged after their header (bytes flipped, a block cut, zeros, a block of
another file): one line naming the file, exit 1, and none of htslib's own ``[E::...]``
lines nor a "Closing failed" of a file that exists."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from penlearn.cli.main import main
from penlearn.peaks.formats.bam import read_bam

pysam = pytest.importorskip("pysam", reason="pysam (extra penlearn[bam]) is not installed")

EOF_BLOCK = bytes.fromhex("1f8b08040000000000ff0600424302001b0003000000000000000000")


def _bam(path, n=400, seed=0) -> bytes:
    rng = np.random.default_rng(seed)
    header = {"HD": {"VN": "1.6", "SO": "coordinate"}, "SQ": [{"SN": "chr1", "LN": 50_000}]}
    with pysam.AlignmentFile(str(path), "wb", header=header) as out:
        for i, pos in enumerate(np.sort(rng.integers(0, 49_000, n))):
            a = pysam.AlignedSegment()
            a.query_name, a.flag, a.reference_id = f"r{i}", 0, 0
            a.reference_start, a.mapping_quality, a.cigarstring = int(pos), 30, "50M"
            a.query_sequence = "A" * 50
            out.write(a)
    return path.read_bytes()


def _blocks(data: bytes) -> list[tuple[int, int]]:
    """(offset, size) of every BGZF block."""
    out, off = [], 0
    while off < len(data):
        size = struct.unpack("<H", data[off + 16:off + 18])[0] + 1
        out.append((off, size))
        off += size
    return out


def _flip(data, blocks):
    off, size = blocks[1]
    b = bytearray(data)
    for i in range(off + 30, off + min(size, 200)):
        b[i] ^= 0x5A
    return bytes(b)


def _zeros(data, blocks):
    off, size = blocks[1]
    return data[:off + 18] + b"\x00" * (size - 18) + data[off + size:]


def _cut_keep_eof(data, blocks):
    off, size = blocks[1]
    return data[:off + size // 2] + EOF_BLOCK


def _other_block(data, blocks):
    return data[:blocks[1][0]] + data[:blocks[0][1]] + EOF_BLOCK  # a second header block


def _no_eof(data, blocks):
    return data[:blocks[-1][0]]


@pytest.mark.parametrize("damage", [_flip, _zeros, _cut_keep_eof, _other_block, _no_eof])
def test_a_bam_damaged_after_its_header_is_one_line(tmp_path, capfd, damage):
    good = _bam(tmp_path / "good.bam")
    assert read_bam(tmp_path / "good.bam")["count"].sum() > 0
    bad = tmp_path / "bad.bam"
    bad.write_bytes(damage(good, _blocks(good)))
    capfd.readouterr()
    code = main(["peaks", str(bad), "--penalty", "1", "--out", str(tmp_path / "o.bed"), "-q"])
    err = capfd.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 1 and len(lines) == 1, err
    assert str(bad) in lines[0] and "[E::" not in err and "Closing failed" not in err
    assert not (tmp_path / "o.bed").exists()


def test_damaged_bam_in_a_folder_names_that_file(tmp_path, capfd):
    folder = tmp_path / "bams"
    folder.mkdir()
    good = _bam(folder / "a.bam")
    (folder / "b.bam").write_bytes(_flip(good, _blocks(good)))
    capfd.readouterr()
    code = main(["peaks", str(folder), "--penalty", "1", "--out", str(tmp_path / "o"), "-q"])
    err = capfd.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "b.bam" in err and "[E::" not in err, err
