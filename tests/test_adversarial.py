"""No silent wrong answers, library side: each test failed before its fix.

The command-line side is in test_adversarial_cli.py.
"""

from __future__ import annotations

import gzip
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, need
from hypothesis import given, settings
from hypothesis import strategies as st

from penlearn._checks import check_evaluation
from penlearn.changepoint.evaluation import error_functions
from penlearn.changepoint.labels import label_errors, labels_outside_data, labels_with_data
from penlearn.changepoint.segmentation import segment_sequences
from penlearn.datasets import load_uci, read_inputs, read_predictions, read_table, simulate
from penlearn.learn import PenaltyModel, learn_penalty


def _write(path, text):
    path.write_text(text)
    return path


def _evaluation_folder(folder, ids):
    """A minimal UCI folder whose sequences have the given (text) ids."""
    rows = "".join(f"{i},-Inf,0,1,1,1,0,2,1\n{i},0,Inf,1,0,1,1,2,1\n" for i in ids)
    _write(folder / "evaluation.csv", "sequenceID,min.log.lambda,max.log.lambda,possible.fp,"
           "fp,possible.fn,fn,labels,errors\n" + rows)
    return folder


@pytest.fixture(scope="module")
def fitted():
    """A small learned model (zero init, few steps) and its features / evaluation."""
    data = simulate(24, seed=3, n_points=(60, 120))
    models, changes = segment_sequences(data.sequences, 6, progress=False)
    ev = error_functions(models, changes, data.labels)
    ids = list(pd.unique(ev["sequence_id"]))
    rng = np.random.default_rng(0)
    feats = pd.DataFrame({"a": rng.normal(size=len(ids)), "b": rng.normal(size=len(ids))},
                         index=ids)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = learn_penalty(feats, ev, init="zero", max_steps=3, progress=False,
                              model="linear",  # the linear model's prediction rules
                              segmentation={"loss": "l2", "max_segments": 6})
    return model, feats, data


# -------------------------------------------------------------------------- ids are text


def test_numeric_looking_ids_stay_text_in_every_reader(tmp_path):
    ids = ["0001", "1", "1.0", "2", "2.50", "007"]
    folder = _evaluation_folder(tmp_path, ids)
    _write(folder / "inputs.csv", "sequenceID,x\n" + "".join(f"{i},{k}.5\n"
                                                               for k, i in enumerate(ids)))
    _write(folder / "outputs.csv", "sequenceID,min.log.lambda,max.log.lambda\n"
           + "".join(f"{i},-Inf,0\n" for i in ids))
    (folder / "cv" / "t").mkdir(parents=True)
    _write(folder / "cv" / "t" / "folds.csv", "sequenceID,fold\n"
           + "".join(f"{i},{k % 2 + 1}\n" for k, i in enumerate(ids)))
    ds = load_uci(folder)
    assert list(ds.sequence_ids) == ids  # 6 sequences, none merged, none reformatted
    assert list(ds.inputs.index) == ids
    assert list(ds.outputs["sequence_id"]) == ids
    assert list(ds.folds["t"]["sequence_id"]) == ids
    assert list(read_inputs(folder).index) == ids
    table = read_table(_write(tmp_path / "l.csv", "sequence_id,start\n0001,1\n1.0,2\n"),
                       ["sequence_id"], "labels")
    assert list(table["sequence_id"]) == ["0001", "1.0"]


# --------------------------------------------------------------- labels outside the data


def _brute_outside(positions, start, end):
    """No change position ⌊(p_i + p_{i+1})/2⌋ in (start, end] (checked one by one)."""
    mids = [(a + b) // 2 for a, b in zip(positions, positions[1:])]
    return not any(start < m <= end for m in mids)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-1000, 1000), min_size=1, max_size=15, unique=True),
       st.lists(st.tuples(st.integers(-1100, 1100), st.integers(1, 300)), min_size=1,
                max_size=6))
def test_labels_outside_data_matches_brute_force(positions, regions):
    positions = sorted(positions)
    seqs = pd.DataFrame({"sequence_id": "s", "position": positions})
    labels = pd.DataFrame({"sequence_id": "s", "start": [a for a, _ in regions],
                           "end": [a + w for a, w in regions], "annotation": "1change"})
    got = set(labels_outside_data(seqs, labels).index)
    expected = {i for i, (a, w) in enumerate(regions) if _brute_outside(positions, a, a + w)}
    assert got == expected


