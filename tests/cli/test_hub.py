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
