"""The command ``pretrain``: the zero-label penalty model from a folder of labeled sets.

``penlearn pretrain DATA_DIR --out MODEL.json [--exclude SET ...]`` learns the model
:mod:`penlearn.datasets.pretrain` describes from every labeled UCI ChIP-seq set in
``DATA_DIR`` (SET = folder name) and writes it with its provenance; on the 17 sets of
the neuroblastoma-data ``data/`` folder it rebuilds the model shipped with penlearn
(``penlearn/peaks/pretrained/default.json``), which ``penlearn peaks`` uses when given
neither ``--penalty`` nor ``--model``.
"""

from __future__ import annotations

from pathlib import Path

from penlearn.atomic_files import check_output

__all__ = ["add_pretrain_arguments", "cmd_pretrain", "register"]


def cmd_pretrain(args) -> int:
    """DATA_DIR -> the pretrained model file."""
    from penlearn.datasets.pretrain import pretrain
    from penlearn.peaks.pretrained import save_pretrained

    out = Path(args.out)
    check_output(out, directory=False, force=args.force, inputs=[args.data_dir])
    model = pretrain(args.data_dir, exclude=args.exclude or (), loso=not args.no_loso)
    kept = save_pretrained(model, out)
    p = model.provenance_
    loso = p.get("leave_one_set_out", {}).get("mean")
    tail = "" if loso is None else f"; leave one set out: {loso:.2f} % test label errors"
    marks = p.get("marks", {}).get("leave_one_set_out", {}).get("mean")
    tail += "" if marks is None else (f" at the level of all sets, {marks:.2f} % at each "
                                      "set's mark level (narrow / broad)")
    print(f"penlearn pretrain: wrote {out}: learned on {len(p['sets'])} ChIP-seq sets "
          f"({p['sequences']} windows, {p['labels']} labels){tail}")
    if kept:
        print(f"penlearn pretrain: kept from the file it replaced (not written by pretrain): "
              f"{', '.join(kept)}")
    return 0


def add_pretrain_arguments(p) -> None:
    """The arguments of ``penlearn pretrain``."""
    p.add_argument("data_dir", metavar="DATA_DIR",
                   help="a folder of labeled sets in the UCI format (e.g. neuroblastoma-data's "
                   "data/): every sub-folder whose inputs.csv has the 36 ChIP-seq coverage "
                   "features is used")
    p.add_argument("--out", required=True, metavar="MODEL.json",
                   help="the model file to write (a PenaltyModel with a provenance block); "
                   "over an existing model file (--force), its keys that pretrain does not "
                   "write are kept")
    p.add_argument("--exclude", nargs="+", default=None, metavar="SET",
                   help="leave these sets (folder names) out, e.g. to evaluate on them")
    p.add_argument("--no-loso", action="store_true",
                   help="skip measuring each set's test label errors when left out (one "
                   "fit per set, recorded in the provenance)")


def register(add) -> None:
    """``penlearn pretrain``: its subparser (``add(name, help, handler)``) and arguments."""
    add_pretrain_arguments(add(
        "pretrain", "the zero-label penalty model (the default of 'penlearn peaks') from a "
        "folder of labeled UCI ChIP-seq sets", cmd_pretrain,
        force_help="replace an existing --out MODEL.json file (without it: an error)"))
