/* AWRLens.Charts: time charts on Chart.js.
 * A chart shows one time window (shared by every chart of a view) and asks its loader for data:
 *   load({from, to}, detail) -> Promise of {datasets: [{key, label, unit, instance, points: [[ms, y]], ...}],
 *                                           markers: {restarts, missing}, downsampled}
 * Drag to zoom, Shift+drag to pan, or the buttons: the new window goes to onWindow (the view puts it in the URL)
 * and comes back through setWindow. A window the loaded data covers at full resolution is drawn at once; a
 * narrower one with downsampled data is fetched again at finer resolution (per-minute detail when the window is
 * a few hours), and after each fetch the neighbouring windows are prefetched so panning shows data at once.
 * XY charts (createXY) draw benchmark measurements that are not over time: points, lines and bars against a
 * number (sessions, I/O size) or a category, with the same card, legend, PNG and CSV. */
(function (AWRLens) {
  "use strict";
  var F = AWRLens.Format;
  var cfg = window.AWRLENS_CONFIG || {};
  var live = new Set();
  var firstPainted = false;
  var PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#7f7f7f", "#bcbd22"];
  var MIN_WINDOW = 15 * 60 * 1000;

  // white background, so an exported PNG is not transparent
  var background = {
    id: "awrBackground",
    beforeDraw: function (chart) {
      var ctx = chart.ctx;
      ctx.save();
      ctx.globalCompositeOperation = "destination-over";
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, chart.width, chart.height);
      ctx.restore();
    }
  };

  // instance restarts (a line) and missing snapshots (a shaded band), from the API's markers
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
        ctx.fillStyle = "#555";
        ctx.font = "11px system-ui, sans-serif";
        ctx.fillText("missing · inst " + g.instance, a + 2, area.bottom - 4);
      });
      (m.restarts || []).forEach(function (r) {
        var px = x.getPixelForValue(Date.parse(r.startup_time || r.time));
        if (px < area.left || px > area.right) { return; }
        ctx.strokeStyle = "#b00020";
        ctx.setLineDash([4, 3]);
        ctx.beginPath();
        ctx.moveTo(px, area.top);
        ctx.lineTo(px, area.bottom);
        ctx.stroke();
        ctx.setLineDash([]);
        ctx.fillStyle = "#b00020";
        ctx.font = "11px system-ui, sans-serif";
        ctx.fillText("restart · inst " + r.instance, px + 3, area.top + 10);
      });
      ctx.restore();
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

  /** Mean of the points in fixed time buckets (aligned on multiples of the bucket), so stacked series stay aligned. */
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

  function element(tag, attrs, text) {
    var el = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { el.setAttribute(k, attrs[k]); });
    if (text !== undefined) { el.textContent = text; }
    return el;
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
    buildCard(this, container, spec, { tools: [["earlier", "◀", "Earlier: move the window back by half"],
      ["zoomin", "+", "Zoom in"], ["zoomout", "−", "Zoom out"], ["later", "▶", "Later: move the window forward by half"]],
      status: "Loading…", height: 240, label: spec.title + " over time. Drag to zoom, Shift+drag to pan." });
  }

  var SAVE_TOOLS = [["png", "PNG", "Save the chart as PNG"], ["csv", "CSV", "Save the chart's data as CSV"]];

  /** The card of a chart (title, tool buttons calling chart.act, status line, canvas, legend), added to container. */
  function buildCard(chart, container, spec, opts) {
    chart.card = element("section", { "class": "card chart-card" + (spec.wide ? " wide" : spec.third ? " third" : ""),
      "data-chart": spec.id, "data-state": "loading", "aria-labelledby": "h-" + spec.id });
    var head = element("header", { "class": "card-head" });
    head.appendChild(element("h3", { id: "h-" + spec.id }, spec.title));
    var tools = element("div", { "class": "tools", role: "group", "aria-label": "Chart tools: " + spec.title });
    (opts.tools || []).concat(SAVE_TOOLS).forEach(function (b) {
      var btn = element("button", { type: "button", "data-act": b[0], title: b[2], "aria-label": b[2] }, b[1]);
      btn.addEventListener("click", function () { chart.act(b[0]); });
      tools.appendChild(btn);
    });
    head.appendChild(tools);
    chart.card.appendChild(head);
    chart.status = element("p", { "class": "status", role: "status", "aria-live": "polite" }, opts.status);
    chart.card.appendChild(chart.status);
    var plot = element("div", { "class": "plot" });
    plot.style.height = (spec.height || opts.height) + "px";
    chart.canvas = element("canvas", { role: "img", "aria-label": opts.label });
    plot.appendChild(chart.canvas);
    chart.card.appendChild(plot);
    chart.legend = element("div", { "class": "legend", role: "group", "aria-label": "Series of " + spec.title });
    chart.card.appendChild(chart.legend);
    container.appendChild(chart.card);
    live.add(chart);
  }

  TimeChart.prototype.setState = function (state, message) {
    this.card.setAttribute("data-state", state);
    this.status.textContent = message || "";
    this.status.classList.toggle("is-error", state === "error");
  };

  /** Show window {from, to, zone, limits: {min, max}}: draw what is loaded, fetch what is missing. */
  TimeChart.prototype.setWindow = function (win) {
    this.win = win;
    var detail = !!this.spec.detail && win.to - win.from <= (cfg.detailMaxHours || 6) * 3600e3;
    this.detail = detail;
    if (this.covers(win.from, win.to, detail)) {
      this.render();
      this.prefetch();
      return;
    }
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
    var detail = this.detail, order = [], byKey = {}, marks = { restarts: [], missing: [] }, seen = {};
    this.segments.filter(function (s) { return s.detail === detail; }).forEach(function (seg) {
      seg.res.datasets.forEach(function (d) {
        if (!byKey[d.key]) { byKey[d.key] = Object.assign({}, d, { points: [] }); order.push(d.key); }
        byKey[d.key].points = byKey[d.key].points.concat(d.points);
      });
      ["restarts", "missing"].forEach(function (kind) {
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
      var color = d.color || PALETTE[i % PALETTE.length];
      var pts = bucket ? bucketed(d.points, bucket) : d.points;
      return {
        label: d.label, unit: d.unit, key: d.key, instance: d.instance,
        data: pts.map(function (p) { return { x: p[0], y: p[1] }; }),
        points: pts,  // as loaded: Chart.js's decimation replaces `data` with what it draws
        borderColor: color, backgroundColor: d.fill ? color + "cc" : color,
        // a stacked series fills down to the one below it ("-1"; Chart.js's "stack" mode is 10x slower)
        fill: d.fill === true ? "origin" : d.fill || false,
        stack: d.stack || "s" + i, borderDash: d.dash || [], borderWidth: d.fill ? 0.5 : 1.5,
        pointRadius: 0, pointHitRadius: 4, tension: 0, yAxisID: spec.stacked ? "y" : "y" + units.indexOf(d.unit),
        hidden: false, order: d.order || 0
      };
    });
  };

  TimeChart.prototype.scales = function (datasets) {
    var spec = this.spec, win = this.win, scales = {
      x: {
        type: "time", min: win.from, max: win.to,
        adapters: { date: { zone: win.zone } },
        time: { displayFormats: { minute: "HH:mm", hour: "dd LLL HH:mm", day: "dd LLL", week: "dd LLL", month: "LLL yyyy" } },
        ticks: { maxRotation: 0, autoSkipPadding: 12 }
      }
    };
    var units = [];
    datasets.forEach(function (d) { if (units.indexOf(d.unit) < 0) { units.push(d.unit); } });
    if (spec.stacked) {
      scales.y = { stacked: true, beginAtZero: true, title: { display: true, text: units[0] || "" },
        ticks: { callback: F.fmtCompact } };
    } else {
      units.forEach(function (u, i) {
        scales["y" + i] = { type: "linear", position: i % 2 ? "right" : "left", beginAtZero: true,
          suggestedMax: spec.yMax, grid: { drawOnChartArea: i === 0 },
          title: { display: true, text: u || "" }, ticks: { callback: F.fmtCompact } };
      });
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
                label: function (item) { return item.dataset.label + ": " + F.fmtValue(item.parsed.y, item.dataset.unit); }
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
        plugins: [background, markers, paint]
      });
      this.chart.$awr = { markers: merged.markers };
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
    if (!inWindow) {
      this.setState("empty", "No data in this range.");
    } else {
      this.setState("ready", this.detail && datasets.some(function (d) { return /per minute/.test(d.label); })
        ? "Per-minute detail (sysmetric history)." : "");
    }
  };

  /** An HTML legend: one toggle button per series, usable with the keyboard. */
  TimeChart.prototype.renderLegend = function () {
    var c = this.chart, legend = this.legend;
    var units = new Set(c.data.datasets.map(function (d) { return d.unit; })), stacked = this.spec.stacked;
    legend.textContent = "";
    c.data.datasets.forEach(function (d, i) {
      var on = c.isDatasetVisible(i);
      var btn = element("button", { type: "button", "aria-pressed": String(on), "class": "legend-item" });
      var swatch = element("span", { "class": "swatch", "aria-hidden": "true" });
      swatch.style.background = d.borderColor;
      if (d.borderDash && d.borderDash.length) { swatch.classList.add("dashed"); }
      btn.appendChild(swatch);
      btn.appendChild(document.createTextNode(d.label + (d.unit && units.size > 1 && !stacked ? " (" + d.unit + ")" : "")));
      btn.addEventListener("click", function () {
        c.setDatasetVisibility(i, !c.isDatasetVisible(i));
        c.update("none");
        btn.setAttribute("aria-pressed", String(c.isDatasetVisible(i)));
      });
      legend.appendChild(btn);
    });
  };

  /** The user zoomed or panned this chart: hand the new window to the view (which puts it in the URL). */
  TimeChart.prototype.userWindow = function (chart) {
    var x = chart.scales.x;
    this.spec.onWindow(Math.round(x.min), Math.round(x.max));
  };

  TimeChart.prototype.act = function (what) {
    var win = this.win;
    if (!win) { return; }
    var w = win.to - win.from, lim = win.limits, from = win.from, to = win.to;
    if (what === "png") {
      if (this.chart) { F.download("awrlens-" + this.spec.id + ".png", this.chart.toBase64Image("image/png", 1)); }
      return;
    }
    if (what === "csv") {
      F.download("awrlens-" + this.spec.id + ".csv", new Blob([this.toCSV()], { type: "text/csv;charset=utf-8" }));
      return;
    }
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
      return { label: d.label, unit: d.unit, instance: d.instance, key: d.key,
        points: d.points.filter(function (p) { return p[0] >= win.from && p[0] <= win.to && p[1] !== null; }) };
    });
  };

  TimeChart.prototype.toCSV = function () {
    var zone = this.win.zone, rows = [];
    this.points().forEach(function (d) {
      d.points.forEach(function (p) { rows.push([d.label, d.instance, d.unit, F.isoTime(p[0], zone), p[1]]); });
    });
    return F.csv(["series", "instance", "unit", "time", "value"], rows);
  };

  TimeChart.prototype.destroy = function () {
    this.gen += 1;
    if (this.chart) { this.chart.destroy(); this.chart = null; }
    this.card.remove();
    live.delete(this);
  };

  /**
   * spec: {id, title, type: "scatter" | "bar", x: {type: linear|logarithmic|category, title, categories, min, max,
   *        step}, y: {type: linear|logarithmic, title, min}, height, wide,
   *        datasets: [{label, unit, points: [[x, y]], show: points|line|bar, color, fill, dash, notes: [text]}]}
   */
  function XYChart(container, spec) {
    this.spec = spec;
    buildCard(this, container, spec, { status: "", height: 300, label: spec.title });
    this.draw();
  }

  XYChart.prototype.setState = TimeChart.prototype.setState;
  XYChart.prototype.renderLegend = TimeChart.prototype.renderLegend;

  XYChart.prototype.draw = function () {
    var spec = this.spec, bar = spec.type === "bar", cats = spec.x.categories || [];
    var datasets = spec.datasets.map(function (d, i) {
      var color = d.color || PALETTE[i % PALETTE.length];
      var show = d.show || (bar ? "bar" : "points");
      var data = bar ? cats.map(function (c) {
        var p = d.points.find(function (q) { return q[0] === c; });
        return p ? p[1] : null;
      }) : d.points.map(function (p) { return { x: p[0], y: p[1] }; });
      return {
        label: d.label, unit: d.unit, key: d.label, data: data, points: d.points, notes: d.notes || [],
        type: show === "bar" ? "bar" : "scatter", showLine: show === "line",
        borderColor: color, backgroundColor: show === "bar" ? color + "cc" : d.fill ? color + "26" : color + "a0",
        fill: d.fill || false, borderDash: d.dash || [], borderWidth: show === "line" ? (d.dash ? 1 : 2) : 1,
        pointRadius: show === "points" ? 2.5 : show === "line" && !d.dash && !d.fill ? 3 : 0,
        pointHitRadius: 5, order: d.order || 0
      };
    });
    var xScale = { type: spec.x.type || (bar ? "category" : "linear"), title: { display: !!spec.x.title, text: spec.x.title || "" } };
    if (xScale.type === "linear") {
      Object.assign(xScale, { min: spec.x.min, max: spec.x.max, ticks: { stepSize: spec.x.step, callback: F.fmtCompact } });
    }
    if (xScale.type === "logarithmic") {  // ticks at the measured x values (8, 16, ... 1024 KB), not 10, 15, 20...
      var xs = [];
      spec.datasets.forEach(function (d) { d.points.forEach(function (p) { if (xs.indexOf(p[0]) < 0) { xs.push(p[0]); } }); });
      xs.sort(function (a, b) { return a - b; });
      Object.assign(xScale, { min: xs[0] / 1.25, max: xs[xs.length - 1] * 1.25, ticks: { callback: F.fmtCompact },
        afterBuildTicks: function (scale) { scale.ticks = xs.map(function (v) { return { value: v }; }); } });
    }
    var yLog = spec.y.type === "logarithmic";
    var yScale = { type: yLog ? "logarithmic" : "linear", beginAtZero: !yLog, min: spec.y.min,
      title: { display: !!spec.y.title, text: spec.y.title || "" } };
    if (!yLog) { yScale.ticks = { callback: F.fmtCompact }; }
    var self = this;
    this.chart = new window.Chart(this.canvas, {
      type: bar ? "bar" : "scatter",
      data: bar ? { labels: cats, datasets: datasets } : { datasets: datasets },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false,
        interaction: bar ? { mode: "index", intersect: false } : { mode: "nearest", intersect: true },
        scales: { x: xScale, y: yScale },
        plugins: {
          legend: { display: false },
          tooltip: {
            callbacks: {
              title: function (items) {
                if (!items.length) { return ""; }
                return bar ? items[0].label : (self.spec.x.title || "x") + ": " + F.fmtValue(items[0].parsed.x);
              },
              label: function (item) {
                var note = item.dataset.notes[item.dataIndex];
                return item.dataset.label + ": " + F.fmtValue(item.parsed.y, item.dataset.unit) + (note ? " · " + note : "");
              }
            }
          }
        }
      },
      plugins: [background]
    });
    this.renderLegend();
    var any = datasets.some(function (d) { return d.points.length; });
    this.setState(any ? "ready" : "empty", any ? "" : "No measurements.");
  };

  XYChart.prototype.act = function (what) {
    if (what === "png") {
      F.download("awrlens-" + this.spec.id + ".png", this.chart.toBase64Image("image/png", 1));
    } else if (what === "csv") {
      F.download("awrlens-" + this.spec.id + ".csv", new Blob([this.toCSV()], { type: "text/csv;charset=utf-8" }));
    }
  };

  /** Every series' points as given (x, y), for the CSV and the test snapshot. */
  XYChart.prototype.points = function () {
    return this.spec.datasets.map(function (d) {
      return { label: d.label, unit: d.unit, points: d.points.map(function (p) { return [p[0], p[1]]; }) };
    });
  };

  XYChart.prototype.toCSV = function () {
    var rows = [], x = this.spec.x.title || "x";
    this.points().forEach(function (d) { d.points.forEach(function (p) { rows.push([d.label, d.unit, p[0], p[1]]); }); });
    return F.csv(["series", "unit", x, "value"], rows);
  };

  XYChart.prototype.destroy = function () {
    if (this.chart) { this.chart.destroy(); this.chart = null; }
    this.card.remove();
    live.delete(this);
  };

  AWRLens.Charts = {
    create: function (container, spec) { return new TimeChart(container, spec); },
    createXY: function (container, spec) { return new XYChart(container, spec); },
    PALETTE: PALETTE,
    /** Every live chart's window and points, for tests and the share-link check. */
    snapshot: function () {
      return Array.from(live).map(function (c) {
        return { id: c.spec.id, title: c.spec.title, state: c.card.getAttribute("data-state"),
          from: c.win && c.win.from, to: c.win && c.win.to, datasets: c.points() };
      });
    },
    settled: function () {
      return Array.from(live).every(function (c) {
        var s = c.card.getAttribute("data-state");
        return s !== "loading" && s !== "refreshing" && !c.prefetching;
      });
    }
  };
}(window.AWRLens = window.AWRLens || {}));
