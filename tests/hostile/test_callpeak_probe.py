"""``callpeak``, controls, ``propose`` and few labels against the fifth hostile probe
(issue 53, items 10 and 11): pooled reads, fragments past a chromosome's end, controls of
another naming, control sheets, read tables that are not reads (line and column named),
option values checked before any read is read, a rerun stopped while writing, and the
messages of ``learn`` / ``propose`` / ``prior=``."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _hostile import Error, check_cases, peak_folder, run_cli, uci_folder, write_file

from penlearn.peaks.formats.reads import fragment_coverage, read_reads

CHROM_SIZE = 60_000


def _reads(n: int, seed: int, chrom: str = "chr1", peaks=(15_000, 40_000)) -> list[str]:
    """BED6 lines of ``n`` 36-base reads: a uniform background and two piles of reads
    (fragments of 200 bases) at ``peaks``."""
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(n):
        rev = bool(rng.random() < 0.5)
        if i % 3 == 0:
            frag = int(rng.choice(peaks)) + int(rng.normal(0, 60))
        else:
            frag = int(rng.integers(0, CHROM_SIZE - 300))
        five = frag + 199 if rev else frag
        s = five - 35 if rev else five
        lines.append(f"{chrom}\t{s}\t{s + 36}\tr{i}\t0\t{'-' if rev else '+'}")
    return lines


def _bed(folder: Path, name: str, lines) -> Path:
    return write_file(folder, name, "\n".join(lines) + "\n")


def _callpeak(t, outdir, *extra, name="X"):
    t = [t] if isinstance(t, (str, Path)) else t
    return run_cli(["callpeak", "-t", *t, "-f", "BED", "--extsize", 200, "--penalty", 50,
                    "-n", name, "--outdir", outdir, *extra, "--quiet"])


def _fragments_in_xls(xls: Path) -> int:
    head = [ln for ln in xls.read_text().splitlines() if ln.startswith("# format")][0]
    return int(head.split("fragments: ")[1].split(";")[0])


# --------------------------------------------------------------------------- item 10


def test_treatment_files_are_pooled_before_duplicates_are_counted(tmp_path):
    """``-t A B``: MACS3 pools the reads, then keeps one per location; a read in both
    files is one read (each file deduplicated alone counted it twice)."""
    lines = _reads(600, 1)
    a = _bed(tmp_path, "a.bed", lines)
    b = _bed(tmp_path, "b.bed", lines[:300] + _reads(100, 2))  # 300 reads in both files
    ab = _bed(tmp_path, "ab.bed", lines + lines[:300] + _reads(100, 2))  # one file of both
    pooled = read_reads(ab, "BED").total
    assert pooled < read_reads(a, "BED").total + read_reads(b, "BED").total
    check_cases([
        ("reads of A and B pooled, then one per location",
         lambda: read_reads([a, b], "BED").total, lambda n: n == pooled),
        ("callpeak -t A B counts the pooled reads once",
         lambda: _callpeak([a, b], tmp_path / "out") is not None and _fragments_in_xls(
             tmp_path / "out" / "X_peaks.xls"), lambda n: n == pooled),
    ])


def _pair_bam(path: Path, length: int, pairs) -> Path:
    """A BAM of proper pairs ``(start of mate 1, start of mate 2)`` of 50-base reads on
    one chromosome of ``length`` bases."""
    pysam = pytest.importorskip("pysam")
    header = {"HD": {"VN": "1.6"}, "SQ": [{"SN": "chr1", "LN": length}]}
    with pysam.AlignmentFile(str(path), "wb", header=header) as out:
        for i, (p1, p2) in enumerate(pairs):
            tlen = p2 + 50 - p1
            for pos, mpos, flag, t in ((p1, p2, 0x1 | 0x2 | 0x20 | 0x40, tlen),
                                       (p2, p1, 0x1 | 0x2 | 0x10 | 0x80, -tlen)):
                a = pysam.AlignedSegment()
                a.query_name, a.flag, a.reference_id = f"p{i}", flag, 0
                a.reference_start, a.mapping_quality, a.cigarstring = pos, 30, "50M"
                a.next_reference_id, a.next_reference_start = 0, mpos
                a.template_length, a.query_sequence = t, "A" * 50
                out.write(a)
    return path


def test_bampe_fragments_past_the_chromosome_end_are_clipped_to_it(tmp_path):
    """A fragment whose TLEN runs past its chromosome's end (a mate hanging over it):
    its pileup stops at the chromosome's length, as MACS3's does (no row past it)."""
    rng = np.random.default_rng(3)
    starts = np.sort(rng.integers(0, 9_000, 300))
    pairs = [(int(s), int(s) + 150) for s in starts] + [(9_900, 10_050)] * 3
    bam = _pair_bam(tmp_path / "pe.bam", 10_000, pairs)
    out = tmp_path / "out"
    check_cases([
        ("fragment_coverage of BAMPE reads",
         lambda: fragment_coverage(read_reads(bam, "BAMPE"))["chromEnd"].max(),
         lambda end: end == 10_000),
        ("callpeak -f BAMPE -B: the pileup ends at the chromosome's length",
         lambda: run_cli(["callpeak", "-t", bam, "-f", "BAMPE", "--penalty", 50, "-B",
                          "-n", "PE", "--outdir", out, "--quiet"]) is not None and pd.read_csv(
             out / "PE_treat_pileup.bdg", sep="\t", header=None)[2].max(),
         lambda end: end == 10_000),
    ])


def _bedgraph(folder: Path, name: str, chrom: str, counts) -> Path:
    rows = [f"{chrom}\t{100 * i}\t{100 * i + 100}\t{c}" for i, c in enumerate(counts)]
    return write_file(folder, name, "\n".join(rows) + "\n")


def test_a_control_of_other_chromosome_names_is_refused_naming_both(tmp_path):
    """A control on ``1`` for a treatment on ``chr1`` matched nothing and changed
    nothing: an error naming both sets of names, for callpeak and peaks --control."""
    t = _bed(tmp_path, "t.bed", _reads(600, 1))
    c = _bed(tmp_path, "c.bed", _reads(600, 2, chrom="1"))
    rng = np.random.default_rng(0)
    cov = _bedgraph(tmp_path, "t.bedGraph", "chr1", rng.poisson([3] * 40 + [30] * 5
                                                                + [3] * 40))
    ctrl = _bedgraph(tmp_path, "c.bedGraph", "1", rng.poisson([3] * 85))
    sheet = write_file(tmp_path, "sheet.csv", f"sample_id,control\nt,{ctrl}\n")
    check_cases([
        ("callpeak -c on '1' vs -t on 'chr1'",
         lambda: _callpeak(t, tmp_path / "o1", "-c", c),
         Error("chr1", "control: 1", "-c/--control", inputs=[tmp_path])),
        ("peaks --control on '1'",
         lambda: run_cli(["peaks", cov, "--control", ctrl, "--penalty", 5, "--out",
                          tmp_path / "o2.bed", "-q"]),
         Error("chr1", "control: 1")),
        ("peaks --control-sheet naming a control on '1'",
         lambda: run_cli(["peaks", cov, "--control-sheet", sheet, "--penalty", 5, "--out",
                          tmp_path / "o3.bed", "-q"]),
         Error("chr1", "control: 1")),
    ])


def _two_samples(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A folder of two treatment samples (s1, s2) and a control file on the same
    chromosome."""
    rng = np.random.default_rng(2)
    d = tmp_path / "cov"
    d.mkdir()
    for s in ("s1", "s2"):
        _bedgraph(d, f"{s}.bedGraph", "chr1", rng.poisson([3] * 40 + [30] * 5 + [3] * 40))
    ctrl = _bedgraph(tmp_path, "c.bedGraph", "chr1", rng.poisson([3] * 85))
    return d, ctrl, tmp_path


