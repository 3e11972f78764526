"""Saved parts (the resume of ``penlearn peaks``, the error-function cache): a reader
verifies a part's content against its checksum, so a part whose table was edited (its
positions, its values), lost or gained a column, or whose record was changed is computed
again with one warning, never trusted. Damaged parts never change a result."""

from __future__ import annotations

import io
import json
import warnings
import zipfile

import numpy as np
import pandas as pd
import pytest

from penlearn.peaks.peakseg.evaluation import predict_peaks
from penlearn.peaks.peakseg.parts import read_part, write_part

TABLE = pd.DataFrame({"chrom": ["chr1", "chr1", None], "chromStart": [0, 10, 20],
                      "chromEnd": [10, 20, 30], "mean": [0.5, 3.25, 0.1 + 0.2],
                      "status": ["background", "peak", "background"]})


def _arrays(path):
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _save(path, arrays):
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    path.write_bytes(buf.getvalue())


def _meta(arrays):
    return json.loads(str(arrays["__meta__"]))


def _set_meta(arrays, meta):
    arrays["__meta__"] = np.array(json.dumps(meta))


def _edit_positions(a):
    a["c1"] = a["c1"] + 1


def _edit_text(a):
    a["c4"] = np.array(["peak", "peak", "background"])


def _drop_column(a):
    """The column ``mean`` removed, the record made to agree (only the checksum can tell)."""
    meta = _meta(a)
    cols = list(meta["dtypes"])
    keep = [c for c in cols if c != "mean"]
    new = {}
    for j, c in enumerate(keep):
        i = cols.index(c)
        new[f"c{j}"] = a[f"c{i}"]
        if f"m{i}" in a:
            new[f"m{j}"] = a[f"m{i}"]
    a.clear()
    a.update(new)
    _set_meta(a, {**meta, "dtypes": {c: meta["dtypes"][c] for c in keep}})


def _drop_rows(a):
    for k in list(a):
        if k != "__meta__":
            a[k] = a[k][:2]


def _no_checksum(a):
    meta = _meta(a)
    del meta["checksum"]
    _set_meta(a, meta)


def _wrong_checksum(a):
    _set_meta(a, {**_meta(a), "checksum": "0" * 40})


def _extra_array(a):
    a["c9"] = np.arange(3)


def _dtype_changed(a):
    meta = _meta(a)
    meta["dtypes"]["chromStart"] = "float64"
    _set_meta(a, meta)


def _unmasked_missing(a):
    a["m0"] = np.zeros(3, dtype=bool)


def _meta_nested(a):
    a["__meta__"] = np.array("[" * 100_000 + "]" * 100_000)


@pytest.mark.parametrize("tamper", [_edit_positions, _edit_text, _drop_column, _drop_rows,
                                    _no_checksum, _wrong_checksum, _extra_array,
                                    _dtype_changed, _unmasked_missing, _meta_nested])
def test_an_edited_part_is_recomputed_with_a_warning(tmp_path, tamper):
    write_part(tmp_path, "peaks", "k", TABLE)
    assert read_part(tmp_path, "peaks", "k").equals(TABLE)
    path = tmp_path / "peaks-k.npz"
    arrays = _arrays(path)
    tamper(arrays)
    _save(path, arrays)
    with pytest.warns(UserWarning, match=r"peaks-k\.npz unreadable .*computing it again"):
        assert read_part(tmp_path, "peaks", "k") is None


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04 not a zip", b"\x00" * 100])
def test_a_damaged_part_file_is_recomputed(tmp_path, content):
    (tmp_path / "peaks-k.npz").write_bytes(content)
    with pytest.warns(UserWarning, match="computing it again"):
        assert read_part(tmp_path, "peaks", "k") is None


def test_a_part_with_a_pickle_is_not_loaded(tmp_path):
    buf = io.BytesIO()
    np.savez(buf, __meta__=np.array(json.dumps({"key": "k", "dtypes": {"x": "object"}})),
             c0=np.array([{"a": 1}], dtype=object))
    (tmp_path / "peaks-k.npz").write_bytes(buf.getvalue())
    with pytest.warns(UserWarning, match="computing it again"):
        assert read_part(tmp_path, "peaks", "k") is None


def _coverage():
    rng = np.random.default_rng(3)
    rows = []
    for sample in ("a", "b"):
        counts = rng.poisson(np.r_[np.full(30, 1.0), np.full(10, 9.0), np.full(30, 1.0),
                                   np.full(8, 12.0), np.full(30, 1.0)])
        rows += [(sample, "chr1", 10 * i, 10 * i + 10, int(c)) for i, c in enumerate(counts)]
    return pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd", "count"])


def test_resume_never_trusts_edited_parts(tmp_path):
    cov = _coverage()
    fresh = predict_peaks(cov, np.log(20.0), segments=True, progress=False)
    parts = tmp_path / "parts"
    first = predict_peaks(cov, np.log(20.0), segments=True, progress=False, parts=parts)
    pd.testing.assert_frame_equal(first, fresh)
    files = sorted(parts.glob("peaks-*.npz"))
    assert len(files) == 2
    for f, tamper in zip(files, (_edit_positions, _drop_column)):
        arrays = _arrays(f)
        tamper(arrays)
        _save(f, arrays)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        again = predict_peaks(cov, np.log(20.0), segments=True, progress=False, parts=parts)
    assert sum("computing it again" in str(w.message) for w in seen) == 2
    assert again.attrs["parts_reused"] == 0
    pd.testing.assert_frame_equal(again.reset_index(drop=True), fresh.reset_index(drop=True),
                                  check_like=False)
    # the rewritten parts are whole again: a third run takes both back, same answer
    third = predict_peaks(cov, np.log(20.0), segments=True, progress=False, parts=parts)
    assert third.attrs["parts_reused"] == 2
    pd.testing.assert_frame_equal(third.reset_index(drop=True), fresh.reset_index(drop=True))


def test_part_files_are_zip_archives_without_pickles(tmp_path):
    write_part(tmp_path, "peaks", "k", TABLE)
    with zipfile.ZipFile(tmp_path / "peaks-k.npz") as z:
        assert sorted(z.namelist())[0] == "__meta__.npy"
    assert _meta(_arrays(tmp_path / "peaks-k.npz"))["checksum"]
