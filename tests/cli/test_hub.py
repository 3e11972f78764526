"""``penlearn hub``: every file the hub references exists and reads back (with
pyBigWig, independently of the pybigtools that wrote it) holding what it should."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import penlearn as pl
from penlearn.cli.main import main

pybigwig = pytest.importorskip("pyBigWig")
pytest.importorskip("pybigtools", reason="pybigtools (optional extra penlearn[hub]) is not "
                    "installed")

SIZES = {"chr2": 900, "chr1": 1200}


def _settings(path: Path) -> list[tuple[str, str]]:
    out = []
    for line in path.read_text().splitlines():
        parts = line.strip().split(None, 1)
        if len(parts) == 2:
            out.append((parts[0], parts[1]))
    return out


def _stanzas(path: Path) -> list[dict]:
    blocks, cur = [], {}
    for line in path.read_text().splitlines() + [""]:
        if not line.strip():
            if cur:
                blocks.append(cur)
            cur = {}
            continue
        k, v = line.strip().split(None, 1)
        cur[k] = v
    return blocks


def _coverage(rng, samples) -> pd.DataFrame:
    rows = []
    for s in samples:
        for chrom, n in SIZES.items():
            cuts = np.r_[0, np.sort(rng.choice(np.arange(1, n - 100), 30, replace=False))]
            counts = rng.poisson(np.where(rng.random(30) < 0.2, 25, 2))
            rows.append(pd.DataFrame({"sample_id": s, "chrom": chrom,
                                      "chromStart": cuts[:-1], "chromEnd": cuts[1:],
                                      "count": counts}))
    return pd.concat(rows, ignore_index=True)


def _bigwig(path, cov: pd.DataFrame) -> None:
    bw = pybigwig.open(str(path), "w")
    bw.addHeader(list(SIZES.items()))
    bw.addEntries(cov["chrom"].tolist(), cov["chromStart"].tolist(),
                  ends=cov["chromEnd"].tolist(), values=cov["count"].astype(float).tolist())
    bw.close()


def _read_big(path: Path):
    f = pybigwig.open(str(path))
    assert f is not None, path
    try:
        chroms = dict(f.chroms())
        if f.isBigWig():
            return "bigWig", chroms, {c: [tuple(iv) for iv in (f.intervals(c) or ())]
                                      for c in chroms}
        assert f.isBigBed()
        return "bigBed", chroms, {c: [e[:2] for e in (f.entries(c, 0, n) or ())]
                                  for c, n in chroms.items()}
    finally:
        f.close()


def test_hub_of_a_peaks_run_reads_back(tmp_path, capsys):
    rng = np.random.default_rng(31)
    samples = ["kidney/A", "B"]
    cov = _coverage(rng, samples)
    (tmp_path / "cov" / "kidney" / "A").mkdir(parents=True)  # sample id kidney/A
    _bigwig(tmp_path / "cov" / "kidney" / "A" / "coverage.bigWig",
            cov[cov["sample_id"] == "kidney/A"])
    _bigwig(tmp_path / "cov" / "B.bw", cov[cov["sample_id"] == "B"])
    assert main(["peaks", str(tmp_path / "cov"), "--penalty", "50", "--out",
                 str(tmp_path / "peaks"), "-q"]) == 0
    labels = pd.DataFrame({"sample_id": ["kidney/A", "kidney/A", "B"],
                           "chrom": ["chr1", "chr2", "chr1"], "chromStart": [100, 0, 100],
                           "chromEnd": [400, 300, 400],
                           "annotation": ["peaks", "noPeaks", "peakStart"]})
    labels.to_csv(tmp_path / "labels.csv", index=False)
    hub = tmp_path / "hub"
    assert main(["hub", str(tmp_path / "cov"), str(tmp_path / "peaks"), "--genome", "hg19",
                 "--out", str(hub), "--labels", str(tmp_path / "labels.csv"), "-q"]) == 0
    assert "wrote" in capsys.readouterr().out

    hub_txt = dict(_settings(hub / "hub.txt"))
    assert {"hub", "shortLabel", "longLabel", "genomesFile", "email"} <= set(hub_txt)
    genomes = dict(_settings(hub / hub_txt["genomesFile"]))
    assert genomes["genome"] == "hg19"
    db = hub / genomes["trackDb"]
    stanzas = _stanzas(db)
    names = [s["track"] for s in stanzas]
    assert len(set(names)) == len(names)
    for s in stanzas:  # every parent is a track of the file
        if "parent" in s:
            assert s["parent"].split()[0] in names
    container = next(s for s in stanzas if s["track"] == "coverage")
    assert container["container"] == "multiWig" and container["type"] == "bigWig"

    seen = {"bigWig": [], "bigBed": []}
    for s in stanzas:
        if "bigDataUrl" not in s:
            continue
        path = db.parent / s["bigDataUrl"]
        assert path.is_file(), path
        kind, chroms, data = _read_big(path)
        assert s["type"].split()[0] == kind
        # the real chromosome sizes of the input bigWigs' headers
        assert all(chroms[c] == SIZES[c] for c in chroms)
        seen[kind].append((s, data))
        parent = s["parent"].split()[0]
        label = s["shortLabel"]
        if parent == "coverage":
            sid = label
            want = cov[(cov["sample_id"] == sid) & (cov["count"] > 0)]
            for c in SIZES:
                w = want[want["chrom"] == c]
                assert data.get(c, []) == list(zip(w["chromStart"], w["chromEnd"],
                                                   w["count"].astype(float)))
        elif parent == "peaks":
            sid = label.removesuffix(" peaks")
            bed = pl.read_bed(tmp_path / "peaks" / (sid.replace("/", "%2F") + ".bed"))
            assert len(bed) > 0
            for c in SIZES:
                w = bed[bed["chrom"] == c]
                assert data.get(c, []) == list(zip(w["chromStart"], w["chromEnd"]))
        else:
            assert parent == "labels"
            sid, ann = label.rsplit(" ", 1)
            w = labels[(labels["sample_id"] == sid) & (labels["annotation"] == ann)]
            got = [(c, *e) for c, es in data.items() for e in es]
            assert sorted(got) == sorted(zip(w["chrom"], w["chromStart"], w["chromEnd"]))
    assert len(seen["bigWig"]) == 2 and len(seen["bigBed"]) == 2 + 3
    # labels of a sample the coverage does not have are an error
    labels.assign(sample_id="C").to_csv(tmp_path / "labels.csv", index=False)
    assert main(["hub", str(tmp_path / "cov"), str(tmp_path / "peaks"), "--genome", "hg19",
                 "--out", str(tmp_path / "hub2"), "--labels", str(tmp_path / "labels.csv"),
                 "-q"]) == 1
    assert "'C'" in capsys.readouterr().err


def test_hub_checks_before_writing(tmp_path, capsys):
    rng = np.random.default_rng(1)
    cov = _coverage(rng, ["s1"]).drop(columns="sample_id")
    bg = tmp_path / "s1.bedGraph"
    cov.to_csv(bg, sep="\t", header=False, index=False)
    (tmp_path / "p.bed").write_text("chr1\t10\t20\nchr3\t5\t9\n")
    sizes = tmp_path / "sizes"
    sizes.write_text("chr1\t1200\nchr2\t900\n")
    code = main(["hub", str(bg), str(tmp_path / "p.bed"), "--genome", "hg19", "--out",
                 str(tmp_path / "hub"), "--chrom-sizes", str(sizes)])
    assert code == 1 and "chr3" in capsys.readouterr().err
    assert not (tmp_path / "hub").exists()
    code = main(["hub", str(bg), str(tmp_path / "p.bed"), "--genome", "hg 19", "--out",
                 str(tmp_path / "hub")])
    assert code == 1 and "assembly" in capsys.readouterr().err
    # bedGraph without sizes: a warning, files end at the last covered base
    (tmp_path / "p.bed").write_text("chr1\t10\t20\n")
    assert main(["hub", str(bg), str(tmp_path / "p.bed"), "--genome", "hg19", "--out",
                 str(tmp_path / "hub")]) == 0
    assert "--chrom-sizes" in capsys.readouterr().err
    kind, chroms, _ = _read_big(tmp_path / "hub" / "hg19" / "coverage" / "1.bw")
    assert chroms == {c: int(cov[cov["chrom"] == c]["chromEnd"].max()) for c in SIZES}


def test_peak_bigbeds_carry_name_and_score(tmp_path):
    """Issue 39: the peaks' bigBeds were BED3; now BED6 (autoSql ``bed6``), read back with
    pyBigWig: ``<sample>_peak<k>``, the mean scaled to 0-1000 (the strongest peak 1000)."""
    rng = np.random.default_rng(5)
    cov = _coverage(rng, ["s1", "s2"])
    peaks = pd.DataFrame({"sample_id": ["s1", "s1", "s2"], "chrom": ["chr1", "chr1", "chr2"],
                          "chromStart": [100, 500, 40], "chromEnd": [200, 650, 90],
                          "signalValue": [10.0, 25.0, 3.0]})
    pl.write_track_hub(tmp_path / "hub", "hg19", cov, peaks, chrom_sizes=SIZES)
    root = tmp_path / "hub" / "hg19"
    stanzas = {s["track"]: s for s in _stanzas(root / "trackDb.txt")}
    got = {}
    for k in (1, 2):
        assert stanzas[f"peaks_{k}"]["type"] == "bigBed 6"
        bb = pybigwig.open(str(root / "peaks" / f"{k}.bb"))
        try:
            assert "table bed6" in bb.SQL().decode()
            got[k] = [(c, s, e, *rest.split("\t")) for c, n in bb.chroms().items()
                      for s, e, rest in (bb.entries(c, 0, n) or [])]
        finally:
            bb.close()
    assert got[1] == [("chr1", 100, 200, "s1_peak1", "400", "."),
                      ("chr1", 500, 650, "s1_peak2", "1000", ".")]
    assert got[2] == [("chr2", 40, 90, "s2_peak1", "1000", ".")]


def _bigbed_rows(path: Path) -> list[tuple]:
    bb = pybigwig.open(str(path))
    try:
        assert "table bed6" in bb.SQL().decode()
        return [(c, s, e, *rest.split("\t")) for c, n in bb.chroms().items()
                for s, e, rest in (bb.entries(c, 0, n) or [])]
    finally:
        bb.close()


def test_hub_of_a_peak_folder_carries_the_files_names_and_scores(tmp_path, capsys):
    """Issue 39: peaks from a folder of per-sample files were read as BED3, so every
    bigBed score was 1000. Now a narrowPeak's (and a BED5's) names reach the hub as the
    files hold them, and their scores by the one rule of BED (issue 47 (g): scaled so
    that the sample's strongest peak is 1000; 'penlearn peaks' files, whose strongest is
    1000, unchanged); BED files naming every peak after the sample get
    ``<sample>_peak<k>``; a BED3 sample gets 1000."""
    rng = np.random.default_rng(8)
    samples = ["kidney/A", "B", "C", "D"]
    cov = _coverage(rng, samples)
    cov.to_csv(tmp_path / "coverage.csv", index=False)
    folder = tmp_path / "peaks"
    folder.mkdir()
    # a MACS-like narrowPeak (unsorted, scores not scaled to the strongest peak)
    (folder / "kidney%2FA.narrowPeak").write_text(
        "chr2\t40\t90\tmacs_peak_3\t37\t.\t4.1\t9.2\t5.5\t20\n"
        "chr1\t100\t200\tmacs_peak_1\t512\t.\t8.0\t20.1\t17.3\t40\n"
        "chr1\t500\t650\tmacs_peak_2\t0\t.\t2.5\t3.0\t1.1\t70\n")
    (folder / "B.bed").write_text("chr1\t300\t400\tb1\t250\nchr2\t10\t30\tb2\t.\n")
    # as 'penlearn peaks' writes BED: name = sample, score = the peak's mean
    (folder / "C.bed").write_text("chr1\t10\t20\tC\t12.5\nchr1\t50\t60\tC\t50.0\n")
    (folder / "D.bed").write_text("chr1\t10\t20\n")
    read = pl.read_peak_files(folder)
    assert read.columns.tolist() == ["sample_id", "chrom", "chromStart", "chromEnd",
                                     "name", "score"]
    hub = tmp_path / "hub"
    assert main(["hub", str(tmp_path / "coverage.csv"), str(folder), "--genome", "hg19",
                 "--out", str(hub), "--chrom-sizes", _sizes_file(tmp_path), "-q"]) == 0
    capsys.readouterr()
    root = hub / "hg19"
    stanzas = {s["shortLabel"]: s for s in _stanzas(root / "trackDb.txt")
               if s.get("parent", "").startswith("peaks")}
    got = {k.removesuffix(" peaks"): sorted(_bigbed_rows(root / s["bigDataUrl"]))
           for k, s in stanzas.items()}
    assert got == {
        "kidney/A": [("chr1", 100, 200, "macs_peak_1", "1000", "."),
                     ("chr1", 500, 650, "macs_peak_2", "0", "."),
                     ("chr2", 40, 90, "macs_peak_3", "72", ".")],
        "B": [("chr1", 300, 400, "b1", "1000", "."), ("chr2", 10, 30, "b2", "0", ".")],
        "C": [("chr1", 10, 20, "C_peak1", "250", "."),
              ("chr1", 50, 60, "C_peak2", "1000", ".")],
        "D": [("chr1", 10, 20, "D_peak1", "1000", ".")],
    }


def _sizes_file(tmp_path: Path) -> str:
    path = tmp_path / "chrom.sizes"
    path.write_text("".join(f"{c}\t{n}\n" for c, n in SIZES.items()))
    return str(path)