def test_control_sheets_of_two_rows_empty_cells_or_missing_samples(tmp_path):
    """A sheet with two rows for one sample (the last won, unsaid), an empty control
    cell, header spaces (``sample_id, control``); and a sample without a row is called
    without a control, said on stderr naming it."""
    d, ctrl, root = _two_samples(tmp_path)

    def peaks(sheet_text: str, out: str, *quiet):
        sheet = write_file(root, f"{out}.csv", sheet_text)
        return run_cli(["peaks", d, "--control-sheet", sheet, "--penalty", 5, "--out",
                        root / out, *quiet])

    check_cases([
        ("two rows for s1", lambda: peaks(f"sample_id,control\ns1,{ctrl}\ns1,s2\n", "o1", "-q"),
         Error("'s1'", "2 rows", "--control-sheet", inputs=[d])),
        ("an empty control cell", lambda: peaks("sample_id,control\ns1,\ns2,s1\n", "o2", "-q"),
         Error("empty", "'control'", "s1")),
        ("'sample_id, control' with spaces",
         lambda: peaks(f"sample_id, control\ns1, {ctrl}\ns2, {ctrl}\n", "o3"),
         lambda err: "without a control" not in err and (root / "o3").exists()),
    ])
    err = peaks(f"sample_id,control\ns1,{ctrl}\n", "o4")
    assert "called without a control" in err and "'s2'" in err and "'s1'" not in err, err