def test_label_past_the_data_warns_with_count_and_ids():
    seqs = pd.DataFrame({"sequence_id": ["a"] * 5 + ["b"] * 5, "position": [*range(1, 6)] * 2})
    labels = pd.DataFrame({"sequence_id": ["a", "b", "b"], "start": [1, 1000, 2000],
                           "end": [4, 2000, 3000], "annotation": "1change"})
    with pytest.warns(UserWarning, match=r"2 label\(s\) of 1 sequence\(s\) \['b'\]"):
        kept = labels_with_data(seqs, labels)
    assert len(kept) == 3  # a warning: the labels stay
    with pytest.raises(ValueError, match="no position where a change can be"):
        labels_with_data(seqs, labels, outside="error")


def test_labels_without_data_are_counted_up_front():
    seqs = pd.DataFrame({"sequence_id": "a", "position": [1, 2, 3, 4]})
    labels = pd.DataFrame({"sequence_id": ["a"] + [f"x{i}" for i in range(7)], "start": 1,
                           "end": 3, "annotation": "1change"})
    with pytest.raises(ValueError, match=r"7 labeled sequence\(s\) \(first 5: "):
        labels_with_data(seqs, labels)
    with pytest.warns(UserWarning, match="left out"):
        kept = labels_with_data(seqs, labels, unmatched="warn")
    assert list(kept["sequence_id"]) == ["a"]


# ------------------------------------------------------------------- positions near 2^62


def test_change_positions_near_2_62_do_not_overflow():
    base = 2**62
    pos = base + np.array([0, 10, 20, 30, 40, 50, 60, 70], dtype=np.int64) * 2**40
    seqs = pd.DataFrame({"sequence_id": "big", "position": pos,
                         "value": [0.0, 0.1, 0.0, 0.1, 5.0, 5.1, 5.0, 5.1]})
    models, changes = segment_sequences(seqs, 2, progress=False)
    got = int(changes.loc[changes["n_segments"] == 2, "position"].iloc[0])
    p = [int(v) for v in pos]
    assert got == (p[3] + p[4]) // 2  # exact, with Python's unbounded ints
    labels = pd.DataFrame({"sequence_id": ["big"], "start": [p[3]], "end": [p[4]],
                           "annotation": ["1change"]})
    errs = label_errors(models, changes, labels).model_errors
    assert errs["fn"].tolist() == [1.0, 0.0]


# ------------------------------------------------------------------------ tampered files


def _saved(model, tmp_path, **edits):
    data = model.to_dict()
    for key, value in edits.items():
        if value is None:
            data.pop(key)
        else:
            data[key] = value
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(("edit", "needle"), [
    ({"coef": [1e308, 1.0]}, "coef"),
    ({"intercept": 1e308}, "intercept"),
    ({"features": ["a", "a"]}, "duplicates"),
    ({"features": [], "coef": []}, "empty"),
    ({"best_step": "x"}, "best_step"),
    ({"scaling": {"mean": [0, 0], "scale": [1, 1], "low": [1, 0], "high": [0, 1]}}, "low"),
    ({"segmentation": {"loss": "l3"}}, "segmentation"),
])
def test_tampered_model_files_are_refused(fitted, tmp_path, edit, needle):
    path = _saved(fitted[0], tmp_path, **edit)
    with pytest.raises(ValueError, match=needle):
        PenaltyModel.load(path)


def test_prediction_overflow_is_an_error_not_inf(fitted):
    model = PenaltyModel.from_dict(fitted[0].to_dict())
    x = pd.DataFrame({"a": [1e306, 0.0], "b": [1e306, 0.0]}, index=["huge", "ok"])
    model.coef_ = pd.Series([1e99, 1e99], index=["a", "b"])
    model.clip = False  # unbounded linear prediction (clip=True keeps x in its range)
    with pytest.raises(ValueError, match="'huge'"):
        model.predict(x)


def test_evaluation_with_more_errors_than_possible_is_refused(tmp_path):
    ev = pd.DataFrame({"sequence_id": "a", "min_log_lambda": [-np.inf, 0.0],
                       "max_log_lambda": [0.0, np.inf], "fp": [3, 0], "fn": [0, 1],
                       "possible_fp": [1, 1], "possible_fn": [1, 1]})
    with pytest.raises(ValueError, match=r"fp should be in \[0, possible_fp\]"):
        check_evaluation(ev)
    ev.loc[0, "fp"] = 0
    ev.loc[1, "fn"] = 2
    with pytest.raises(ValueError, match=r"fn should be in \[0, possible_fn\]"):
        check_evaluation(ev)
    _write(tmp_path / "evaluation.csv", "sequenceID,min.log.lambda,max.log.lambda,possible.fp,"
           "fp,possible.fn,fn\na,-Inf,0,1,2,1,0\na,0,Inf,1,0,1,1\n")
    with pytest.raises(ValueError, match="possible_fp"):
        load_uci(tmp_path)


