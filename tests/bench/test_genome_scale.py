"""benchmarks/genome_scale.py: medians of alternated runs, --readers-only prints and
records only the reading table and keeps the recorded 'penlearn peaks' runs (the child
processes are replaced by fakes: the real runs belong to the benchmark, not the suite)."""

from __future__ import annotations

from conftest import load_benchmark

bench = load_benchmark("genome_scale")


def _fake_runs(monkeypatch, walls, warms=None):
    """measure_read returning the given (cold) walls and warm times in turn (penlearn,
    pandas, penlearn, ...; warm: a quarter of the wall unless given)."""
    it = iter(walls)
    it_warm = iter(warms if warms is not None else [w / 4 for w in walls])

    def measure_read(how, path):
        if how == "baseline":
            return {"wall": 0.0, "warm": 0.0, "rows": 1, "arrays": 8, "maxrss": 100 << 20}
        return {"wall": next(it), "warm": next(it_warm), "rows": 10, "arrays": 80 << 20,
                "maxrss": 200 << 20}

    def write_files(cov, folder, name):
        folder.mkdir(parents=True)
        return {k: folder / f"{name}.{k}" for k in ("bedGraph.gz", "bedGraph", "csv",
                                                    "gapped")}

    monkeypatch.setattr(bench, "measure_read", measure_read)
    monkeypatch.setattr(bench, "write_files", write_files)
    monkeypatch.setattr(bench, "synthetic_coverage", lambda n, seed=1: None)


def test_measure_pair_reports_medians_and_the_ratio_range(monkeypatch):
    _fake_runs(monkeypatch, [3.0, 1.0, 1.0, 2.0, 2.0, 1.0],
               warms=[1.0, 1.0, 0.5, 2.0, 0.8, 0.5])
    r, p, ratios, warm = bench.measure_pair("penlearn", "f", "pandas", "f", 3)
    assert (r["wall"], p["wall"]) == (2.0, 1.0)
    assert (r["warm"], p["warm"]) == (0.8, 1.0)
    assert ratios == [3.0, 0.5, 2.0]
    assert warm == [1.0, 0.25, 1.6]


def test_readers_only_prints_and_records_only_the_reading_table(monkeypatch, tmp_path,
                                                                capsys):
    _fake_runs(monkeypatch, [2.0, 1.0] * 4)
    results = tmp_path / "RESULTS.md"
    peaks = (f"{bench.PEAKS_HEADING}\n\nrecorded earlier\n\n| rows | input |\n|---|---|\n"
             "| 5 | x |\n")
    results.write_text(f"# Benchmark results\n\n{bench.SECTION}\n\nold reading table\n\n"
                       f"{peaks}\n## later_section\n\nkept\n")
    monkeypatch.setattr(bench.results_file, "RESULTS", results)
    assert bench.main(["--readers-only", "--sizes", "10", "--repeats", "1",
                       "--results"]) == 0
    out = capsys.readouterr().out
    row = "| 10 | csv | 2.00 | 1.00 | 2.00 | 2.00–2.00 | 0.50 | 0.25 | 2.00 | 2.00–2.00 |"
    assert "penlearn peaks" not in out and row in out
    text = results.read_text()
    assert "old reading table" not in text and row in text
    assert peaks in text and text.endswith("## later_section\n\nkept\n")