def test_extsize_zero_is_refused_as_macs3_refuses_it(tmp_path):
    """``--extsize 0`` became 200 (``or 200``); MACS3 3.1.0 stops with "--extsize must
    >= 1!": so does callpeak, before any read."""
    t = _bed(tmp_path, "t.bed", _reads(600, 1))
    check_cases([
        (f"--extsize {v}", lambda v=v: run_cli(["callpeak", "-t", t, "-f", "BED", "--extsize",
                                                v, "--outdir", tmp_path / "o",
                                                "--quiet"]),
         Error("--extsize", ">= 1"))
        for v in (0, -5)])


def test_read_tables_name_the_file_line_and_column_of_a_bad_value(tmp_path):
    """BED / FRAG coordinates 100.7 (truncated) or 1e20 (overflowed, the read dropped):
    one line naming the file, its line number (every line counted: comments and track
    lines too) and the column, in the file's words (no NumPy repr)."""
    head = "# reads\ntrack name=r\n"
    good = "chr1\t10\t50\tr\t0\t+\n"
    cases = {
        "float.bed": (head + good + "chr1\t100.7\t200\tr\t0\t+\n", "line 4", "column 2",
                      "'100.7'"),
        "big.bed": (good + "\nchr1\t20\t1e20\tr\t0\t-\n", "line 3", "column 3", "'1e20'"),
        "huge.bed": (good + "chr1\t20\t99999999999999999999\tr\t0\t-\n", "line 2",
                     "column 3", "64-bit"),
        "negative.bed": (head + "chr1\t-5\t20\tr\t0\t+\n", "line 3", "column 2", "'-5'"),
        "reversed.bed": (head + good + good + "chr1\t30\t20\tr\t0\t+\n", "line 5",
                         "start < end", "30, 20"),
        "short.bed": (good + "chr1\t10\t20\n", "line 2", "3 tab-separated", "6 columns"),
        "strand.bed": (head + "chr1\t10\t20\tr\t0\t.\n", "line 3", "column 6", "'.'"),
        "frag.tsv": ("# fragments\nchr1\t10\t50\tBC\t2\nchr1\t1.5\t50\tBC\t1\n", "line 3",
                     "column 2", "'1.5'"),
        "count.tsv": ("chr1\t10\t50\tBC\t2\nchr1\t10\t50\tBC\t2.5\n", "line 2",
                      "column 5", "'2.5'"),
        "count0.tsv": ("chr1\t10\t50\tBC\t0\n", "line 1", "column 5", "'0'"),
    }
    out = []
    for name, (text, *needles) in cases.items():
        f = write_file(tmp_path, name, text)
        fmt = "FRAG" if name.endswith(".tsv") else "BED"
        out.append((f"read_reads {name}", lambda f=f, fmt=fmt: read_reads(f, fmt),
                    Error(str(f), *needles)))
        out.append((f"callpeak -f {fmt} {name}",
                    lambda f=f, fmt=fmt: run_cli(["callpeak", "-t", f, "-f", fmt, "--outdir",
                                                  tmp_path / "o", "--quiet"]
                                                 + (["--extsize", 200] if fmt == "BED"
                                                    else [])),
                    Error(str(f), *needles)))
    check_cases(out, at_least=20)
    for _, call, _ in out:  # never a NumPy repr
        with pytest.raises(ValueError) as exc:
            call()
        assert "np." not in str(exc.value) and "numpy" not in str(exc.value)


