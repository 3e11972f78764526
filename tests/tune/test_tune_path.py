"""detector_path: the path of a black-box detector's models over its penalty.

Every check compares with the detector run at each penalty of a fine grid, or with
penlearn's own exact segmentation (brute-force DP over all models 1..K), never with
values the code itself computed.
"""

from __future__ import annotations

import numpy as np
import pytest
import ruptures as rpt

from penlearn import model_selection, segment
from penlearn.tune.detectors import fit_adapter, run_detector
from penlearn.tune.path import detector_path


def _signal(seed=1, n_each=40, sd=1.0):
    rng = np.random.default_rng(seed)
    means = [0.0, 2.0, -1.0, 1.5]
    return np.concatenate([np.full(n_each, m) for m in means]) + rng.normal(0, sd, 4 * n_each)


def _grid(path, n=60):
    """Penalties over the checked part of the path, up to past its last switch."""
    lo = max(path.stopped_at_lambda, 1e-6)
    hi = path.models["max_lambda"].iloc[-2] * 3 if len(path.models) > 1 else lo * 100
    return np.geomspace(lo * 1.0001, hi, n)


def _assert_matches_detector(det, x, path, tol_log=0.0):
    """At every grid penalty the path's model is the detector's output.

    For an exact path a mismatch is allowed only at a tie (equal penalised cost: both are
    optimal); for a scan only within ``tol_log`` of a switch of the path.
    """
    ad = fit_adapter(det, x)
    bounds = np.log(path.models["max_lambda"].to_numpy()[:-1])
    checked = 0
    for lam in _grid(path):
        ours, theirs = path.model_at(lam), run_detector(det, x, lam)
        checked += 1
        if np.array_equal(ours, theirs):
            continue
        if tol_log:
            assert np.min(np.abs(bounds - np.log(lam))) <= tol_log, (lam, ours, theirs)
        else:
            a = ad.cost(ours) + lam * len(ours)
            b = ad.cost(theirs) + lam * len(theirs)
            assert a == pytest.approx(b, rel=1e-9), (lam, ours, theirs)
    assert checked >= 60


def test_ruptures_pelt_l2_path_is_the_detector_output_at_every_penalty():
    x = _signal(n_each=25)
    det = rpt.Pelt(model="l2", min_size=2, jump=1)
    path = detector_path(det, x, max_changes=15)
    assert path.method == "crops"
    assert len(path.models) >= 5
    _assert_matches_detector(det, x, path)
    # CROPS bound: at most 4 solves per model on the path, plus 2
    assert path.n_solves <= 4 * len(path.models) + 2
    # the λ-intervals tile [0, ∞), penalties increasing, changes decreasing
    lo, hi = path.models["min_lambda"].to_numpy(), path.models["max_lambda"].to_numpy()
    assert lo[0] == 0 and np.isinf(hi[-1]) and np.array_equal(lo[1:], hi[:-1])
    assert np.all(np.diff(path.models["n_changes"]) < 0)


def test_path_equals_penlearn_exact_segmentation_for_l2():
    """ruptures Pelt l2 (min_size 1, jump 1) path = penlearn's exact optimal models."""
    x = _signal(seed=3, n_each=12)
    path = detector_path(rpt.Pelt(model="l2", min_size=1, jump=1), x, max_changes=None)
    assert path.complete and path.stopped_at_lambda == 0
    # brute force: all optimal models 1..K by DP, then their exact penalty path
    k_max = int(path.models["n_changes"].max()) + 1
    seg = segment(x, k_max)
    sel = model_selection(seg.loss, np.arange(k_max))
    ours = path.models
    assert ours["n_changes"].tolist() == sel["complexity"].tolist()
    np.testing.assert_allclose(ours["max_lambda"], sel["max_lambda"], rtol=1e-9)
    for _, row in ours.iterrows():
        k = int(row["n_changes"])
        np.testing.assert_array_equal(path.changes[int(row["model"])], seg.ends(k + 1)[:-1])
    # and at single penalties, penlearn's penalised solver (FPOP) gives the same model
    for lam in np.geomspace(0.05, 100, 25):
        fp = segment(x, penalty=float(lam))
        np.testing.assert_array_equal(path.model_at(lam), fp.ends()[:-1])


