/* AWRLens.Charts: time charts on Chart.js.
 * A chart shows one time window (shared by every chart of a view) and asks its loader for data:
 *   load({from, to}, detail) -> Promise of {datasets: [{key, label, unit, instance, points: [[ms, y]],
 *                                           partial: {ms: {instances, missing}}, ...}],
 *                                           markers: {restarts, missing}, downsampled}
 * Drag to zoom, Shift+drag to pan, Ctrl+wheel to zoom around the pointer, or the buttons: the new window goes to
 * onWindow(from, to, how) (the view puts it in the URL) and comes back through setWindow. A wheel gesture is one
 * history entry: its first step pushes, the steps that follow within GESTURE_MS replace. A window the loaded data covers at full resolution is drawn at once; a
 * narrower one with downsampled data is fetched again at finer resolution (per-minute detail when the window is
 * a few hours), and after each fetch the neighbouring windows are prefetched so panning shows data at once
 * (unless spec.prefetch is false: a window whose answer depends on the whole window, as top activity's top 10).
 * The card, legend, PNG and CSV are AWRLens.ChartCard's; XY charts (createXY) are in charts-xy.js. A spec may add
 * Chart.js plugins drawn with the chart (spec.plugins: the event histogram's heat map under its lines), start on a log
 * y axis (spec.log) with its bounds (spec.yRange(win) -> {min, max}) and give its own CSV (spec.toCSV(chart)). */