def test_propose_refuses_a_model_of_another_task(tmp_path):
    """``propose --model`` took a model of any task (a changepoint model's features mean
    other things): refused as ``peaks --model`` refuses it, before the coverage is read."""
    _, changepoint_model = uci_folder()
    d = peak_folder(tmp_path / "p")
    from penlearn import PenaltyModel
    from penlearn.peaks.propose import propose_windows

    cov = pd.read_csv(d / "coverage.csv")
    check_cases([
        ("propose --model (changepoint)",
         lambda: run_cli(["propose", d / "coverage.csv", "--model", changepoint_model,
                          "--out", tmp_path / "w.bed", "-q"]),
         Error("task 'changepoint'", "not 'peaks'", inputs=[d])),
        ("propose_windows(model=path)",
         lambda: propose_windows(cov, 1, model=changepoint_model),
         Error("task 'changepoint'")),
        ("propose_windows(model=PenaltyModel)",
         lambda: propose_windows(cov, 1, model=PenaltyModel.load(changepoint_model)),
         Error("task 'changepoint'")),
    ])


def test_a_rerun_stopped_while_writing_leaves_no_earlier_run_beside_it(tmp_path,
                                                                        monkeypatch):
    """The earlier run's files are removed before the first of a rerun's is written: a
    rerun stopped after its narrowPeak (Ctrl-C, kill) leaves its own files only, never
    the new peaks beside the old summits / xls / pileup."""
    import penlearn.cli.callpeak as callpeak

    t = _bed(tmp_path, "t.bed", _reads(900, 1))
    out = tmp_path / "out"
    _callpeak(t, out, "-B")
    assert sorted(p.name for p in out.iterdir()) == [
        "X_peaks.narrowPeak", "X_peaks.xls", "X_summits.bed", "X_treat_pileup.bdg"]

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(callpeak, "write_summits", stopped)
    with pytest.raises((KeyboardInterrupt, RuntimeError)):
        _callpeak(t, out, "-B", "--penalty", 5)  # (the last --penalty wins)
    assert sorted(p.name for p in out.iterdir()) == ["X_peaks.narrowPeak"]


# --------------------------------------------------------------------------- item 11


def test_learn_with_few_labels_says_the_level_it_uses(tmp_path):
    """``learn`` with at most 20 labeled windows said its prior was "at the narrow-mark
    level" but shifted the model file's own level (all the sets': the broad marks').
    Now (issue 54 item 1) its prior is the zero-label model of every surface, at the
    narrow-mark level it says: the model learned is that level, shifted."""
    from penlearn.learn import PenaltyModel
    from penlearn.peaks.pretrained import load_pretrained, shipped_model

    p = load_pretrained()
    narrow = shipped_model("narrow").model
    assert narrow.intercept_ == p.provenance["marks"]["narrow"]["intercept"]
    d = peak_folder(tmp_path / "p")
    err = run_cli(["learn", d, "--out", tmp_path / "m.json", "--no-cache"])
    said = [ln for ln in err.splitlines() if "shipped zero-label" in ln]
    assert said and all("narrow-mark level" in ln for ln in said), said
    m = PenaltyModel.load(tmp_path / "m.json")
    assert m.level_["rule"] == "prior", m.level_
    assert m.intercept_ == pytest.approx(narrow.intercept_ + m.level_["shift"])


