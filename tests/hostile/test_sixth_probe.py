"""The sixth hostile probe (issue 53's goals): read tables whose chromosome is ``NA`` or
empty, damaged gzip blocks, coordinates past 10^18, names with control characters, and
``--extsize`` / ``--shift`` past a BAM position — each one clear line, never a read
dropped unsaid or an internal error."""

from __future__ import annotations

import gzip
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _hostile import Error, check_cases, run_cli, write_file

from penlearn.peaks.formats.reads import read_reads


def _lines(n: int = 300, chrom: str = "chr1") -> list[str]:
    rng = np.random.default_rng(0)
    starts = rng.integers(0, 50_000, n)
    return [f"{chrom}\t{s}\t{s + 36}\tr{i}\t0\t{'+-'[i % 2]}" for i, s in enumerate(starts)]


def _bed(folder: Path, name: str, lines) -> Path:
    return write_file(folder, name, "\n".join(lines) + "\n")


def test_chromosomes_named_like_missing_values_keep_their_reads(tmp_path):
    """pandas read 'NA', 'null', 'None', 'nan', 'N/A' as missing: those reads were dropped
    unsaid (and callpeak then stopped with an internal error)."""
    good = _lines(200)
    cases = []
    for name in ("NA", "null", "None", "nan", "N/A", "NaN"):
        f = _bed(tmp_path, f"{name.replace('/', '_')}.bed", _lines(100, name) + good)
        cases.append((f"chromosome {name!r}",
                      lambda f=f: {c: len(v[0]) for c, v in read_reads(f, "BED").chroms.items()},
                      lambda got, name=name: got == {name: 100, "chr1": 200}))
    check_cases(cases)


def test_an_empty_chromosome_is_named_by_line(tmp_path):
    f = _bed(tmp_path, "e.bed", _lines(50) + ["\t10\t46\tr\t0\t+"])
    out = tmp_path / "o"
    check_cases([
        ("read_reads", lambda: read_reads(f, "BED"), Error("line 51", "column 1", "empty")),
        ("callpeak", lambda: run_cli(["callpeak", "-t", f, "-f", "BED", "--extsize", 200,
                                      "--penalty", 50, "--outdir", out, "--quiet"]),
         Error("line 51", "empty")),
    ])


def test_a_damaged_deflate_block_is_corrupt_gzip_not_an_internal_error(tmp_path):
    """A flipped byte inside the compressed data: zlib.error escaped as exit 70."""
    z = bytearray(gzip.compress("\n".join(_lines(2000)).encode() + b"\n"))
    z[50] ^= 0xFF
    f = write_file(tmp_path, "bad.bed.gz", bytes(z))
    check_cases([
        ("read_reads", lambda: read_reads(f, "BED"), Error("bad.bed.gz", "corrupt gzip")),
        ("callpeak", lambda: run_cli(["callpeak", "-t", f, "-f", "BED", "--extsize", 200,
                                      "--penalty", 50, "--outdir", tmp_path / "o",
                                      "--quiet"]), Error("corrupt gzip")),
    ])


def test_coordinates_past_ten_to_the_18_are_refused_by_line(tmp_path):
    """2^63 - 10 parsed as int64, then its extension wrapped around to a negative end."""
    big = 2**63 - 10
    f = _bed(tmp_path, "big.bed", _lines(50) + [f"chr1\t{big}\t{big + 9}\tr\t0\t+"])
    check_cases([
        ("read_reads", lambda: read_reads(f, "BED"), Error("line 51", "column 2", "too large")),
        ("callpeak", lambda: run_cli(["callpeak", "-t", f, "-f", "BED", "--extsize", 200,
                                      "--penalty", 50, "--outdir", tmp_path / "o",
                                      "--quiet"]), Error("line 51", "too large")),
    ])


