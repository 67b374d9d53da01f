/* AWRLens.ChartWindows: the windows a time chart (charts.js) loads, as plain arithmetic on {from, to} in ms.
 * A tool button moves the window by half its width (earlier, later), halves it (zoom in, to MIN_WINDOW at the
 * narrowest, as the drag and wheel zoom) or doubles it (zoom out), kept inside the range's limits; after each fetch
 * the windows either side, as wide as the window and clipped to the limits, are prefetched so a pan shows data at
 * once. The loaded segments ({lo, hi, detail, full, res}) cover a window when one of them is that window, or when
 * the segments at full resolution reach across it; their points are merged per series in time order. */
(function (AWRLens) {
  "use strict";
  var cfg = window.AWRLENS_CONFIG || {};
  var MIN_WINDOW = 15 * 60 * 1000;
  var MIN_PREFETCH = 60 * 1000;  // a side narrower than this (at the range's edge) is not worth a request
  var MARKER_KINDS = ["restarts", "missing", "merged_snapshots"];

  /** Whether a window is short enough for per-minute detail. */
  function detailed(win) { return win.to - win.from <= (cfg.detailMaxHours || 6) * 3600e3; }

  /** The window a tool asks for ("earlier", "later", "zoomin", "zoomout"), {from, to} rounded to the ms and inside
   * win.limits; null when it would be narrower than MIN_WINDOW (zoom in from MIN_WINDOW or narrower). */
  function step(win, what) {
    var w = win.to - win.from, lim = win.limits, from = win.from, to = win.to;
    if (what === "earlier") { from -= w / 2; to -= w / 2; }
    if (what === "later") { from += w / 2; to += w / 2; }
    if (what === "zoomin") {  // to half the width, never under MIN_WINDOW (as the drag and wheel zoom's minRange)
      if (w <= MIN_WINDOW) { return null; }
      var cut = (w - Math.max(w / 2, MIN_WINDOW)) / 2;
      from += cut; to -= cut;
    }
    if (what === "zoomout") { from -= w / 2; to += w / 2; }
    if (to - from < MIN_WINDOW) { return null; }
    if (from < lim.min) { to += lim.min - from; from = lim.min; }
    if (to > lim.max) { from -= to - lim.max; to = lim.max; }
    return { from: Math.round(Math.max(from, lim.min)), to: Math.round(Math.min(to, lim.max)) };
  }

  /** The windows to prefetch either side of `win`: as wide as it, clipped to its limits, none narrower than
   * MIN_PREFETCH. */
  function neighbours(win) {
    var width = win.to - win.from;
    return [{ from: Math.max(win.limits.min, win.from - width), to: win.from },
      { from: win.to, to: Math.min(win.limits.max, win.to + width) }]
      .filter(function (side) { return side.to - side.from >= MIN_PREFETCH; });
  }

  /** Whether the loaded `segments` of this resolution (`detail`) hold the window from-to. */
  function covers(segments, from, to, detail) {
    var segs = segments.filter(function (s) { return s.detail === detail; });
    if (segs.some(function (s) { return s.lo === from && s.hi === to; })) { return true; }
    var full = segs.filter(function (s) { return s.full; }).sort(function (a, b) { return a.lo - b.lo; });
    var reach = from;
    for (var i = 0; i < full.length; i++) {
      if (full[i].lo > reach) { break; }
      reach = Math.max(reach, full[i].hi);
      if (reach >= to) { return true; }
    }
    return false;
  }

  /** The merged points of every loaded segment of this resolution, per series, in time order, and their markers;
   * a series is cut (a null point) in each missing snapshot of its instance (of any, with `single`). */
  function merge(segments, detail, single) {
    var order = [], byKey = {}, marks = { restarts: [], missing: [], merged_snapshots: [] }, seen = {};
    segments.filter(function (s) { return s.detail === detail; }).forEach(function (seg) {
      seg.res.datasets.forEach(function (d) {
        if (!byKey[d.key]) { byKey[d.key] = Object.assign({}, d, { points: [], partial: AWRLens.Dom.table() }); order.push(d.key); }
        byKey[d.key].points = byKey[d.key].points.concat(d.points);
        Object.assign(byKey[d.key].partial, d.partial);
      });
      MARKER_KINDS.forEach(function (kind) {
        ((seg.res.markers || {})[kind] || []).forEach(function (m) {
          var id = kind + JSON.stringify(m);
          if (!seen[id]) { seen[id] = true; marks[kind].push(m); }
        });
      });
    });
    var list = order.map(function (key) {
      var d = byKey[key];
      var pts = d.points.slice().sort(function (a, b) { return a[0] - b[0]; });
      var out = [], last = null;
      pts.forEach(function (p) { if (p[0] !== last) { out.push(p); last = p[0]; } });
      // never draw a line across missing snapshots of this series' instance
      marks.missing.forEach(function (g) {
        if (d.instance === g.instance || (single && d.instance === "all")) {
          var mid = (Date.parse(g.from) + Date.parse(g.to)) / 2;
          var i = out.findIndex(function (p) { return p[0] > mid; });
          if (i > 0) { out.splice(i, 0, [mid, null]); }
        }
      });
      return Object.assign({}, d, { points: out });
    });
    return { datasets: list, markers: marks };
  }

  AWRLens.ChartWindows = {
    MIN_WINDOW: MIN_WINDOW,
    MIN_PREFETCH: MIN_PREFETCH,
    detailed: detailed,
    step: step,
    neighbours: neighbours,
    covers: covers,
    merge: merge
  };
}(window.AWRLens = window.AWRLens || {}));