def _one_read_bam(path: Path, cigar_star: bool) -> Path:
    pysam = pytest.importorskip("pysam")
    header = {"HD": {"VN": "1.6"}, "SQ": [{"SN": "chr1", "LN": 20_000}]}
    with pysam.AlignmentFile(str(path), "wb", header=header) as out:
        for i in range(40):
            a = pysam.AlignedSegment()
            a.query_name, a.flag, a.reference_id = f"r{i}", 16 * (i % 2), 0
            a.reference_start, a.mapping_quality = 100 + 400 * i, 30
            if cigar_star and i == 7:
                a.cigarstring = None  # mapped, CIGAR '*'
            else:
                a.cigarstring = "36M"
            a.query_sequence = "A" * 36
            out.write(a)
    return path


def test_a_mapped_read_without_cigar_is_left_out_and_counted(tmp_path):
    """A mapped record with CIGAR ``*`` (no aligned base): left out of the reads, with a
    warning naming the file and how many."""
    bam = _one_read_bam(tmp_path / "star.bam", True)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        reads = read_reads(bam, "BAM", keep_dup="all")
    assert reads.total == 39
    said = [str(w.message) for w in seen if "CIGAR" in str(w.message)]
    assert len(said) == 1 and "1 mapped record" in said[0] and str(bam) in said[0], said
    err = run_cli(["callpeak", "-t", bam, "-f", "BAM", "--extsize", 100, "--penalty", 5,
                   "--outdir", tmp_path / "o"])
    assert "without a CIGAR" in err
    from penlearn.peaks.formats.bam import read_bam

    with warnings.catch_warnings(record=True) as seen:  # the coverage of 'penlearn peaks'
        warnings.simplefilter("always")
        cov = read_bam(bam)
    assert int((cov["chromEnd"] - cov["chromStart"]).sum()) == 39 * 36
    assert any("1 mapped record(s) without a CIGAR" in str(w.message) for w in seen)


def test_callpeak_checks_its_options_before_reading_any_read(tmp_path):
    """Every option value is checked before the reads are read (the treatment here is
    not a read file: its error would come first otherwise), in callpeak's own option
    names (``--outdir`` / ``-n``, never ``--out``)."""
    junk = write_file(tmp_path, "junk.bed", "not reads\n")

    def call(*extra):
        return run_cli(["callpeak", "-t", junk, "-f", "BED", "--outdir", tmp_path / "o",
                        "--quiet", *extra])

    (tmp_path / "taken").write_text("a file")
    check_cases([
        ("-n 'a b'", lambda: call("-n", "a b"), Error("-n/--name", "'a b'")),
        ("--keep-dup 0", lambda: call("--keep-dup", 0), Error("--keep-dup")),
        ("--keep-dup auto -g inf", lambda: call("--keep-dup", "auto", "-g", "inf"),
         Error("--gsize", "inf")),
        ("-g inf", lambda: call("-g", "inf"), Error("--gsize", "inf")),
        ("a missing -c file", lambda: call("-c", tmp_path / "no.bam"),
         Error("-c/--control", "no.bam")),
        ("a missing second -t file",
         lambda: run_cli(["callpeak", "-t", junk, tmp_path / "no2.bed", "-f", "BED",
                          "--outdir", tmp_path / "o", "--quiet"]),
         Error("-t/--treatment", "no2.bed")),
        ("-m reversed", lambda: call("-m", 50, 5), Error("-m/--mfold", "50 5")),
        ("-m inf", lambda: call("-m", 5, "inf"), Error("-m/--mfold")),
        ("--d-min 0", lambda: call("--d-min", 0), Error("--d-min", "got 0")),
        ("--max-count 0", lambda: call("-f", "FRAG", "--max-count", 0),
         Error("--max-count")),
        ("--outdir inside a file", lambda: call("--outdir", tmp_path / "taken" / "sub"),
         Error("--outdir")),
    ])
    with pytest.raises(ValueError) as exc:
        call("--outdir", tmp_path / "taken" / "sub")
    assert "--out " not in str(exc.value)