def test_control_characters_in_names(tmp_path):
    """'chr1\\x01' was a chromosome of the peaks written; '-n x\\x01y' a file name."""
    f = _bed(tmp_path, "ctl.bed", _lines(300) + _lines(300, "chr2\x01"))
    t = _bed(tmp_path, "t.bed", _lines(300))
    check_cases([
        ("callpeak on chr2\\x01", lambda: run_cli(
            ["callpeak", "-t", f, "-f", "BED", "--extsize", 200, "--penalty", 50, "--outdir",
             tmp_path / "o1", "--quiet"]), Error("chr2\\x01", "control character")),
        ("-n x\\x01y", lambda: run_cli(
            ["callpeak", "-t", t, "-f", "BED", "--extsize", 200, "--penalty", 50, "-n",
             "x\x01y", "--outdir", tmp_path / "o2", "--quiet"]), Error("-n/--name")),
    ])
    assert not (tmp_path / "o2").exists()


def test_extsize_and_shift_past_a_bam_position_are_refused_before_the_reads(tmp_path):
    """10^20 was 'Python int too large to convert to C long', after every read was read."""
    t = _bed(tmp_path, "t.bed", _lines(300))
    check_cases([
        (f"{opt} {v}", lambda opt=opt, v=v: run_cli(
            ["callpeak", "-t", t, "-f", "BED", "--extsize", 200, opt, v, "--penalty", 50,
             "--outdir", tmp_path / "o", "--quiet"]), Error(opt, "at most"))
        for opt, v in (("--extsize", 10**20), ("--shift", 10**20), ("--shift", -(10**20)),
                       ("--extsize", 2**31))])


def _coverage_folder(root: Path, samples) -> tuple[Path, Path]:
    rng = np.random.default_rng(4)
    d = root / "cov"
    d.mkdir()
    for s in samples:
        y = rng.poisson([3] * 40 + [30] * 5 + [3] * 40)
        write_file(d, f"{s}.bedGraph", "".join(f"chr1\t{100 * i}\t{100 * i + 100}\t{c}\n"
                                               for i, c in enumerate(y)))
    y = rng.poisson([3] * 85)
    ctrl = write_file(root, "c.bedGraph", "".join(f"chr1\t{100 * i}\t{100 * i + 100}\t{c}\n"
                                                  for i, c in enumerate(y)))
    return d, ctrl


def test_control_sheets_naming_sample_na_or_holding_no_row(tmp_path):
    """A sample 'NA' (from NA.bedGraph) was an 'empty sample_id cell' in a control sheet
    (pandas' missing values); a sheet of a header only called every sample without a
    control, unsaid."""
    d, ctrl = _coverage_folder(tmp_path, ("NA", "s2"))

    def peaks(text: str, out: str, *quiet):
        sheet = write_file(tmp_path, f"{out}.csv", text)
        return run_cli(["peaks", d, "--control-sheet", sheet, "--penalty", 5, "--out",
                        tmp_path / out, *quiet])

    check_cases([
        ("sample 'NA' named", lambda: peaks(f"sample_id,control\nNA,{ctrl}\ns2,{ctrl}\n", "o1"),
         lambda err: "without a control" not in err and (tmp_path / "o1" / "NA.bed").exists()),
        ("a header only", lambda: peaks("sample_id,control\n", "o2", "-q"),
         Error("--control-sheet", "no row", inputs=[d])),
    ])
    assert not (tmp_path / "o2").exists()


def test_propose_seed_is_checked_by_argparse(tmp_path):
    """``--seed -1`` was NumPy's 'expected non-negative integer', naming no option."""
    d, _ = _coverage_folder(tmp_path, ("s1",))
    check_cases([("propose --seed -1", lambda: run_cli(
        ["propose", d, "--seed", -1, "--out", tmp_path / "w.bed", "-q"]), Error("--seed"))])


def test_a_negative_label_coordinate_is_shown_as_written(tmp_path):
    """``np.int64(-100)`` (NumPy 2's repr) in the message of a labels file's -100."""
    d, _ = _coverage_folder(tmp_path, ("s1",))
    write_file(d, "labels.csv", "sample_id,chrom,chromStart,chromEnd,annotation\n"
               "s1,chr1,-100,2000,noPeaks\n")
    check_cases([("learn", lambda: run_cli(["learn", d, "--out", tmp_path / "m.json", "-q"]),
                  Error("line 2", "has -100"))])
    with pytest.raises(ValueError) as exc:
        run_cli(["learn", d, "--out", tmp_path / "m.json", "-q"])
    assert "np." not in str(exc.value)


