"""The demo's report, opened in headless Chromium: it shows the ROC figure and the AUC table.

Chromium is Debian's ``chromium`` package (``.ci/run`` installs it). Without it the test
is skipped, except under ``PENLEARN_REQUIRE_DATA=1`` or ``CI`` where it fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import matplotlib.image as mpimg
import numpy as np
import pytest

# A checker appended to a copy of the report: after load, it writes what the browser
# actually laid out into the page title (read back with --dump-dom).
_PROBE = """
<script>
window.addEventListener("load", function () {
  var img = document.getElementById("roc-figure");
  var table = document.getElementById("auc-table");
  var r = img.getBoundingClientRect(), t = table.getBoundingClientRect();
  document.title = "PROBE " + JSON.stringify({
    img_complete: img.complete, img_width: img.naturalWidth, img_height: img.naturalHeight,
    img_box: [r.width, r.height], table_rows: table.rows.length,
    table_box: [t.width, t.height], table_text: table.innerText
  });
});
</script>
"""


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    msg = ("headless Chromium not found (Debian: apt-get install -y chromium); "
           "needed to check the demo report in a browser")
    if os.environ.get("PENLEARN_REQUIRE_DATA") == "1" or os.environ.get("CI"):
        pytest.fail(msg + " (required under PENLEARN_REQUIRE_DATA=1 / CI)")
    pytest.skip(msg)


def run_chromium(browser: str, *args: str, tmp_path) -> subprocess.CompletedProcess:
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--no-first-run", "--disable-extensions", f"--user-data-dir={tmp_path / 'profile'}",
           *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180,
                          env={**os.environ, "HOME": str(tmp_path)})


@pytest.fixture(scope="module")
def report(demo):
    return demo.out / "report.html"


@pytest.mark.slow  # tier 2: headless Chromium renders the demo's report
def test_screenshot_of_the_demo_report(report, tmp_path):
    browser = chromium()
    shot = tmp_path / "report.png"
    proc = run_chromium(browser, f"--screenshot={shot}", "--window-size=1200,1600",
                        report.as_uri(), tmp_path=tmp_path)
    assert shot.exists(), proc.stderr[-2000:]
    img = mpimg.imread(shot)
    assert img.shape[:2] == (1600, 1200)
    rgb = img[..., :3]
    # not blank: a white page with text, tables and figures
    nonwhite = np.mean(rgb.min(axis=2) < 0.95)
    assert 0.02 < nonwhite < 0.8, nonwhite
    colours = np.unique((rgb.reshape(-1, 3) * 255).astype(np.uint8), axis=0)
    assert len(colours) > 100
    # the ROC figure's orange/green curves are on the first screen (below the table)
    orange = (rgb[..., 0] > 0.75) & (rgb[..., 1] > 0.3) & (rgb[..., 1] < 0.5) & \
        (rgb[..., 2] < 0.15)
    assert orange.sum() > 50


def test_dom_shows_roc_figure_and_auc_table(report, tmp_path):
    browser = chromium()
    probe = tmp_path / "probe.html"
    probe.write_text(report.read_text(encoding="utf-8").replace("</body>", _PROBE + "</body>"),
                     encoding="utf-8")
    proc = run_chromium(browser, "--dump-dom", "--virtual-time-budget=5000", probe.as_uri(),
                        tmp_path=tmp_path)
    dom = proc.stdout
    assert '<img id="roc-figure"' in dom and 'id="auc-table"' in dom, proc.stderr[-2000:]
    m = re.search(r"<title>PROBE (.*?)</title>", dom, re.S)
    assert m, "the page's load handler did not run: " + dom[:500]
    import html
    import json

    info = json.loads(html.unescape(m.group(1)))
    # the ROC PNG was decoded and laid out at a visible size
    assert info["img_complete"] and info["img_width"] > 200 and info["img_height"] > 200
    assert info["img_box"][0] > 200 and info["img_box"][1] > 200
    # the AUC table: a header and one row per prediction, visible, with numbers
    assert info["table_rows"] == 4
    assert info["table_box"][0] > 100 and info["table_box"][1] > 40
    text = info["table_text"]
    for word in ("auc", "aum", "learned", "initialisation", "BIC"):
        assert word in text
