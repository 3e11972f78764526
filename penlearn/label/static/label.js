// penlearn label: the page. igv.js draws one window at a time; this script asks the
// server (same origin, its secret in the X-Penlearn-Token header: never a cookie, which
// every port of the host would receive) for the window's coverage, peaks and labels,
// turns igv.js regions of interest into labels, and redraws after every change.
"use strict";

const TOKEN_HEADER = "X-Penlearn-Token";
const SECRET_KEY = "penlearn-label-secret";  // sessionStorage: this tab, this origin
let secret = sessionStorage.getItem(SECRET_KEY);

async function session() {
  // a link's one-time token (?token=...), traded once for the page's secret; the link
  // is taken out of the address bar (and so of a reload, the history and bookmarks)
  const one = new URLSearchParams(location.search).get("token");
  if (one !== null) {
    history.replaceState(null, "", location.pathname + location.hash);
    const res = await fetch("api/session", {
      method: "POST", credentials: "omit", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({token: one}),
    });
    const data = await res.json();
    if (res.ok) {
      secret = data.token;
      sessionStorage.setItem(SECRET_KEY, secret);
    } else if (!secret) {
      throw new Error(data.error || res.statusText);
    }
  }
  if (!secret) {
    throw new Error("open the link penlearn label printed (each link opens the page once)");
  }
}