@pytest.fixture(scope="module")
def sticky_bams(tmp_path_factory):
    """A treatment and a control BAM with sticky regions (up in both)."""
    pytest.importorskip("pysam")
    from penlearn.datasets.chipseq_reads import plant_regions, write_reads_bam

    d = tmp_path_factory.mktemp("sticky")
    design = plant_regions({"chr1": 400_000}, 6, 4, seed=3)
    write_reads_bam(d / "t.bam", design, background=6000, per_peak=150, sticky_fold=5,
                    seed=1)
    write_reads_bam(d / "c.bam", design, background=6000, sticky_fold=5, seed=2)
    return d, design


def test_filter_rule_control_lambda_holds_the_controls_local_level(sticky_bams, tmp_path):
    """``--control-rule filter -B``: ``NAME_control_lambda.bdg`` was one flat value (the
    treatment's mean); it holds the control's local lambda, higher over its sticky
    regions, as under the background rule."""
    d, design = sticky_bams
    base = ["callpeak", "-t", d / "t.bam", "-c", d / "c.bam", "-f", "BAM", "--extsize", 200,
            "-B", "--outdir", tmp_path, "--quiet"]
    run_cli([*base, "-n", "F", "--control-rule", "filter"])
    run_cli([*base, "-n", "B"])
    filt = pd.read_csv(tmp_path / "F_control_lambda.bdg", sep="\t", header=None)
    back = pd.read_csv(tmp_path / "B_control_lambda.bdg", sep="\t", header=None)
    assert filt[3].nunique() > 1
    s = design.sticky.iloc[0]
    mid = (s["chromStart"] + s["chromEnd"]) // 2
    at = filt[(filt[1] <= mid) & (filt[2] > mid)][3]
    assert len(at) == 1 and float(at.iloc[0]) > float(filt[3].median())
    assert filt.equals(back)