(function (AWRLens) {
  "use strict";
  var F = AWRLens.Format, Card = AWRLens.ChartCard, Theme = AWRLens.Theme, DateTime = window.luxon.DateTime;
  var cfg = window.AWRLENS_CONFIG || {};
  var firstPainted = false;
  var PALETTE = Card.PALETTE;
  var MIN_WINDOW = 15 * 60 * 1000;
  var GESTURE_MS = 1000;
  var Changes = AWRLens.Changes;
  var CHANGES_TOOL = ["changes", "Δ", "What changed: show or hide the markers and the lists of changes on every chart"];
  var HELP = "Drag across the chart to zoom in, Shift+drag to pan, Ctrl+wheel to zoom the time around the pointer";

  // instance restarts (a line), missing snapshots (a shaded band) and manual snapshots (a dotted line), from the API's
  // markers
  var markers = {
    id: "awrMarkers",
    beforeDatasetsDraw: function (chart) {
      var m = chart.$awr && chart.$awr.markers, area = chart.chartArea, x = chart.scales.x;
      if (!m || !x) { return; }
      var ctx = chart.ctx;
      ctx.save();
      (m.missing || []).forEach(function (g) {
        var a = Math.max(area.left, x.getPixelForValue(Date.parse(g.from)));
        var b = Math.min(area.right, x.getPixelForValue(Date.parse(g.to)));
        if (b <= a) { return; }
        ctx.fillStyle = "rgba(160, 160, 160, 0.25)";
        ctx.fillRect(a, area.top, b - a, area.bottom - area.top);
        ctx.fillStyle = Theme.color("--muted");
        ctx.font = "11px system-ui, sans-serif";
        ctx.fillText("missing · inst " + g.instance, a + 2, area.bottom - 4);
      });
      (m.merged_snapshots || []).forEach(function (s) {  // manual snapshots, merged into the next interval
        var px = x.getPixelForValue(Date.parse(s.time));
        if (px < area.left || px > area.right) { return; }
        ctx.strokeStyle = Theme.color("--muted");
        ctx.setLineDash([1, 3]);
        ctx.beginPath();
        ctx.moveTo(px, area.top + 14);
        ctx.lineTo(px, area.bottom);
        ctx.stroke();
        ctx.setLineDash([]);
        ctx.fillStyle = Theme.color("--muted");
        ctx.font = "11px system-ui, sans-serif";
        ctx.fillText("manual snapshot · inst " + s.instance, px + 3, area.top + 24);
      });
      (m.restarts || []).forEach(function (r) {
        var px = x.getPixelForValue(Date.parse(r.startup_time || r.time));
        if (px < area.left || px > area.right) { return; }
        ctx.strokeStyle = ctx.fillStyle = Theme.color("--restart");
        ctx.setLineDash([4, 3]);
        ctx.beginPath();
        ctx.moveTo(px, area.top);
        ctx.lineTo(px, area.bottom);
        ctx.stroke();
        ctx.setLineDash([]);
        ctx.font = "11px system-ui, sans-serif";
        ctx.fillText("restart · inst " + r.instance, px + 3, area.top + 10);
      });
      ctx.restore();
    }
  };

  // a combined point that sums fewer instances than the range holds, drawn as an open triangle over its line: by a
  // plugin, as a point radius given by a function is resolved for every point on every redraw (Chart.js then shares
  // no options between points: a quarter of the page's drawing, BENCHMARKS.md). The points drawn are kept in
  // chart.$awrPartial (x values).
  var partialMarks = {
    id: "awrPartial",
    afterDatasetsDraw: function (chart) {
      var area = chart.chartArea, ctx = chart.ctx, drawn = [];
      chart.data.datasets.forEach(function (d, i) {
        if (!d.partial || !Object.keys(d.partial).length || !chart.isDatasetVisible(i)) { return; }
        var style = { pointStyle: "triangle", radius: 4, rotation: 0, borderWidth: d.borderWidth };
        ctx.save();
        ctx.fillStyle = Theme.color("--panel");
        ctx.strokeStyle = d.borderColor;
        ctx.lineWidth = d.borderWidth;
        chart.getDatasetMeta(i).data.forEach(function (el, k) {
          var raw = d.data[k];  // what is drawn (decimation replaces the data with its points)
          if (!raw || !d.partial[raw.x] || el.skip || el.x < area.left || el.x > area.right) { return; }
          window.Chart.helpers.drawPoint(ctx, style, el.x, el.y);
          drawn.push(raw.x);
        });
        ctx.restore();
      });
      chart.$awrPartial = drawn;
    }
  };

  // performance marks for the benchmark: the first chart drawn with data, and the frame after it
  var paint = {
    id: "awrPaint",
    afterRender: function (chart) {
      if (firstPainted || !chart.data.datasets.some(function (d) { return d.data.length; })) { return; }
      firstPainted = true;
      performance.mark("awrlens:first-chart");
      requestAnimationFrame(function () { performance.mark("awrlens:first-chart-painted"); });
    }
  };

  /** Whether a window is short enough for per-minute detail. */
  function detailed(win) { return win.to - win.from <= (cfg.detailMaxHours || 6) * 3600e3; }

  /** Mean of the points in fixed time buckets (aligned on multiples of the bucket), so stacked series stay aligned. */
  /** The tooltip line of a combined point that sums fewer instances than the range holds (docs/awr-rules.md §11). */
  function partialText(short) {
    if (!short) { return ""; }
    return "△ sums " + short.instances + " instance" + (short.instances === 1 ? "" : "s") + "; no interval of instance " +
      short.missing.join(", ") + " here";
  }

  var STEPS = [[1, "minute"], [2, "minute"], [5, "minute"], [10, "minute"], [15, "minute"], [30, "minute"],
    [1, "hour"], [2, "hour"], [3, "hour"], [6, "hour"], [12, "hour"], [1, "day"], [2, "day"], [7, "day"], [14, "day"]];
  var UNIT_MS = { minute: 60000, hour: 3600000, day: 86400000 };

  /** Ticks at round times of `zone` between `from` and `to`: the smallest step of STEPS that gives at most `most`. */
  function roundTicks(from, to, zone, most) {
    var step = STEPS.find(function (s) { return (to - from) / (s[0] * UNIT_MS[s[1]]) <= most; }) || STEPS[STEPS.length - 1];
    var t = DateTime.fromMillis(from, { zone: zone }).startOf(step[1] === "minute" ? "hour" : "day"), ticks = [];
    for (var guard = 0; t.toMillis() <= to && guard < 2000; guard++) {
      var aligned = step[1] === "day" ? (step[0] === 7 || step[0] === 14 ? t.weekday === 1 : true)
        : (step[1] === "hour" ? t.hour : t.minute) % step[0] === 0;
      if (t.toMillis() >= from && aligned) { ticks.push({ value: t.toMillis() }); }
      var by = {};
      by[step[1] + "s"] = step[1] === "minute" ? step[0] : 1;
      t = t.plus(by);
    }
    return ticks;
  }

  /** A tick's text: the time of day, or the date at midnight and on axes of whole days. */
  function tickLabel(value, win) {
    var d = DateTime.fromMillis(value, { zone: win.zone }), days = win.to - win.from > 2 * UNIT_MS.day;
    return days || (d.hour === 0 && d.minute === 0) ? d.toFormat("dd LLL") : d.toFormat("HH:mm");
  }

  /** A tick step for a byte unit's axis: a round number (1, 2 or 5 x 10^k) of the binary unit (KB, MB, GB...) the
   * largest value reads in, about six steps up to it. */
  function byteStep(datasets, unit) {
    var most = 0;
    datasets.forEach(function (d) {
      if (d.unit === unit) { d.data.forEach(function (p) { if (p.y > most) { most = p.y; } }); }
    });
    var scale = 1;
    while (most / scale >= 1024) { scale *= 1024; }
    var raw = most / scale / 6, pow = Math.pow(10, Math.floor(Math.log10(raw || 1)));
    var nice = [1, 2, 5, 10].find(function (m) { return m * pow >= raw; });
    return most ? nice * pow * scale : undefined;
  }

  function bucketed(points, bucket) {
    var out = [], key = null, sum = 0, n = 0;
    function flush() {
      if (key !== null) { out.push([key, n ? sum / n : null]); }
    }
    points.forEach(function (p) {
      var k = Math.floor(p[0] / bucket) * bucket;
      if (k !== key) { flush(); key = k; sum = 0; n = 0; }
      if (p[1] !== null) { sum += p[1]; n += 1; }
    });
    flush();
    return out;
  }

  /**
   * spec: {id, title, load, onWindow, stacked, bucket, detail (bool: has per-minute twins), yMax, height}
   */
  function TimeChart(container, spec) {
    this.spec = spec;
    this.segments = [];
    this.gen = 0;
    this.chart = null;
    this.win = null;
    Card.build(this, container, spec, { tools: [["earlier", "◀", "Earlier: move the window back by half"],
      ["zoomin", "+", "Zoom in"], ["zoomout", "−", "Zoom out"], ["later", "▶", "Later: move the window forward by half"],
      ["help", "?", HELP]].concat(spec.stacked ? [] : [Card.LOG_TOOL], spec.changes ? [CHANGES_TOOL] : []),
      status: "Loading…", height: 240, label: spec.title + " over time. " + HELP + "." });
    if (spec.changes) {  // what changed in the window (AWRLens.Changes): shown unless the link hides them
      Changes.attach(this);
      this.card.querySelector("[data-act=changes]").setAttribute("aria-pressed", String(Changes.shown()));
    }
    this.log = !!spec.log;  // spec.log: the y axis starts logarithmic (the log tool still turns it off)
    if (this.log) { this.card.querySelector("[data-act=log]").setAttribute("aria-pressed", "true"); }
    var self = this;
    this.canvas.addEventListener("wheel", function (e) { if (e.ctrlKey) { self.wheelAt = Date.now(); } }, { passive: true });
  }

  TimeChart.prototype.setState = Card.methods.setState;
  TimeChart.prototype.renderLegend = Card.methods.renderLegend;

  /** Show window {from, to, zone, limits: {min, max}}: draw what is loaded, fetch what is missing. */
  TimeChart.prototype.setWindow = function (win) {
    this.win = win;
    var detail = !!this.spec.detail && detailed(win);
    this.detail = detail;
    if (this.covers(win.from, win.to, detail)) {
      this.render();
      this.prefetch();
      return;
    }
    this.loadChanges();
    this.fetch(win.from, win.to, detail);
  };

  TimeChart.prototype.covers = function (from, to, detail) {
    var segs = this.segments.filter(function (s) { return s.detail === detail; });
    if (segs.some(function (s) { return s.lo === from && s.hi === to; })) { return true; }
    var full = segs.filter(function (s) { return s.full; }).sort(function (a, b) { return a.lo - b.lo; });
    var reach = from;
    for (var i = 0; i < full.length; i++) {
      if (full[i].lo > reach) { break; }
      reach = Math.max(reach, full[i].hi);
      if (reach >= to) { return true; }
    }
    return false;
  };

  TimeChart.prototype.fetch = function (from, to, detail) {
    var self = this, gen = ++this.gen;
    if (!this.chart) { this.setState("loading", "Loading…"); } else { this.setState("refreshing", "Loading finer detail…"); }
    this.spec.load({ from: from, to: to }, detail).then(function (res) {
      if (gen !== self.gen) { return; }
      self.segments = [{ lo: from, hi: to, detail: detail, full: !res.downsampled, res: res }];
      self.render();
      self.prefetch();
    }).catch(function (err) {
      if (gen !== self.gen) { return; }
      self.setState("error", "Could not load this chart: " + err.message);
      if (self.chart) { self.chart.$awr.markers = null; }
    });
  };

  /** Load the windows either side of the current one, so a pan shows data at once. */
  TimeChart.prototype.prefetch = function () {
    var self = this, gen = this.gen;
    if (this.spec.prefetch === false) { return; }  // each window its own answer (top activity's top 10)
    this.prefetching = true;
    AWRLens.Api.whenIdle(function () {
      self.prefetching = false;
      if (gen === self.gen && self.chart) { self.prefetchNow(); }
    });
  };

  TimeChart.prototype.prefetchNow = function () {
    var self = this, win = this.win, detail = this.detail, width = win.to - win.from;
    [[Math.max(win.limits.min, win.from - width), win.from], [win.to, Math.min(win.limits.max, win.to + width)]]
      .forEach(function (side) {
        if (side[1] - side[0] < 60000 || self.covers(side[0], side[1], detail)) { return; }
        var gen = self.gen;
        self.spec.load({ from: side[0], to: side[1] }, detail).then(function (res) {
          if (gen !== self.gen || !self.segments.length) { return; }
          self.segments.push({ lo: side[0], hi: side[1], detail: detail, full: !res.downsampled, res: res });
          self.render();
        }).catch(function () { /* already shown by the error display */ });
      });
  };

  /** The merged points of every loaded segment, per series, in time order. */
  TimeChart.prototype.merged = function () {
    var detail = this.detail, order = [], byKey = {}, marks = { restarts: [], missing: [], merged_snapshots: [] }, seen = {};
    this.segments.filter(function (s) { return s.detail === detail; }).forEach(function (seg) {
      seg.res.datasets.forEach(function (d) {
        if (!byKey[d.key]) { byKey[d.key] = Object.assign({}, d, { points: [], partial: AWRLens.Dom.table() }); order.push(d.key); }
        byKey[d.key].points = byKey[d.key].points.concat(d.points);
        Object.assign(byKey[d.key].partial, d.partial);
      });
      ["restarts", "missing", "merged_snapshots"].forEach(function (kind) {
        ((seg.res.markers || {})[kind] || []).forEach(function (m) {
          var id = kind + JSON.stringify(m);
          if (!seen[id]) { seen[id] = true; marks[kind].push(m); }
        });
      });
    });
    var single = this.spec.singleInstance;
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
  };

  TimeChart.prototype.datasets = function (merged) {
    var spec = this.spec, win = this.win, bucket = null;
    if (spec.bucket) {  // stacked series: at most maxPoints buckets in the window, the same for every series
      var most = merged.datasets.reduce(function (m, d) {
        return Math.max(m, d.points.filter(function (p) { return p[0] >= win.from && p[0] <= win.to; }).length);
      }, 0);
      if (most > (cfg.maxPoints || 1000)) {
        bucket = Math.ceil((win.to - win.from) / (cfg.maxPoints || 1000) / 60000) * 60000;
      }
    }
    var units = [];
    return merged.datasets.map(function (d, i) {
      if (units.indexOf(d.unit) < 0) { units.push(d.unit); }
      var color = Theme.color(d.color) || PALETTE[i % PALETTE.length];
      var pts = bucket ? bucketed(d.points, bucket) : d.points;
      return {
        label: d.label, unit: d.unit, key: d.key, instance: d.instance, shift: d.shift || 0,
        data: pts.map(function (p) { return { x: p[0], y: p[1] }; }),
        points: pts,  // as loaded: Chart.js's decimation replaces `data` with what it draws
        borderColor: color, backgroundColor: d.fill ? color + "cc" : color,
        // a stacked series fills down to the one below it ("-1"; Chart.js's "stack" mode is 10x slower)
        fill: d.fill === true ? "origin" : d.fill || false,
        stack: d.stack || "s" + i, borderDash: d.dash || [], borderWidth: d.fill ? 0.5 : 1.5,
        pointHitRadius: 4, tension: 0, yAxisID: spec.stacked ? "y" : "y" + units.indexOf(d.unit),
        hidden: false, order: d.order || 0, partial: d.partial || AWRLens.Dom.table(),
        pointRadius: 0  // the partial points: partialMarks
      };
    });
  };

  TimeChart.prototype.scales = function (datasets) {
    var spec = this.spec, win = this.win, scales = {
      x: {
        type: "time", min: win.from, max: win.to,
        adapters: { date: { zone: win.zone } },
        // ticks on round times of the zone shown (every 15 minutes, 6 hours, a day...), which the axis names
        afterBuildTicks: function (scale) {
          scale.ticks = roundTicks(win.from, win.to, win.zone, Math.max(3, Math.floor(scale.chart.width / 90)));
        },
        ticks: { maxRotation: 0, autoSkipPadding: 12, callback: function (value) { return tickLabel(value, win); } },
        title: { display: true, text: "time (" + DateTime.fromMillis(win.to, { zone: win.zone }).toFormat("'UTC'ZZ") + ")",
          font: { size: 11 } }
      }
    };
    var units = [];
    datasets.forEach(function (d) { if (units.indexOf(d.unit) < 0) { units.push(d.unit); } });
    if (spec.stacked) {
      scales.y = { stacked: true, beginAtZero: true, title: { display: true, text: units[0] || "" },
        ticks: { callback: F.fmtCompact } };
    } else {
      var log = this.log, notes = [];
      units.forEach(function (u, i) {
        // byte units are scaled on the axis as in the tables and tooltips (F.fmtValue: 1.5 GB, not 1,536 MB), with
        // ticks on round numbers of the unit the largest value is shown in; the axis names its unit and its series
        var bytes = /^(bytes|MB)(\/s|\/txn)?$/.test(u || ""), mine = datasets.filter(function (d) { return d.unit === u; });
        var names = mine.map(function (d) { return d.label.split(" · ")[0]; }).filter(function (n, k, all) { return all.indexOf(n) === k; });
        scales["y" + i] = { type: "linear", position: i % 2 ? "right" : "left", beginAtZero: true,
          suggestedMax: spec.yMax, grid: { drawOnChartArea: i === 0 },
          title: { display: true, text: (bytes ? u.replace(/^MB/, "bytes") : F.unitTitle(u) || "") + " — " + names.join(", ") },
          ticks: bytes ? { callback: function (v) { return F.fmtValue(v, u); }, stepSize: byteStep(datasets, u) }
            : { callback: F.fmtCompact } };
        if (log) {
          var axis = Card.logAxis([].concat.apply([], mine.map(function (d) {
            return d.points.filter(function (p) { return p[0] >= win.from && p[0] <= win.to; }).map(function (p) { return p[1]; });
          })));
          Object.assign(scales["y" + i], { type: "logarithmic", beginAtZero: false, min: axis.min, suggestedMax: undefined,
            ticks: { callback: function (v) { return F.fmtValue(v, u); } } }, spec.yRange ? spec.yRange(win) : {});
          if (axis.note) { notes.push(axis.note); }
        }
      });
      this.logNote = notes.join(" ");
      if (!units.length) { scales.y0 = { type: "linear", beginAtZero: true }; }
    }
    return scales;
  };

  TimeChart.prototype.render = function () {
    var self = this, spec = this.spec, win = this.win;
    var merged = this.merged();
    var datasets = this.datasets(merged);
    var inWindow = datasets.some(function (d) {
      return d.data.some(function (p) { return p.y !== null && p.x >= win.from && p.x <= win.to; });
    });
    if (!this.chart) {
      this.chart = new window.Chart(this.canvas, {
        type: "line",
        data: { datasets: datasets },
        options: {
          animation: false, parsing: false, normalized: true, spanGaps: false, responsive: true,
          maintainAspectRatio: false,
          interaction: { mode: "nearest", axis: "x", intersect: false },
          scales: this.scales(datasets),
          plugins: {
            legend: { display: false },
            // more points than two per pixel in the window: draw each pixel's first, min, max and last
            decimation: { enabled: !spec.stacked, algorithm: "min-max",
              threshold: Math.max(200, 2 * (this.canvas.parentNode.clientWidth || 600)) },
            tooltip: {
              callbacks: {
                title: function (items) { return items.length ? F.fmtTime(items[0].parsed.x, self.win.zone, true) : ""; },
                label: function (item) {  // a series drawn shifted (compare's period B) gives its own time too
                  var d = item.dataset, own = d.shift ? " at " + F.fmtTime(item.parsed.x + d.shift, self.win.zone, true) : "";
                  return d.label + ": " + F.fmtValue(item.parsed.y, d.unit) + own;
                },
                afterLabel: function (item) { return partialText(item.dataset.partial[item.parsed.x]); }
              }
            },
            zoom: {
              limits: { x: { min: win.limits.min, max: win.limits.max, minRange: MIN_WINDOW } },
              zoom: { mode: "x", drag: { enabled: true, threshold: 8, backgroundColor: "rgba(31,119,180,0.15)" },
                wheel: { enabled: true, modifierKey: "ctrl" },
                onZoomComplete: function (c) { self.userWindow(c.chart); } },
              pan: { enabled: true, mode: "x", modifierKey: "shift",
                onPanComplete: function (c) { self.userWindow(c.chart); } }
            }
          }
        },
        // the chart's markers and owner (the changes it shows) are there for its first drawing, in the constructor
        plugins: [{ id: "awrOwner", beforeInit: function (chart) { chart.$awr = { markers: merged.markers, owner: self }; } },
          Card.background, markers, partialMarks, Changes.plugin, paint].concat(spec.plugins || [])  // spec.plugins: drawn with the chart
      });
    } else {
      var c = this.chart;
      c.data.datasets.forEach(function (old) {
        var now = datasets.find(function (d) { return d.key === old.key; });
        if (now) { now.hidden = !c.isDatasetVisible(c.data.datasets.indexOf(old)); }
      });
      c.data.datasets = datasets;
      c.options.scales = this.scales(datasets);
      c.options.plugins.zoom.limits.x.min = win.limits.min;
      c.options.plugins.zoom.limits.x.max = win.limits.max;
      c.$awr.markers = merged.markers;
      c.update("none");
    }
    this.renderLegend();
    this.loadChanges();
    var notice = this.segments.length && this.segments[0].res.notice;  // the current window's, from its loader
    if (!inWindow) {
      this.setState("empty", notice || "No data in this range.");
    } else {
      var notes = notice ? [notice] : [], short = this.partialPoints();
      if (this.log && this.logNote) { notes.push(this.logNote); }
      if (this.detail && datasets.some(function (d) { return /per minute/.test(d.label); })) {
        notes.push("Per-minute detail (sysmetric history).");
      }
      if (short.count) {
        notes.push("△ " + short.count + (short.count === 1 ? " point sums" : " points sum") + " fewer instances: " +
          "no interval of instance " + short.missing.join(", ") + " there (down, a missing snapshot or a restart).");
      }
      this.setState("ready", notes.join(" "));
    }
  };

  TimeChart.prototype.redraw = TimeChart.prototype.render;

  /** The changes of the window (spec.changes), asked once per window, with its data (setWindow); the list under the
   * chart follows the window. */
  TimeChart.prototype.loadChanges = function () {
    var self = this, win = this.win, key = win.from + "/" + win.to;
    if (!this.spec.changes) { return; }
    Changes.list(this, this.changesShown());
    if (this.changesKey === key) { return; }
    this.changesKey = key;
    this.spec.changes(win).then(function (rows) {
      if (self.changesKey !== key) { return; }
      self.changes = rows;
      if (!self.chart) { return; }  // drawn with the chart
      self.chart.draw();  // the lines and pins are drawn over the chart (Changes.plugin): no new layout or data
      Changes.list(self, self.changesShown());
    }).catch(function () { if (self.changesKey === key) { self.changesKey = null; } });  // asked again next time
  };

  /** The changes in the window, when shown. */
  TimeChart.prototype.changesShown = function () {
    var win = this.win;
    if (!Changes.shown() || !this.changes || !win) { return []; }
    return this.changes.filter(function (r) { return r.ms >= win.from && r.ms <= win.to; });
  };

  /** The changes shown or hidden as the link now says (AWRLens.Changes calls it on every time chart). */
  TimeChart.prototype.showChanges = function () {
    this.card.querySelector("[data-act=changes]").setAttribute("aria-pressed", String(Changes.shown()));
    if (this.chart) { this.chart.draw(); }
    if (this.win) { Changes.list(this, this.changesShown()); }
  };

  /** The user zoomed or panned this chart: hand the new window to the view (which puts it in the URL). The steps
   * of one wheel gesture (the zoom plugin calls back 250 ms after a wheel step) make one history entry. */
  TimeChart.prototype.userWindow = function (chart) {
    var x = chart.scales.x, now = Date.now(), wheel = now - (this.wheelAt || 0) < 400;
    var how = wheel && now - (this.gestureAt || 0) < GESTURE_MS ? "replace" : "push";
    this.gestureAt = wheel ? now : 0;
    this.spec.onWindow(Math.round(x.min), Math.round(x.max), how);
  };

  TimeChart.prototype.act = function (what) {
    var win = this.win;
    if (!win) { return; }
    if (Card.save(this, what)) { return; }
    if (what === "changes") { Changes.toggle(); return; }  // on every time chart, through the link
    if (what === "help") { this.status.textContent = HELP + "."; return; }
    var w = win.to - win.from, lim = win.limits, from = win.from, to = win.to;
    if (what === "earlier") { from -= w / 2; to -= w / 2; }
    if (what === "later") { from += w / 2; to += w / 2; }
    if (what === "zoomin") { from += w / 4; to -= w / 4; }
    if (what === "zoomout") { from -= w / 2; to += w / 2; }
    if (to - from < MIN_WINDOW) { return; }
    if (from < lim.min) { to += lim.min - from; from = lim.min; }
    if (to > lim.max) { from -= to - lim.max; to = lim.max; }
    this.spec.onWindow(Math.round(Math.max(from, lim.min)), Math.round(Math.min(to, lim.max)));
  };

  /** The points in the window, per series, as loaded (not as decimated for drawing). */
  TimeChart.prototype.points = function () {
    var win = this.win;
    if (!this.chart) { return []; }
    return this.chart.data.datasets.map(function (d) {
      return { label: d.label, unit: d.unit, instance: d.instance, key: d.key, partial: d.partial, shift: d.shift,
        points: d.points.filter(function (p) { return p[0] >= win.from && p[0] <= win.to && p[1] !== null; }) };
    });
  };

  /** The combined points in the window that sum fewer instances than the range holds, and the instances left out. */
  TimeChart.prototype.partialPoints = function () {
    var count = 0, missing = [];
    this.points().forEach(function (d) {
      d.points.forEach(function (p) {
        var short = d.partial[p[0]];
        if (!short) { return; }
        count += 1;
        short.missing.forEach(function (i) { if (missing.indexOf(i) < 0) { missing.push(i); } });
      });
    });
    return { count: count, missing: missing.sort() };
  };

  TimeChart.prototype.toCSV = function () {
    if (this.spec.toCSV) { return this.spec.toCSV(this); }  // a chart that draws more than its lines (a heat map)
    var zone = this.win.zone, rows = [];
    this.points().forEach(function (d) {
      d.points.forEach(function (p) {
        var short = d.partial[p[0]];
        // a shifted series (compare's period B) at its own time
        rows.push([d.label, d.instance, d.unit, F.isoTime(p[0] + (d.shift || 0), zone), p[1],
          short ? short.missing.join(" ") : ""]);
      });
    });
    return F.csv(["series", "instance", "unit", "time", "value", "missing_instances"], rows);
  };

  TimeChart.prototype.destroy = function () {
    this.gen += 1;
    Card.remove(this);
  };

  AWRLens.Charts = {
    create: function (container, spec) { return new TimeChart(container, spec); },
    PALETTE: PALETTE,
    detailed: detailed,
    /** Every live chart's window and points, for tests and the share-link check. */
    snapshot: function () {
      return Card.live().map(function (c) {
        return { id: c.spec.id, title: c.spec.title, state: c.card.getAttribute("data-state"),
          from: c.win && c.win.from, to: c.win && c.win.to, datasets: c.points() };
      });
    },
    settled: function () {
      return Card.live().every(function (c) {
        var s = c.card.getAttribute("data-state");
        return s !== "loading" && s !== "refreshing" && !c.prefetching;
      });
    }
  };
}(window.AWRLens = window.AWRLens || {}));
