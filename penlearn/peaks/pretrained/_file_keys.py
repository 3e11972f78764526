"""The checks of a pretrained model file's own keys (its marks' rule and its provenance)
and the rule that keeps the keys a writer does not own when it writes over a file."""

from __future__ import annotations

import math

#: The mark classes of ``mark=``: MACS3's default and its ``--broad``.
MARKS = ("narrow", "broad")


def check_rule(rule, source: str) -> dict:
    """The ``zero_label_rule`` block of a pretrained model file, checked: ``{mark:
    {"shift": number <= 0, "qvalue": number in (0, 1]}}`` for marks of :data:`MARKS`
    (other keys, e.g. ``note``, are ignored); absent: ``{}`` (every mark at the model's own
    λ, no filter: a file of an older penlearn). Else a ``ValueError`` naming the file.

    The rule of a narrow mark (issue 52 item 1): the peaks of the model's log λ +
    ``shift`` (a lower penalty, more candidate peaks), kept where their q-value (MACS3's
    kind, :func:`~penlearn.peaks.formats.peak_columns.peak_columns`) is at most
    ``qvalue``.

    Examples
    --------
    >>> check_rule({"narrow": {"shift": -2, "qvalue": 0.05}, "note": "x"}, "m.json")
    {'narrow': {'shift': -2.0, 'qvalue': 0.05}}
    >>> check_rule(None, "m.json")
    {}
    """
    if rule is None:
        return {}
    if not isinstance(rule, dict):
        raise ValueError(f"{source}: 'zero_label_rule' must be an object {{mark: {{'shift': "
                         f"..., 'qvalue': ...}}}}, got {type(rule).__name__}")
    out = {}
    for mark in MARKS:
        if mark not in rule:
            continue
        r = rule[mark]
        shift = r.get("shift") if isinstance(r, dict) else None
        q = r.get("qvalue") if isinstance(r, dict) else None
        if not (_is_number(shift) and -50 <= shift <= 0):
            raise ValueError(f"{source}: zero_label_rule.{mark}.shift must be a number from "
                             f"-50 to 0 (added to log λ), got {shift!r}")
        if not (_is_number(q) and 0 < q <= 1):
            raise ValueError(f"{source}: zero_label_rule.{mark}.qvalue must be a number > 0 "
                             f"and <= 1, got {q!r}")
        out[mark] = {"shift": float(shift), "qvalue": float(q)}
    return out


def check_provenance(provenance, source: str) -> dict:
    """The ``provenance`` block of a pretrained model file, checked: what
    :func:`default_windows` and :meth:`Pretrained.note` read must be there and of its
    type (``windows.max_bases`` a number > 0, ``sets`` a list of names, ``labels`` a
    count; when given, ``leave_one_set_out.mean`` a number, ``windows.min_bases`` one up
    to ``max_bases``, ``marks`` levels with a finite ``intercept``); else a ``ValueError``
    naming the file and the field.

    Examples
    --------
    >>> check_provenance({"windows": {"max_bases": 1e6}, "sets": ["a"]}, "m.json")["sets"]
    ['a']
    """
    def bad(what: str):
        return ValueError(f"{source} is not a pretrained model file: its 'provenance' block "
                          f"{what} (write one with penlearn pretrain)")

    if not isinstance(provenance, dict):
        raise bad("is missing" if provenance is None else "is not an object")
    windows = provenance.get("windows")
    mb = windows.get("max_bases") if isinstance(windows, dict) else None
    if isinstance(mb, bool) or not isinstance(mb, (int, float)) or not 0 < mb < math.inf:
        raise bad(f"needs windows.max_bases, a number > 0 (got {mb!r})")
    sets = provenance.get("sets")
    if not isinstance(sets, list) or not all(isinstance(s, str) for s in sets):
        raise bad("needs 'sets', a list of set names")
    labels = provenance.get("labels", 0)
    if isinstance(labels, bool) or not isinstance(labels, int) or labels < 0:
        raise bad(f"needs 'labels', a count (got {labels!r})")
    loso = provenance.get("leave_one_set_out", {})
    mean = loso.get("mean") if isinstance(loso, dict) else "?"
    if mean is not None and not _is_number(mean):
        raise bad(f"has leave_one_set_out.mean {mean!r}, not a number")
    low = windows.get("min_bases")
    if low is not None and not (_is_number(low) and 0 < low <= mb):
        raise bad(f"has windows.min_bases {low!r}, not a number in (0, max_bases]")
    marks = provenance.get("marks", {})
    if not isinstance(marks, dict) or not all(
            isinstance(v, dict) and _is_number(v.get("intercept", 0.0))
            and math.isfinite(v.get("intercept", 0.0)) for v in marks.values()):
        raise bad("has 'marks' that are not {mark: {'intercept': number}}")
    return provenance


def _is_number(v) -> bool:
    return not isinstance(v, bool) and isinstance(v, (int, float))


_MARK_KEYS = {"intercept": True, "sets": True, "rule": True}
#: The provenance keys :func:`penlearn.datasets.pretrain.pretrain` writes (True: the
#: whole value; a dict: these keys inside it). Any other key of a model file that
#: :func:`save_pretrained` writes over is kept (e.g. a setting added to the shipped file
#: by hand or by another tool), so that a refit does not lose it.
PROVENANCE_KEYS = {
    **{k: True for k in ("sources", "sets", "excluded", "sequences", "labels", "features",
                         "learner", "slope", "slope_grid", "slope_smooth", "train_errors_pct",
                         "windows", "penlearn", "fit_seconds", "leave_one_set_out")},
    "marks": {"broad": _MARK_KEYS, "narrow": _MARK_KEYS, "leave_one_set_out": True},
}


def keep_unknown_keys(old: dict, new: dict, owned: dict) -> tuple[dict, list[str]]:
    """``new`` with the keys of ``old`` that the writer does not own added back (and
    those inside the dicts it owns in part, ``owned[key]`` a dict), and their dotted
    names.

    Examples
    --------
    >>> keep_unknown_keys({"a": 1, "b": {"c": 2, "d": 3}, "x": 4},
    ...                   {"a": 5, "b": {"c": 6}}, {"a": True, "b": {"c": True, "d": True}})
    ({'a': 5, 'b': {'c': 6}, 'x': 4}, ['x'])
    """
    out, kept = dict(new), []
    for key, value in old.items():
        own = owned.get(key)
        if own is None:
            if key not in out:
                out[key] = value
                kept.append(str(key))
        elif isinstance(own, dict) and isinstance(value, dict) and isinstance(
                out.get(key), dict):
            out[key], inner = keep_unknown_keys(value, out[key], own)
            kept += [f"{key}.{k}" for k in inner]
    return out, kept