def test_prior_takes_an_evaluation_without_errors_at_any_size():
    """``prior=`` refused an evaluation without ``errors`` (an optional column: fp + fn)
    at <= 20 labeled sequences only; it takes it at every size, as without a prior."""
    import penlearn as pl
    from penlearn.peaks.pretrained import load_pretrained

    prior = load_pretrained().model
    rng = np.random.default_rng(0)
    for n in (4, 12):
        ids = [f"w{i}" for i in range(n)]
        x = pd.DataFrame({"log.sd": rng.normal(1, 0.3, n), "log.mean": rng.normal(1, 0.3, n)},
                         index=ids)
        rows = []
        for i, s in enumerate(ids):
            b = float(rng.normal(8, 1))
            peak = i % 2 == 0  # a peak label: missed above b; noPeaks: a false one below b
            rows += [(s, -np.inf, b, 0 if peak else 1, 0, 0 if peak else 1, int(peak)),
                     (s, b, np.inf, 0, int(peak), 0 if peak else 1, int(peak))]
        ev = pd.DataFrame(rows, columns=["sequence_id", "min_log_lambda", "max_log_lambda",
                                         "fp", "fn", "possible_fp", "possible_fn"])
        full = ev.assign(labels=1, errors=ev["fp"] + ev["fn"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = pl.learn_penalty(x, full, prior=prior, progress=False)
        check_cases([(f"{n} sequences, no 'errors' column",
                      lambda x=x, ev=ev: pl.learn_penalty(x, ev.assign(labels=1), prior=prior,
                                                          progress=False),
                      lambda m, x=x, want=want: np.allclose(m.predict(x), want.predict(x)))])


def test_files_of_another_format_given_as_bed_say_what_they_are(tmp_path):
    """SAM, CRAM, BAM or empty files given as BED reads: one line in our words saying
    what was found (pandas' "No columns to parse from file" before)."""
    sam_body = "r1\t0\tchr1\t100\t30\t36M\t*\t0\t0\t" + "A" * 36 + "\t" + "I" * 36 + "\n"
    files = {
        "reads.sam": ("@HD\tVN:1.6\n@SQ\tSN:chr1\tLN:1000\n" + sam_body, "a SAM file"),
        "headless.sam": (sam_body, "a SAM file"),
        "reads.cram": (b"CRAM\x03\x00" + bytes(40), "a CRAM file"),
        "empty.bed": ("", "empty"),
        "comments.bed": ("# nothing\ntrack name=x\n", "only header / comment lines"),
    }
    cases = []
    for name, (data, says) in files.items():
        f = write_file(tmp_path, name, data)
        cases.append((f"read_reads {name}", lambda f=f: read_reads(f, "BED"),
                      Error(str(f), says)))
        cases.append((f"callpeak -f BED {name}",
                      lambda f=f: run_cli(["callpeak", "-t", f, "-f", "BED", "--extsize",
                                           200, "--outdir", tmp_path / "o", "--quiet"]),
                      Error(str(f), says)))
    bam = _one_read_bam(tmp_path / "r.bam", False)
    cases.append(("a BAM given as -f BED", lambda: read_reads(bam, "BED"),
                  Error(str(bam), "a BAM file", "-f BAM")))
    check_cases(cases, at_least=11)


def test_a_shift_moving_every_read_off_its_chromosome_is_an_error(tmp_path):
    """``--shift -100000`` moved every read before base 0: the coverage was empty with
    no word of why; the error names --shift."""
    t = _bed(tmp_path, "t.bed", _reads(600, 1))
    bam = _one_read_bam(tmp_path / "r.bam", False)  # chr1 of 20 kb in its header
    check_cases([
        ("BED --shift -100000", lambda: _callpeak(t, tmp_path / "o", "--shift", -100_000),
         Error("--shift -100000", "every read")),
        ("BAM --shift 50000", lambda: run_cli(["callpeak", "-t", bam, "-f", "BAM", "--shift",
                                               50_000, "--extsize", 100, "--outdir",
                                               tmp_path / "o1", "--quiet"]),
         Error("--shift 50000", "every read")),
        ("--shift 20 is fine", lambda: _callpeak(t, tmp_path / "o2", "--shift", 20),
         lambda err: (tmp_path / "o2" / "X_peaks.narrowPeak").exists()),
    ])


def test_propose_says_when_every_window_is_labeled_and_names_a_bad_labeled(tmp_path):
    """``propose`` with every window labeled wrote an empty file without a word; a
    ``labeled=5`` was a TypeError from ``list()``: both now say what is wrong."""
    from penlearn.datasets import load_data
    from penlearn.peaks.propose import propose_windows

    d = peak_folder(tmp_path / "p", samples=("s1",))
    labels = write_file(tmp_path, "all.csv", "sample_id,chrom,chromStart,chromEnd,annotation\n"
                        "s1,chr1,0,250,noPeaks\n")
    err = run_cli(["propose", d / "coverage.csv", "--labels", labels, "--out",
                   tmp_path / "w.bed"])
    assert "every window" in err and "no window left to propose" in err, err
    uci, model = uci_folder()
    ds = load_data(uci)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = propose_windows(ds, 1, labeled=list(ds.inputs.index), model=model)
    assert len(out) == 0 and any("no window left" in str(w.message) for w in seen)
    cov = pd.read_csv(d / "coverage.csv")
    check_cases([
        ("propose_windows(uci, labeled=5)",
         lambda: propose_windows(ds, 1, labeled=5, model=model),
         Error("labeled", "int")),
        ("propose_windows(coverage, labeled=5)", lambda: propose_windows(cov, 1, labeled=5),
         Error("labeled", "int")),
        ("propose_windows(uci, labeled=[])",
         lambda: propose_windows(ds, 1, labeled=[], model=model),
         lambda t: len(t) == 1),
    ])