function text(value) {  // igv.js shows track names and popups as HTML: ids are text
  return String(value).replace(/[&<>"']/g, c => ({
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}

function popup(data) {  // igv.js's popup of a feature, every field as text
  if (!data || !data.length) return false;
  return data.map(d => d && d.name !== undefined
    ? `<div><span>${text(d.name)}</span>&nbsp;&nbsp;${text(d.value)}</div>`
    : "<hr>").join("");
}

const COLORS = {  // the UCSC hub colours of penlearn.peaks.formats.hub.LABEL_COLORS
  noPeaks: "rgb(246,244,191)", peakStart: "rgb(255,175,175)",
  peakEnd: "rgb(255,76,76)", peaks: "rgb(164,69,238)",
};
const ERROR_COLORS = {FP: "rgb(214,39,40)", FN: "rgb(31,119,180)"};
const KEYS = {n: "noPeaks", s: "peakStart", e: "peakEnd", p: "peaks"};

const page = {
  browser: null, samples: [], windows: 0, current: 0, view: null, roi: null,
  busy: false, timings: [], phases: [], loads: 0, errors: [],
};
window.penlearn = page;  // read by the tests (timings, view, loads)

async function api(path, body) {
  const headers = {[TOKEN_HEADER]: secret};
  const opts = body === undefined ? {headers} : {
    method: "POST", headers: {...headers, "Content-Type": "application/json"},
    body: JSON.stringify(body),
  };
  const res = await fetch(path, {credentials: "omit", ...opts});
  const data = await res.json();
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

function say(text, cls) {
  const el = document.getElementById("selection");
  el.textContent = text;
  el.className = cls || "";
}

function coverageFeatures(chrom, cov) {  // {start, width[], count[]}: contiguous rows
  if (!cov) return [];
  const out = new Array(cov.width.length);
  let a = cov.start;
  for (let k = 0; k < cov.width.length; k++) {
    out[k] = {chr: chrom, start: a, end: a + cov.width[k], value: cov.count[k]};
    a += cov.width[k];
  }
  return out;
}

function trackConfigs(view, parts) {
  const w = view.window;
  const out = [];
  view.samples.forEach((s, i) => {
    if (parts.includes("coverage")) {
      out.push({
        type: "wig", name: `${text(s.id)} coverage`, order: 10 * i, height: 50, color: "#555",
        autoscale: true, removable: false, searchable: false,
        features: coverageFeatures(w.chrom, s.coverage),
      });
    }
    if (parts.includes("peaks")) {
      out.push({
        type: "annotation", name: `${text(s.id)} peaks`, order: 10 * i + 1, height: 18,
        displayMode: "COLLAPSED", color: "#1f77b4", removable: false, searchable: false,
        features: s.peaks.map(([a, b]) => ({chr: w.chrom, start: a, end: b, name: "peak"})),
      });
    }
    if (parts.includes("labels")) {
      const feats = [];
      for (const [a, b, ann, st] of s.labels) {
        feats.push({chr: w.chrom, start: a, end: b, name: ann, color: COLORS[ann],
                    sample: s.id, annotation: ann, status: st});
        if (st !== "correct") {  // a second row: the error, coloured
          feats.push({chr: w.chrom, start: a, end: b, name: st, color: ERROR_COLORS[st],
                      sample: s.id, annotation: ann, status: st});
        }
      }
      out.push({
        type: "annotation", name: `${text(s.id)} labels`, order: 10 * i + 2, height: 56,
        displayMode: "EXPANDED", expandedRowHeight: 22, removable: false, searchable: false,
        features: feats,
      });
    }
  });
  return out;
}

async function replaceTracks(view, parts, {paint = true} = {}) {
  // The features of the tracks are swapped in place (igv.js's static feature source has
  // updateFeatures; a new track is made empty first, all of them in one loadTrackList):
  // igv.js lays its tracks out once, and after a label only the peak and label tracks
  // are repainted. An igv.js without that method gets new tracks instead.
  const configs = trackConfigs(view, parts);
  const tracks = () => new Map(page.browser.findTracks(() => true).map(t => [t.name, t]));
  let byName = tracks();
  const missing = configs.filter(c => !byName.has(c.name));
  if (missing.length) {
    await page.browser.loadTrackList(missing.map(c => ({...c, features: []})));
    byName = tracks();
  }
  const fresh = [];
  const updated = [];
  for (const c of configs) {
    const t = byName.get(c.name);
    if (t && t.featureSource && typeof t.featureSource.updateFeatures === "function") {
      t.featureSource.updateFeatures(c.features);
      t.clearCachedFeatures();
      updated.push(t);
    } else {
      if (t) page.browser.removeTrack(t);
      fresh.push(c);
    }
  }
  if (paint || missing.length) await Promise.all(updated.map(t => t.updateViews()));
  if (fresh.length) await page.browser.loadTrackList(fresh);
}

function pathsText(ready) {  // a label waits for its samples' paths: say so
  const n = page.samples.length;
  return ready < n ? ` · models of this window: ${ready} of ${n} samples computed ` +
    "(a label here waits for them)" : "";
}

function showStatus(view) {
  const w = view.window;
  document.getElementById("where").textContent =
    `window ${w.index + 1} of ${w.count} · ${w.chrom}:${(w.start + 1).toLocaleString()}-` +
    `${w.end.toLocaleString()} · ${view.labels} labels in ${view.labeled_windows.length} ` +
    `window(s) · label errors in view: ${view.errors}`;
  document.getElementById("paths").textContent = pathsText(view.paths_ready);
  document.getElementById("model").textContent = `model: ${view.model}`;
  document.getElementById("undo").disabled = !view.undo;
}

async function load(index, {keepTracks = false, fetched = null} = {}) {
  const moved = !page.view || page.view.window.index !== index;
  const redraw = keepTracks && !moved;  // the coverage is drawn already
  const t0 = performance.now();
  const view = await (fetched || api(`/api/window?i=${index}${redraw ? "&coverage=0" : ""}`));
  page.lastFetch = performance.now() - t0;
  page.view = view;
  page.current = index;
  history.replaceState(null, "", `#w=${index}`);
  if (!redraw) {
    page.browser.clearROIs();
    page.roi = null;
    const w = view.window;
    const locus = `${w.chrom}:${w.start + 1}-${w.end}`;
    // the tracks' features swapped in place (igv.js lays its tracks out again after
    // each track removed), then the move: igv.js paints them once, there
    await replaceTracks(view, ["coverage", "peaks", "labels"], {paint: page.locus === locus});
    if (page.locus !== locus) {
      await page.browser.search(locus);
      page.locus = locus;
    }
  } else {
    await replaceTracks(view, ["peaks", "labels"]);
  }
  showStatus(view);
  page.loads += 1;
  document.body.dataset.loads = String(page.loads);
  return view;
}

async function change(body, path) {
  const t0 = performance.now();
  await api(path, body);
  const saved = performance.now() - t0;
  await load(page.current, {keepTracks: true});
  const ms = performance.now() - t0;
  page.timings.push(ms);
  page.phases.push({save: saved, fetch: page.lastFetch, draw: ms - saved - page.lastFetch});
  document.getElementById("timing").textContent =
    `· last change saved, re-learned and redrawn in ${Math.round(ms)} ms`;
}

let queue = Promise.resolve();
function guarded(fn) {  // one change or load at a time, in order: no key is dropped
  const run = async () => {
    page.busy = true;
    try {
      await fn();
    } catch (err) {
      page.errors.push(String(err.message || err));
      say(`error: ${err.message || err}`, "fp");
    } finally {
      page.busy = false;
    }
  };
  queue = queue.then(run, run);
  return queue;
}

function label(annotation) {
  return guarded(async () => {
    if (!page.roi) {
      say("select a region first: shift-drag on the ruler", "fp");
      return;
    }
    const w = page.view.window;
    const start = Math.max(w.start, Math.round(page.roi.start));
    const end = Math.min(w.end, Math.round(page.roi.end));
    if (page.roi.chr !== w.chrom || end <= start) {
      say("the region must be inside this window", "fp");
      return;
    }
    const scope = document.getElementById("scope").value;
    await change({chrom: w.chrom, start, end, annotation,
                  samples: scope === "all" ? "all" : [scope]}, "/api/label");
    page.browser.clearROIs();
    page.roi = null;
    say(`${annotation} ${w.chrom}:${start + 1}-${end} saved`);
  });
}

function hideMenu() {
  document.getElementById("menu").hidden = true;
}

function labelMenu(feature, x, y) {
  const menu = document.getElementById("menu");
  menu.innerHTML = "";
  const title = document.createElement("div");
  title.textContent = `${feature.sample}: ${feature.annotation} (${feature.status})`;
  menu.appendChild(title);
  const w = page.view.window;
  for (const ann of Object.keys(COLORS)) {
    if (ann === feature.annotation) continue;
    const b = document.createElement("button");
    b.textContent = `change to ${ann}`;
    b.onclick = () => { hideMenu(); guarded(() => change(
      {chrom: w.chrom, start: feature.start, end: feature.end, annotation: ann,
       samples: [feature.sample]}, "/api/label")); };
    menu.appendChild(b);
  }
  const del = document.createElement("button");
  del.textContent = "delete";
  del.className = "delete";
  del.onclick = () => { hideMenu(); guarded(() => change(
    {sample: feature.sample, chrom: w.chrom, start: feature.start, end: feature.end},
    "/api/delete")); };
  menu.appendChild(del);
  const close = document.createElement("button");
  close.textContent = "cancel";
  close.onclick = hideMenu;
  menu.appendChild(close);
  menu.style.left = `${Math.min(x, window.innerWidth - 220)}px`;
  menu.style.top = `${y}px`;
  menu.hidden = false;
}

let lastClick = {x: 0, y: 0};
let mouseDown = false;  // no redraw under a drag on the ruler
document.addEventListener("mousedown", ev => {
  lastClick = {x: ev.clientX, y: ev.clientY};
  mouseDown = true;
}, true);
document.addEventListener("mouseup", () => { mouseDown = false; }, true);

async function main() {
  await session();
  const st = await api("/api/state");
  page.samples = st.samples;
  page.windows = st.windows;
  const scope = document.getElementById("scope");
  for (const s of st.samples) {
    const o = document.createElement("option");
    o.value = s;
    o.textContent = s;
    scope.appendChild(o);
  }
  document.getElementById("save").disabled = !st.model_out;
  const m = /#w=(\d+)/.exec(location.hash);
  const first = m && Number(m[1]) < st.windows ? Number(m[1]) : st.start;
  const fetched = api(`/api/window?i=${first}`);  // (computed while igv.js starts)
  const [chrom, start, end] = st.window_list[first];
  page.locus = `${chrom}:${start + 1}-${end}`;
  page.browser = await igv.createBrowser(document.getElementById("igv"), {
    locus: page.locus,
    // the chromosome sizes in memory: igv.js's own requests carry no secret
    reference: {id: "penlearn", name: "coverage", format: "chromsizes",
                fastaURL: URL.createObjectURL(new Blob(
                  Object.entries(st.chrom_sizes).map(([c, n]) => `${c}\t${n}\n`),
                  {type: "text/plain"})),
                wholeGenomeView: false},
    loadDefaultGenomes: false, showIdeogram: false, showCircularViewButton: false,
    showSVGButton: false, showTrackLabels: true, tracks: [],
  });
  page.browser.on("roiadded", roi => {
    page.roi = roi;
    say(`selected ${roi.chr}:${Math.round(roi.start) + 1}-${Math.round(roi.end)}: ` +
        "press n, s, e or p (or a button)");
  });
  page.browser.on("roiremoved", () => { page.roi = null; say(""); });
  page.browser.on("trackclick", (track, data, loc, features) => {
    if (!track.name || !track.name.endsWith(" labels") || !features || !features.length) {
      return popup(data);  // (igv.js's own popup would show ids as HTML)
    }
    labelMenu(features[0], lastClick.x, lastClick.y);
    return false;
  });
  await load(first, {fetched});
  document.body.dataset.ready = "1";
}

function typing(ev) {  // a key for a field (igv.js's locus box sits in a shadow root)
  return ev.composedPath().some(el => el instanceof Element && (
    ["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName) || el.isContentEditable));
}

document.addEventListener("keydown", ev => {
  if (typing(ev) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (KEYS[ev.key]) { label(KEYS[ev.key]); ev.preventDefault(); }
  else if (ev.key === "u") { document.getElementById("undo").click(); }
  else if (ev.key === "Enter") { document.getElementById("next").click(); }
  else if (ev.key === "Escape") { hideMenu(); }
});
for (const b of document.querySelectorAll("button.ann")) {
  b.addEventListener("click", () => label(b.dataset.ann));
}
document.getElementById("undo").onclick = () => guarded(() => change({}, "/api/undo"));
document.getElementById("next").onclick = () => guarded(async () => {
  const r = await api(`/api/next?from=${page.current}`);
  if (r.next === null) { say(r.reason); return; }
  await load(r.next);
  say(`Next: ${r.sequence_id}: ${r.reason}`);
});
document.getElementById("prev").onclick = () => guarded(
  () => load((page.current - 1 + page.windows) % page.windows));
document.getElementById("save").onclick = () => guarded(async () => {
  const r = await api("/api/save-model", {});
  await load(page.current, {keepTracks: true});  // the saved model's peaks
  say(`model saved to ${r.saved}`);
});
document.addEventListener("visibilitychange", () => {
  if (!document.hidden && page.view) guarded(() => load(page.current, {keepTracks: true}));
});

// the background learner's model, when it lands: the peaks and the errors redrawn
setInterval(() => {
  if (page.busy || !page.view || document.hidden || mouseDown || page.roi) return;
  api(`/api/version?i=${page.current}`).then(v => {
    if (!page.busy && page.view && v.model_version !== page.view.model_version) {
      guarded(() => load(page.current, {keepTracks: true}));
    } else if (page.view) {
      page.view.paths_ready = v.paths_ready;
      document.getElementById("paths").textContent = pathsText(v.paths_ready);
    }
  }).catch(() => {});
}, 1500);

main().catch(err => { page.errors.push(String(err)); say(`error: ${err}`, "fp"); });
