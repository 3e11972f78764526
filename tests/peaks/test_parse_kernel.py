"""The numba parse kernels against plain-Python reference parsers written from the
format rules (module docstring of ``penlearn.peaks.formats._parse_kernel``), on random valid and
invalid text: the columns, the name runs and the first error (code, line, field, token)
must be the same. The kernels are called with small capacities, so they stop and resume
as the readers' driver makes them do."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from penlearn.peaks.formats import _parse_kernel as kernel

INT64_MAX = 2**63 - 1
INTEGER = re.compile(rb"-?[0-9]+")
COUNT = re.compile(rb"-?[0-9]+(\.0*)?")


def split_lines(data: bytes) -> list[bytes]:
    """Lines end in \\r\\n, \\n or \\r; the last one may have no terminator."""
    lines = re.split(rb"\r\n|\n|\r", data)
    if lines[-1] == b"":
        lines.pop()
    return lines


def integer(token: bytes, count: bool) -> tuple[int, int]:
    """(status, value): 0 ok, else kernel.NOT_INTEGER / kernel.OVERFLOW."""
    if not (COUNT if count else INTEGER).fullmatch(token):
        return kernel.NOT_INTEGER, 0
    value = int(token.split(b".")[0])
    if abs(value) > INT64_MAX:
        return kernel.OVERFLOW, 0
    return 0, value


def runs_of(names: list[bytes]) -> list[tuple[bytes, int]]:
    out: list[tuple[bytes, int]] = []
    for row, name in enumerate(names):
        if not out or out[-1][0] != name:
            out.append((name, row))
    return out


def reference_bedgraph(data: bytes):
    """(rows, runs, error) of a bedGraph: error (code, line, field, token) or None."""
    rows, names = [], []
    for number, line in enumerate(split_lines(data), start=1):
        s = line.lstrip(b" \t")
        if not s or s.startswith((b"#", b"track", b"browser")):
            continue
        tokens = [t for t in re.split(rb"[ \t]+", s) if t]
        if len(tokens) != 4:
            return rows, runs_of(names), (kernel.FIELDS, number, len(tokens), line)
        values = []
        for k in (1, 2, 3):
            status, value = integer(tokens[k], count=k == 3)
            if status:
                return rows, runs_of(names), (status, number, k, tokens[k])
            values.append(value)
        rows.append(tuple(values))
        names.append(tokens[0])
    return rows, runs_of(names), None


def csv_fields(line: bytes, sep: int) -> list[bytes]:
    """The raw values of a CSV line: a field starting with a quote runs to the closing
    quote (``""`` inside kept as is; what follows it up to the separator is dropped)."""
    fields, i, n = [], 0, len(line)
    while True:
        if i < n and line[i] == 34:
            j = i + 1
            while j < n:
                if line[j] == 34:
                    if j + 1 < n and line[j + 1] == 34:
                        j += 2
                        continue
                    break
                j += 1
            fields.append(line[i + 1:j])
            i = j + 1 if j < n else j
            while i < n and line[i] != sep:
                i += 1
        else:
            a = i
            while i < n and line[i] != sep:
                i += 1
            fields.append(line[a:i])
        if i >= n:
            return fields
        i += 1


def reference_csv(data: bytes, sep: int, n_fields: int, cols, text_cols):
    """(rows, runs per text column, error) of CSV lines, as :func:`reference_bedgraph`."""
    rows, names = [], ([], [])
    for number, line in enumerate(split_lines(data), start=1):
        if not line.strip(b" \t"):
            continue
        fields = csv_fields(line, sep)
        done = (rows, [runs_of(x) for x in names])
        if len(fields) != n_fields:
            return (*done, (kernel.FIELDS, number, len(fields), line))
        values = []
        for k, f in enumerate(cols):
            status, value = integer(fields[f], count=k == 2)
            if status:
                return (*done, (status, number, f, fields[f]))
            values.append(value)
        rows.append(tuple(values))
        for k, f in enumerate(text_cols):
            names[k].append(fields[f])
    return rows, [runs_of(x) for x in names], None


def join(runs: list, got: list[tuple[bytes, int]]) -> None:
    """Add one call's runs (a run may go on from the previous call's last one)."""
    for name, row in got:
        if not runs or runs[-1][0] != name:
            runs.append((name, row))


def kernel_bedgraph(data: bytes, cap: int):
    buf = np.frombuffer(data, np.uint8)
    pos, line, rows, runs = 0, 0, [], []
    err = np.zeros(5, np.int64)
    while pos < len(buf) and not err[0]:
        cols = [np.zeros(cap, np.int64) for _ in range(3)]
        run_row, run_a, run_b = (np.zeros(cap, np.int64) for _ in range(3))
        pos, line, row, m = kernel.parse_bedgraph(buf, pos, line, *cols, 0, run_row, run_a,
                                                  run_b, err)
        join(runs, [(data[a:b], len(rows) + r)
                    for r, a, b in zip(run_row[:m].tolist(), run_a[:m].tolist(),
                                       run_b[:m].tolist())])
        rows += list(zip(*(c[:row].tolist() for c in cols)))
    error = None
    if err[0]:
        error = (int(err[0]), int(err[1]), int(err[2]), data[err[3]:err[4]])
    return rows, runs, error


def kernel_csv(data: bytes, sep: int, n_fields: int, cols, text_cols, cap: int):
    buf = np.frombuffer(data, np.uint8)
    pos, line, rows, runs = 0, 0, [], [[], []]
    err = np.zeros(5, np.int64)
    while pos < len(buf) and not err[0]:
        v = [np.zeros(cap, np.int64) for _ in range(3)]
        run_row, run_a, run_b = (np.zeros((2, cap), np.int64) for _ in range(3))
        pos, line, row, nruns = kernel.parse_csv_numbers(
            buf, pos, line, sep, n_fields, np.array(cols), np.array(text_cols), *v, 0,
            run_row, run_a, run_b, err)
        for k in (0, 1):
            m = int(nruns[k])
            join(runs[k], [(data[a:b], len(rows) + r) for r, a, b in
                           zip(run_row[k, :m].tolist(), run_a[k, :m].tolist(),
                               run_b[k, :m].tolist())])
        rows += list(zip(*(c[:row].tolist() for c in v)))
    # a bad line's text values may start a run (the caller raises): runs of rows read
    runs = [[(name, r) for name, r in x if r < len(rows)] for x in runs]
    error = None
    if err[0]:
        error = (int(err[0]), int(err[1]), int(err[2]), data[err[3]:err[4]])
    return rows, runs, error


NUMBERS = st.one_of(
    st.integers(0, 10**7).map(str),
    st.integers(-1000, 1000).map(str),  # below: 18 to 21 digits, in and beyond int64
    st.integers(-10**20, 10**20).map(str),
    st.integers(-2 * 10**19, 2 * 10**19).filter(lambda x: abs(x) >= 10**17).map(str),
    st.sampled_from(["9223372036854775807", "9223372036854775808", "-9223372036854775807",
                     "-9223372036854775808", "0000000000000000000000012", "3.0", "3.",
                     "3.00", "3.5", ".0", "-", "", "+5", "1_0", "1e3", "\u0663", "0x1",
                     "-0", "--1", "7a"]),
)
BLANKS = st.sampled_from([" ", "\t", "  ", " \t", "\t\t"])
ENDS = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def bedgraph_text(draw) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        special = draw(st.sampled_from(["", "  ", "# c", " \t#x 1 2", "track type=bedGraph",
                                        "browser position chr1", "trackX 1 2 3", None,
                                        None, None, None, None, None, None]))
        if special is not None:
            lines.append(special)
            continue
        name = draw(st.sampled_from(["chr1", "chr1", "chr1", "chr2", "chrUn_x", "c", "chr1x",
                                     "chr\u00e9"]))
        k = draw(st.sampled_from([3, 3, 3, 3, 3, 2, 4, 0]))
        parts = [name] + [draw(NUMBERS) for _ in range(k)]
        text = draw(st.sampled_from(["", "", " ", "\t"])) + parts[0]
        for p in parts[1:]:
            text += draw(BLANKS) + p
        lines.append(text + draw(st.sampled_from(["", "", "", " ", "\t "])))
    out = "".join(line + draw(ENDS) for line in lines[:-1])
    if lines:
        out += lines[-1] + draw(st.sampled_from(["", "\n", "\r\n", "\r"]))
    return out.encode()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=bedgraph_text(), cap=st.integers(1, 5))
def test_parse_bedgraph_matches_reference(data, cap):
    assert kernel_bedgraph(data, cap) == reference_bedgraph(data)


@st.composite
def csv_text(draw) -> tuple[bytes, int]:
    sep = draw(st.sampled_from([",", "\t"]))
    lines = []
    for _ in range(draw(st.integers(0, 10))):
        special = draw(st.sampled_from(["", "  ", " s1" + sep + "chr1" + sep + "1" + sep
                                        + "2" + sep + "3", None, None, None, None, None]))
        if special is not None:
            lines.append(special)
            continue
        fields = [draw(st.sampled_from(["s1", "s1", "s2", '"s1"', '"a""b"', '"s,1"x', ""])),
                  draw(st.sampled_from(["chr1", "chr1", "chr2", '"chr1"', '"open']))]
        fields += [draw(st.one_of(NUMBERS, NUMBERS, st.just('"12"'))) for _ in range(3)]
        k = draw(st.sampled_from([5, 5, 5, 5, 4, 6]))
        fields = (fields + ["x"])[:k]
        lines.append(sep.join(fields))
    out = "".join(line + draw(ENDS) for line in lines[:-1])
    if lines:
        out += lines[-1] + draw(st.sampled_from(["", "\n", "\r\n", "\r"]))
    return out.encode(), ord(sep)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=csv_text(), cap=st.integers(1, 5))
def test_parse_csv_numbers_matches_reference(text, cap):
    data, sep = text
    cols, text_cols = [2, 3, 4], [0, 1]
    assert kernel_csv(data, sep, 5, cols, text_cols, cap) == \
        reference_csv(data, sep, 5, cols, text_cols)


def test_reference_parsers_see_errors():
    """The references are not vacuous: they find each kind of error and the rows."""
    assert reference_bedgraph(b"track x\nc 1 2 3.0\r\nc 1 2\n")[1:] == \
        ([(b"c", 0)], (kernel.FIELDS, 3, 3, b"c 1 2"))
    assert reference_bedgraph(b"c 1 99999999999999999999 3")[2] == \
        (kernel.OVERFLOW, 1, 2, b"99999999999999999999")
    assert reference_csv(b's,c,1,2,3.5', ord(","), 5, [2, 3, 4], [0, 1])[2] == \
        (kernel.NOT_INTEGER, 1, 4, b"3.5")