class CostAbs(rpt.base.BaseCost):
    """Custom cost: sum of absolute deviations from the segment median (L1)."""

    model = "abs_custom"
    min_size = 2

    def fit(self, signal):
        self.signal = np.asarray(signal, dtype=float).reshape(len(signal), -1)
        return self

    def error(self, start, end):
        seg = self.signal[start:end]
        return float(np.abs(seg - np.median(seg, axis=0)).sum())


def test_custom_basecost_subclass_path_matches_detector():
    x = _signal(seed=5, n_each=20)
    det = rpt.Pelt(custom_cost=CostAbs(), min_size=2, jump=2)
    path = detector_path(det, x, max_changes=10)
    assert path.method == "crops" and len(path.models) >= 4
    _assert_matches_detector(det, x, path)
    assert path.n_solves <= 4 * len(path.models) + 2


def test_skchange_pelt_path_matches_detector():
    from skchange.detectors import PELT

    x = _signal(seed=2, n_each=30)
    det = PELT(min_segment_length=2, penalty_scale=3.0)  # the path sets the scale to 1
    path = detector_path(det, x, max_changes=12)
    assert path.method == "crops" and len(path.models) >= 4
    unscaled = PELT(min_segment_length=2)
    _assert_matches_detector(unscaled, x, path)
    assert path.n_solves <= 4 * len(path.models) + 2


def test_heuristic_binseg_scan_switches_within_tolerance():
    """Binseg's output is monotone in pen; the scan locates each switch to within tol."""
    x = _signal(seed=4, n_each=30)
    det = rpt.Binseg(model="l2", min_size=2, jump=1)
    path = detector_path(det, x, max_changes=10, tol=0.01)
    assert path.method == "scan" and not path.complete
    _assert_matches_detector(det, x, path, tol_log=0.01)


def test_detector_without_penalty_is_refused_in_one_line():
    with pytest.raises(TypeError, match="Dynp.*takes no penalty") as exc:
        detector_path(rpt.Dynp(), _signal())
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("kwargs, match", [
    ({"method": "exact"}, "method must be"),
    ({"max_changes": -1}, "max_changes must be"),
    ({"min_penalty": 5.0, "max_penalty": 1.0}, "min_penalty must be < max_penalty"),
    ({"min_penalty": float("nan")}, "min_penalty must be finite"),
])
def test_bad_arguments_one_line(kwargs, match):
    with pytest.raises(ValueError, match=match) as exc:
        detector_path(rpt.Pelt(), _signal(), **kwargs)
    assert "\n" not in str(exc.value)


def test_bad_signal_one_line():
    with pytest.raises(ValueError, match="signal must be a finite") as exc:
        detector_path(rpt.Pelt(), np.r_[0.0, np.nan, 1.0])
    assert "\n" not in str(exc.value)


def test_crops_needs_a_cost():
    from skchange.detectors import MovingWindow

    with pytest.raises(ValueError, match="needs the detector's cost"):
        detector_path(MovingWindow(bandwidth=10), _signal(), method="crops")


def test_skchange_fpop_path_matches_detector_and_penlearn():
    """FPOP (square loss): the CROPS path = its output = penlearn's penalised optimum."""
    from skchange.detectors import FPOP

    x = _signal(seed=8, n_each=20)
    path = detector_path(FPOP(), x, max_changes=12)
    assert path.method == "crops" and len(path.models) >= 4
    _assert_matches_detector(FPOP(), x, path)
    for lam in _grid(path)[::6]:
        exact = segment(x, penalty=float(lam)).ends()[:-1]
        np.testing.assert_array_equal(path.model_at(lam), exact)


def test_two_dimensional_signal_kernelcpd_path_matches_detector():
    rng = np.random.default_rng(6)
    x = np.column_stack([_signal(seed=6, n_each=25), rng.normal(0, 1, 100)])
    det = rpt.KernelCPD(kernel="linear", min_size=2)
    path = detector_path(det, x, max_changes=15)
    assert path.method == "crops" and len(path.models) >= 4
    _assert_matches_detector(det, x, path)
    assert path.n_solves <= 4 * len(path.models) + 2