# ------------------------------------------------------------ segmentation settings kept


def test_model_keeps_its_segmentation_settings(fitted, tmp_path):
    model, _, data = fitted
    path = tmp_path / "m.json"
    model.save(path)
    loaded = PenaltyModel.load(path)
    assert loaded.segmentation_ == {"loss": "l2", "max_segments": 6}
    one = data.sequences[data.sequences["sequence_id"] == "sim01"]
    x = pd.DataFrame({"a": [30.0], "b": [0.0]})  # a small penalty: the largest model
    loaded.intercept_ = -50.0
    got = loaded.segment(one, features=x)
    assert len(got) == 5  # 6 segments, the stored max_segments (the old default: 20)
    assert np.array_equal(got, loaded.segment(one, features=x, max_segments=6, loss="l2"))
    assert len(loaded.segment(one, features=x, max_segments=3)) == 2  # explicit wins
    data_old = json.loads(path.read_text())
    data_old.pop("segmentation")  # files written before the field
    path.write_text(json.dumps(data_old))
    assert PenaltyModel.load(path).segmentation_ is None


# -------------------------------------------------------------- non-finite at prediction


def test_infinite_feature_is_clipped_to_the_training_range(fitted):
    model, feats, _ = fitted
    model = PenaltyModel.from_dict(model.to_dict())
    model.coef_ = pd.Series([0.7, 0.2], index=["a", "b"])
    lo, hi = feats["a"].min(), feats["a"].max()
    assert np.allclose(model.scaling_.low, feats.min().to_numpy())
    x = pd.DataFrame({"a": [-np.inf, np.inf], "b": [0.0, 0.0]}, index=["neg", "pos"])
    clipped = pd.DataFrame({"a": [lo, hi], "b": [0.0, 0.0]}, index=["neg", "pos"])
    assert np.allclose(model.predict(x), model.predict(clipped))


def test_non_finite_feature_of_zero_weight_is_ignored_and_nan_is_named(fitted):
    model, _, _ = fitted
    model = PenaltyModel.from_dict(model.to_dict())
    model.coef_ = pd.Series([0.7, 0.0], index=["a", "b"])
    x = pd.DataFrame({"a": [0.5, 0.5], "b": [np.nan, 0.0]}, index=["s1", "s2"])
    p = model.predict(x)
    assert p[0] == p[1]
    x = pd.DataFrame({"a": [np.nan], "b": [0.0]}, index=["s9"])
    with pytest.warns(UserWarning, match=r"\['s9'\] have NaN in feature\(s\) the model uses \(a\)"):
        assert model.predict(x)[0] == model.predict(x.assign(a=model.scaling_.mean[0]))[0]
    model.scaling_ = None  # a model built by hand, with no training mean: named
    with pytest.raises(ValueError, match=r"row 's9', column 'a'"):
        model.predict(x)


def test_old_model_file_without_range_still_names_the_infinite_value(fitted):
    data = fitted[0].to_dict()
    data["scaling"] = {k: data["scaling"][k] for k in ("mean", "scale")}
    model = PenaltyModel.from_dict(data)
    model.coef_ = pd.Series([0.7, 0.2], index=["a", "b"])
    with pytest.raises(ValueError, match="no training range"):
        model.predict(pd.DataFrame({"a": [-np.inf], "b": [0.0]}, index=["s"]))


