"""One seed: ``penlearn learn`` and ``learn_penalty`` default to the same
seed, so the same data give the same model from the command line and from Python."""

from __future__ import annotations

import numpy as np
from test_learn import synthetic, targets_of

from penlearn.cli import build_parser, main
from penlearn.datasets import load_uci, write_uci
from penlearn.learn import PenaltyModel, learn_penalty


def test_cli_and_python_defaults_give_the_same_model(tmp_path, capsys):
    feats, ev = synthetic(n=60, seed=2)
    folder = tmp_path / "data"
    folder.mkdir()
    write_uci(folder, evaluation=ev, targets=targets_of(ev), features=feats)
    (folder / "outputs.csv").unlink()  # learn_penalty(features, evaluation): no targets
    ds = load_uci(folder)
    args = build_parser().parse_args(["learn", str(folder), "--out", "m.json"])
    assert args.seed == PenaltyModel().random_state == 0
    out = tmp_path / "cli.json"
    assert main(["learn", str(folder), "--out", str(out), "--quiet"]) == 0, capsys.readouterr()
    cli = PenaltyModel.load(out)
    py = learn_penalty(ds.inputs, ds.evaluation, progress=False)
    assert cli.get_params()["random_state"] == py.random_state
    assert cli.level_["model"] == py.level_["model"] and cli.choice_ == py.choice_
    # (a linear model's coefficients go through the scaling: equal to rounding)
    np.testing.assert_allclose(cli.predict(ds.inputs), py.predict(ds.inputs), rtol=1e-12,
                               atol=1e-12)
    # the seed matters on these data: another seed, another model
    other = learn_penalty(ds.inputs, ds.evaluation, progress=False, random_state=1)
    assert np.abs(other.predict(ds.inputs) - py.predict(ds.inputs)).max() > 1e-6
    assert main(["learn", str(folder), "--out", str(tmp_path / "one.json"), "--quiet",
                 "--seed", "1"]) == 0
    np.testing.assert_allclose(PenaltyModel.load(tmp_path / "one.json").predict(ds.inputs),
                               other.predict(ds.inputs), rtol=1e-12, atol=1e-12)


def test_cli_and_python_agree_on_the_linear_model(tmp_path):
    model = "linear"
    feats, ev = synthetic(n=60, seed=2)
    folder = tmp_path / "data"
    folder.mkdir()
    write_uci(folder, evaluation=ev, targets=targets_of(ev), features=feats)
    (folder / "outputs.csv").unlink()
    ds = load_uci(folder)
    out = tmp_path / "cli.json"
    assert main(["learn", str(folder), "--out", str(out), "--quiet", "--model", model]) == 0
    py = learn_penalty(ds.inputs, ds.evaluation, progress=False, model=model)
    np.testing.assert_allclose(PenaltyModel.load(out).predict(ds.inputs),
                               py.predict(ds.inputs), rtol=1e-12, atol=1e-12)
    other = learn_penalty(ds.inputs, ds.evaluation, progress=False, model=model,
                          random_state=1)
    assert np.abs(other.predict(ds.inputs) - py.predict(ds.inputs)).max() > 1e-6
