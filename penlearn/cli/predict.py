"""The command ``predict``: the predicted log λ of a model for the sequences of a folder."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from penlearn.atomic_files import check_output, staged_file
from penlearn.cli._common import _fold_split, _load_model, _write_csv
from penlearn.datasets import load_uci, read_inputs


def cmd_predict(args) -> int:
    if args.out is not None:  # before reading anything
        check_output(Path(args.out), directory=False, force=args.force,
                     inputs=[args.model, args.data])
    model = _load_model(args.model)
    inputs = read_inputs(args.data)
    ids = list(inputs.index)
    if args.fold is not None:
        ds = load_uci(args.data)
        split, _ = _fold_split(ds, args.fold, args.cv_type)
        ids = [s for s in split["test"] if s in inputs.index]
    pred = model.predict(inputs.loc[ids])
    # the id column is named as in the inputs file (sequenceID in the UCI format)
    table = pd.DataFrame({inputs.attrs.get("id_column", "sequence_id"): ids,
                          "log_lambda": pred})
    if args.out is None:
        table.to_csv(sys.stdout, index=False)
        sys.stdout.flush()  # a closed pipe (predict | head) is reported here, in main
    else:
        out = Path(args.out)
        with staged_file(out) as tmp:
            _write_csv(table, tmp)
        print(f"penlearn predict: wrote {len(table)} predictions to {out}")
    return 0


def register(add) -> None:
    """``penlearn predict``: its subparser (``add(name, help, handler)``) and arguments."""
    p = add("predict", "predicted log λ of a model for the sequences of a folder", cmd_predict,
            force_help="replace an existing --out PREDICTIONS.csv file (without it: an error)")
    p.add_argument("model", metavar="MODEL.json", help="a model written by 'penlearn learn'")
    p.add_argument("data", metavar="DATA_DIR",
                   help="a folder with inputs.csv (or an inputs CSV file)")
    p.add_argument("--fold", default=None, metavar="K", help="only this CV fold's sequences")
    p.add_argument("--cv-type", default=None, metavar="TYPE", help="which cv/<TYPE>")
    p.add_argument("--out", default=None, metavar="PREDICTIONS.csv",
                   help="CSV to write (the id column as named in the inputs, e.g. sequenceID; "
                   "log_lambda); default: standard output")