@pytest.mark.slow
def test_h3k36me3_am_immune_test_fold_predicts_with_default_learn_penalty():
    """Fold 3 test sequences have -inf in features finite on subtrain + validation."""
    from penlearn.learn import subtrain_validation_split

    ds = load_uci(need(DATA / "H3K36me3_AM_immune"))
    split = subtrain_validation_split(ds.folds["equal_labels"], 3)
    ev = ds.evaluation
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = learn_penalty(ds.inputs.loc[split["subtrain"]],
                              ev[ev["sequence_id"].isin(split["subtrain"])],
                              validation=(ds.inputs.loc[split["validation"]],
                                          ev[ev["sequence_id"].isin(split["validation"])]),
                              max_steps=2, progress=False, random_state=1, model="linear")
    x = ds.inputs.loc[split["test"], list(model.coef_.index)]
    assert not np.isfinite(x.to_numpy()).all()  # non-finite test features: the case
    pred = model.predict(x)
    assert np.isfinite(pred).all()
    low = pd.Series(model.scaling_.low, index=model.coef_.index)
    high = pd.Series(model.scaling_.high, index=model.coef_.index)
    a = x.to_numpy()
    a = np.where(a == -np.inf, low.to_numpy(), np.where(a == np.inf, high.to_numpy(), a))
    assert np.allclose(pred, a @ model.coef_.to_numpy() + model.intercept_)


# ---------------------------------------------------------------- unclear errors


def test_duplicate_ids_in_inputs_are_named(tmp_path):
    _write(tmp_path / "inputs.csv", "sequenceID,x\na,1\nb,2\na,3\n")
    with pytest.raises(ValueError, match=r"1 sequence id\(s\) appear on more than one row.*'a'"):
        read_inputs(tmp_path)


def test_error_functions_with_no_labels():
    models = pd.DataFrame({"sequence_id": "a", "n_segments": [1, 2], "loss": [3.0, 1.0]})
    changes = pd.DataFrame({"sequence_id": "a", "n_segments": [2], "position": [5]})
    labels = pd.DataFrame(columns=["sequence_id", "start", "end", "annotation"])
    with pytest.raises(ValueError, match="labels has no rows"):
        error_functions(models, changes, labels)


def test_int_and_str_ids_get_a_type_hint_and_a_count():
    models = pd.DataFrame({"sequence_id": ["1", "2"], "n_segments": [1, 1], "loss": [1.0, 1.0]})
    changes = pd.DataFrame(columns=["sequence_id", "n_segments", "position"])
    labels = pd.DataFrame({"sequence_id": [1, 2], "start": 0, "end": 5, "annotation": "normal"})
    with pytest.raises(ValueError, match=r"2 labeled sequence\(s\) \[1, 2\].*are int but the "
                       r"known ids are str"):
        error_functions(models, changes, labels)


@pytest.mark.parametrize(("sep", "name"), [(";", "semicolon"), ("\t", "tab")])
def test_other_delimiters_get_a_hint(tmp_path, sep, name):
    path = _write(tmp_path / "s.csv", sep.join(["sequence_id", "position", "value"])
                  + "\n" + sep.join(["a", "1", "0.5"]) + "\n")
    with pytest.raises(ValueError, match=f"{name}-separated"):
        read_table(path, ["sequence_id", "position", "value"], "sequences")


def test_gzip_data_named_csv_is_read(tmp_path):
    path = tmp_path / "s.csv"
    path.write_bytes(gzip.compress(b"sequence_id,position,value\n01,1,0.5\n"))
    table = read_table(path, ["sequence_id", "position", "value"], "sequences")
    assert table["sequence_id"].tolist() == ["01"] and table["value"].tolist() == [0.5]


def test_non_numeric_prediction_names_file_column_and_row(tmp_path):
    path = _write(tmp_path / "pred.csv", "sequence_id,log_lambda\na,1.5\nb,oops\n")
    with pytest.raises(ValueError, match=r"pred.csv: column 'log_lambda' .* row 2 "
                       r"\(sequence 'b'\) has 'oops'"):
        read_predictions(path, ["a", "b"])


def test_penalty_model_segment_positions_near_2_62(fitted):
    model = PenaltyModel.from_dict(fitted[0].to_dict())
    model.coef_ = pd.Series([0.0, 0.0], index=["a", "b"])
    model.intercept_ = -50.0  # a tiny penalty: the largest model (stored max_segments 6)
    pos = 2**62 + np.arange(12, dtype=np.int64) * 2**50
    seq = pd.DataFrame({"position": pos, "value": np.repeat([0.0, 9.0, 0.0], 4)
                        + np.linspace(0, 0.1, 12)})
    got = model.segment(seq, features=pd.DataFrame({"a": [0.0], "b": [0.0]}))
    p = [int(v) for v in pos]
    expected = {(p[i] + p[i + 1]) // 2 for i in range(11)}  # Python ints: no overflow
    assert len(got) == 5 and set(int(v) for v in got) <= expected