def test_slow_requests_beyond_the_cap_do_not_stop_the_labeling_page(tmp_path, monkeypatch):
    """At the connection cap with every connection inside a request (a request line, then
    headers a byte at a time), the server closed the new connection under a lock that
    closing takes again: it stopped accepting for good. The one longest in its request
    is closed instead; the page answers."""
    import json
    import socket
    import urllib.request

    import penlearn.label.server as server_module
    from penlearn.label import label_page

    monkeypatch.setattr(server_module, "MAX_CONNECTIONS", 4)
    rng = np.random.default_rng(1)
    starts = np.arange(0, 4000, 20)
    cov = pd.DataFrame({"sample_id": "s0", "chrom": "chr1", "chromStart": starts,
                        "chromEnd": starts + 20, "count": rng.poisson(3.0, len(starts))})
    page = label_page(cov, tmp_path / "labels.csv", window_bases=2000, max_peaks=5)
    host, port = page.server.server_address[:2]
    slow = []
    try:
        for _ in range(6):
            s = socket.create_connection((host, port), timeout=60)
            s.sendall(f"GET /api/state HTTP/1.1\r\nHost: {host}:{port}\r\nX-Slow: ".encode())
            slow.append(s)
            time.sleep(0.3)  # (its thread reads the request line: in a request now)
        time.sleep(0.5)
        req = urllib.request.Request(page.address + "api/state", headers=page.headers)
        with urllib.request.urlopen(req, timeout=60) as r:  # (a loaded machine is slow)
            assert r.status == 200 and json.loads(r.read())["samples"] == ["s0"]
        assert len(page.server._conns) <= 4
    finally:
        for s in slow:
            s.close()
        stop = threading.Thread(target=page.stop, daemon=True)  # (before the fix: stuck)
        stop.start()
        stop.join(30)


def test_the_page_refuses_a_chromosome_with_a_trailing_nul(tmp_path):
    """``POST /api/label`` with chrom ``"chr1\\u0000"`` matched chr1's window (NumPy's
    fixed-width text drops trailing NULs) and was written: a labels file that the page,
    ``learn`` and ``errors`` then refuse to read."""
    from penlearn.label.state import LabelState

    rng = np.random.default_rng(1)
    starts = np.arange(0, 4000, 20)
    cov = pd.DataFrame({"sample_id": "s0", "chrom": "chr1", "chromStart": starts,
                        "chromEnd": starts + 20, "count": rng.poisson(3.0, len(starts))})
    path = tmp_path / "labels.csv"
    state = LabelState(cov, path, window_bases=2000, max_peaks=5)
    state.add_label("chr1", 100, 200, "noPeaks", ["s0"])
    before = path.read_bytes()
    check_cases([("chr1\\x00", lambda: state.add_label("chr1\x00", 300, 400, "noPeaks",
                                                       ["s0"]),
                  Error("not inside one window"))])
    assert path.read_bytes() == before
    assert state.delete_label("s0", "chr1\x00", 100, 200) == 0  # (it deleted chr1's)
    assert path.read_bytes() == before
    LabelState(cov, path, window_bases=2000, max_peaks=5)  # still readable


@pytest.mark.parametrize("kind", ["bz2", "xz"])
def test_bzip2_or_xz_files_are_named_as_such(tmp_path, kind):
    """Sixth probe: a .bed.bz2 was '1 tab-separated column(s)', a bedGraph.xz 'not a
    text file': the compression is named, and what to do."""
    import bz2
    import lzma

    from penlearn.peaks.formats.coverage import read_bedgraph
    from penlearn.peaks.formats.reads import read_reads

    text = b"chr1\t0\t100\tr\t0\t+\n"
    pack = bz2.compress if kind == "bz2" else lzma.compress
    reads = tmp_path / f"r.bed.{kind}"
    reads.write_bytes(pack(text))
    cov = tmp_path / f"c.bedGraph.{kind}"
    cov.write_bytes(pack(b"chr1\t0\t100\t3\n"))
    name = "bzip2" if kind == "bz2" else "xz"
    with pytest.raises(ValueError, match=f"{name}-compressed; penlearn reads plain or gzip"):
        read_reads([reads], "BED")
    with pytest.raises(ValueError, match=f"{name}-compressed; penlearn reads plain or gzip"):
        read_bedgraph(cov)
