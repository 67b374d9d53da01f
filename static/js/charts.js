/* AWRLens.Charts: time charts on Chart.js.
 * A chart shows one time window (shared by every chart of a view) and asks its loader for data:
 *   load({from, to}, detail) -> Promise of {datasets: [{key, label, unit, instance, points: [[ms, y]],
 *                                           partial: {ms: {instances, missing}}, ...}],
 *                                           markers: {restarts, missing}, downsampled}
 * Drag to zoom, Shift+drag to pan, Ctrl+wheel to zoom around the pointer, or the buttons: the new window goes to
 * onWindow(from, to, how) (the view puts it in the URL) and comes back through setWindow. A wheel gesture (Ctrl+wheel
 * steps less than GESTURE_MS apart) is one history entry: its first zoom pushes, the ones that follow replace, however
 * late the zoom plugin calls back on a busy machine. A window the loaded data
 * covers at full resolution is drawn at once; a narrower one with downsampled data is fetched again at finer
 * resolution (per-minute detail when the window is a few hours), and after each fetch the neighbouring windows are
 * prefetched so panning shows data at once (unless spec.prefetch is false: a window whose answer depends on the
 * whole window, as top activity's top 10). The windows' arithmetic is AWRLens.ChartWindows' (chart-windows.js), the
 * Chart.js configuration AWRLens.ChartConfig's (chart-config.js).
 * The card, legend, PNG and CSV are AWRLens.ChartCard's; XY charts (createXY) are in charts-xy.js. A spec may add
 * Chart.js plugins drawn with the chart (spec.plugins: the event histogram's heat map under its lines), start on a log
 * y axis (spec.log) with its bounds (spec.yRange(win) -> {min, max}) and give its own CSV (spec.toCSV(chart)). */
(function (AWRLens) {
  "use strict";
  var F = AWRLens.Format, Card = AWRLens.ChartCard, Windows = AWRLens.ChartWindows, Config = AWRLens.ChartConfig;
  var GESTURE_MS = 1000;
  var Changes = AWRLens.Changes;
  var CHANGES_TOOL = ["changes", "Δ", "What changed: show or hide the markers and the lists of changes on every chart"];
  var HELP = "Drag across the chart to zoom in, Shift+drag to pan, Ctrl+wheel to zoom the time around the pointer";

  /**
   * spec: {id, title, load, onWindow, stacked, bucket, detail (bool: has per-minute twins), yMax, height,
   * minWindow (ms: the narrowest zoom, Windows.MIN_WINDOW unless given), database (its name: the CSV's first column),
   * band (its loader draws the normal band when asked: load(range, detail, {band}); the ≈ tool toggles it),
   * bandOn (the band starts drawn)}
   */
  function TimeChart(container, spec) {
    this.spec = spec;
    this.segments = [];
    this.gen = 0;
    this.chart = null;
    this.win = null;
    Card.build(this, container, spec, { tools: [["earlier", "◀", "Earlier: move the window back by half"],
      ["zoomin", "+", "Zoom in"], ["zoomout", "−", "Zoom out"], ["later", "▶", "Later: move the window forward by half"],
      ["help", "?", HELP]].concat(spec.stacked ? [] : [Card.LOG_TOOL], spec.band ? [Card.BAND_TOOL] : [],
      spec.changes ? [CHANGES_TOOL] : []),
      status: "Loading…", height: 240, label: spec.title + " over time. " + HELP + "." });
    if (spec.changes) {  // what changed in the window (AWRLens.Changes): shown unless the link hides them
      Changes.attach(this);
      this.card.querySelector("[data-act=changes]").setAttribute("aria-pressed", String(Changes.shown()));
    }
    this.band = !!(spec.band && spec.bandOn);  // spec.bandOn: the normal band starts drawn (the ≈ tool turns it off)
    if (this.band) { this.card.querySelector("[data-act=band]").setAttribute("aria-pressed", "true"); }
    this.log = !!spec.log;  // spec.log: the y axis starts logarithmic (the log tool still turns it off)
    if (this.log) { this.card.querySelector("[data-act=log]").setAttribute("aria-pressed", "true"); }
    var self = this;
    this.gesture = 0;  // the Ctrl+wheel gesture under way: a step GESTURE_MS or more after the last starts the next
    this.canvas.addEventListener("wheel", function (e) {
      if (!e.ctrlKey) { return; }
      var now = Date.now();
      if (now - (self.wheelAt || 0) >= GESTURE_MS) { self.gesture += 1; }
      self.wheelAt = now;
    }, { passive: true });
  }

  TimeChart.prototype.setState = Card.methods.setState;
  TimeChart.prototype.renderLegend = Card.methods.renderLegend;

  /** Show window {from, to, zone, limits: {min, max}}: draw what is loaded, fetch what is missing. */
  TimeChart.prototype.setWindow = function (win) {
    this.win = win;
    var detail = !!this.spec.detail && Windows.detailed(win);
    this.detail = detail;
    if (this.covers(win.from, win.to, detail)) {
      this.render();
      this.prefetch();
      return;
    }
    this.loadChanges();
    this.fetch(win.from, win.to, detail);
  };

  TimeChart.prototype.covers = function (from, to, detail) { return Windows.covers(this.segments, from, to, detail); };

  TimeChart.prototype.fetch = function (from, to, detail) {
    var self = this, gen = ++this.gen;
    if (!this.chart) { this.setState("loading", "Loading…"); } else { this.setState("refreshing", "Loading finer detail…"); }
    this.spec.load({ from: from, to: to }, detail, { band: this.band }).then(function (res) {
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
    var self = this, detail = this.detail;
    Windows.neighbours(this.win).forEach(function (side) {
      if (self.covers(side.from, side.to, detail)) { return; }
      var gen = self.gen;
      self.spec.load({ from: side.from, to: side.to }, detail, { band: self.band }).then(function (res) {
        if (gen !== self.gen || !self.segments.length) { return; }
        self.segments.push({ lo: side.from, hi: side.to, detail: detail, full: !res.downsampled, res: res });
        self.render();
      }).catch(function () { /* already shown by the error display */ });
    });
  };

  /** The merged points of every loaded segment of the current resolution, per series, in time order. */
  TimeChart.prototype.merged = function () { return Windows.merge(this.segments, this.detail, this.spec.singleInstance); };

  /** The chart's axes for `datasets` (ChartConfig.scales); keeps what its log axes leave out for the status. */
  TimeChart.prototype.scales = function (datasets) {
    var axes = Config.scales(datasets, this.spec, this.win, this.log);
    this.logNote = axes.logNote;
    return axes.scales;
  };

  TimeChart.prototype.render = function () {
    var spec = this.spec, win = this.win;
    var merged = this.merged();
    var datasets = Config.datasets(merged, spec, win);
    var inWindow = datasets.some(function (d) {
      return d.data.some(function (p) { return p.y !== null && p.x >= win.from && p.x <= win.to; });
    });
    if (!this.chart) {
      this.chart = new window.Chart(this.canvas, Config.config(this, datasets, merged.markers));
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

  /** The user zoomed or panned this chart (trigger: the zoom plugin's "wheel" or "drag", or "pan"): hand the new
   * window to the view (which puts it in the URL). The zooms of one wheel gesture make one history entry. */
  TimeChart.prototype.userWindow = function (chart, trigger) {
    var x = chart.scales.x, wheel = trigger === "wheel";
    var how = wheel && this.pushedGesture === this.gesture ? "replace" : "push";
    this.pushedGesture = wheel ? this.gesture : null;
    this.spec.onWindow(Math.round(x.min), Math.round(x.max), how);
  };

  TimeChart.prototype.act = function (what) {
    var win = this.win;
    if (!win) { return; }
    if (Card.save(this, what)) { return; }
    if (what === "changes") { Changes.toggle(); return; }  // on every time chart, through the link
    if (what === "help") { this.status.textContent = HELP + "."; return; }
    var next = Windows.step(win, what);
    if (next) { this.spec.onWindow(next.from, next.to); }
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
    var zone = this.win.zone, rows = [], database = this.spec.database;
    this.points().forEach(function (d) {
      d.points.forEach(function (p) {
        var short = d.partial[p[0]];
        // a shifted series (compare's period B) at its own time
        rows.push([database, d.label, d.instance, d.unit, F.isoTime(p[0] + (d.shift || 0), zone), p[1],
          short ? short.missing.join(" ") : ""]);
      });
    });
    return F.csv(["database", "series", "instance", "unit", "time", "value", "missing_instances"], rows);
  };

  TimeChart.prototype.destroy = function () {
    this.gen += 1;
    Card.remove(this);
  };

  AWRLens.Charts = {
    create: function (container, spec) { return new TimeChart(container, spec); },
    PALETTE: Card.PALETTE,
    detailed: Windows.detailed,
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
