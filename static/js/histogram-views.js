/* How one wait event's waits were spread (issue 14): its latency histogram over time as a heat map (x = time, y = the
 * buckets of powers of two ms on a log axis, colour = the interval's waits in the bucket), the estimated p50/p95/p99
 * lines over it, and the range's distribution as bars; GET /event-histogram (docs/awr-rules.md §24). The event
 * (`event`) and the instance are in the link; a row of the overview's top events opens it.
 *
 * The heat map is drawn by a plugin of the time chart (charts.js) under its percentile lines rather than with a
 * matrix chart (chartjs-chart-matrix): so it shares the time axis, zoom and pan, markers, PNG and link of every other
 * chart, with no new dependency; the cells are a few thousand rectangles per draw. */
(function (AWRLens) {
  "use strict";
  var F = AWRLens.Format, Api = AWRLens.Api, State = AWRLens.State, Charts = AWRLens.Charts, Theme = AWRLens.Theme;
  var Dbs = AWRLens.Databases, Loaders = AWRLens.Loaders, Views = AWRLens.Views, HV = AWRLens.HistoryViews;
  var element = AWRLens.Dom.element;
  var DEFAULT_EVENT = "log file sync";
  var LINES = [["p50_ms", "p50", "#2ca02c"], ["p95_ms", "p95", "#ff7f0e"], ["p99_ms", "p99", "#d62728"]];

  function instanceOf(state) { return state.inst === "each" ? "all" : state.inst; }

  /** A bucket's lower bound on the log axis: half its upper bound (the first, < 1 ms, from the axis' bottom). */
  function lower(upper) { return upper / 2; }

  /** The loaded intervals of the chart's windows, each once: [[ms, counts]] and the buckets' upper bounds. */
  function cells(chart) {
    var seen = {}, out = [], uppers = [];
    chart.segments.forEach(function (seg) {
      var heat = seg.res.heat;
      if (!heat) { return; }
      heat.uppers.forEach(function (u) { if (uppers.indexOf(u) < 0) { uppers.push(u); } });
      heat.intervals.forEach(function (i) {
        if (!seen[i[0]]) {
          seen[i[0]] = true;
          out.push([i[0], heat.uppers.reduce(function (m, u, k) { m[u] = i[1][k]; return m; }, {})]);
        }
      });
    });
    out.sort(function (a, b) { return a[0] - b[0]; });
    uppers.sort(function (a, b) { return a - b; });
    return { intervals: out, uppers: uppers };
  }

  /** The heat map of the time chart owner() gives, under its percentile lines: one cell per interval and bucket with
   * waits, darker for more. */
  function heatmap(owner) {
    return { id: "awrHeatmap", beforeDatasetsDraw: function (c) { drawCells(c, owner()); } };
  }

  function drawCells(c, owner) {
    var x = c.scales.x, y = c.scales.y0, area = c.chartArea;
    if (!owner || !x || !y) { return; }
    var data = cells(owner), most = 0, step = (owner.spec.stepMinutes || 30) * 60000;
    data.intervals.forEach(function (i) { Object.keys(i[1]).forEach(function (u) { most = Math.max(most, i[1][u]); }); });
    if (!most) { c.$heatCells = 0; return; }
    var ink = Theme.color("--accent") || "#1f77b4", ctx = c.ctx;
    ctx.save();
    ctx.beginPath();
    ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
    ctx.clip();
    var drawn = 0;
    data.intervals.forEach(function (i, k) {
      var prev = k ? data.intervals[k - 1][0] : i[0] - step;
      var x0 = x.getPixelForValue(Math.max(prev, i[0] - step)), x1 = x.getPixelForValue(i[0]);
      if (x1 < area.left || x0 > area.right) { return; }
      data.uppers.forEach(function (u) {
        var n = i[1][u];
        if (!n) { return; }
        var top = y.getPixelForValue(u), bottom = u <= 1 ? area.bottom : y.getPixelForValue(lower(u));
        ctx.globalAlpha = 0.08 + 0.92 * Math.log(1 + n) / Math.log(1 + most);
        ctx.fillStyle = ink;
        ctx.fillRect(x0, top, Math.max(x1 - x0, 1), Math.max(bottom - top, 1));
        drawn += 1;
      });
    });
    ctx.restore();
    c.$heatCells = drawn;  // for the tests: the cells of the window
  }

  /** The chart's loader: the percentile lines as its series, the bucket counts as its heat map. */
  function loader(ctx, event) {
    return function (range) {
      return Api.get(Dbs.path(ctx.db, "/event-histogram"), Object.assign({ event: event, instance: instanceOf(ctx.state) },
        Loaders.bounds(ctx.db, range))).then(function (b) {
        var at = b.intervals.map(function (i) { return Date.parse(i.time); });
        return { markers: b.markers, downsampled: false, notice: b.reason || (b.intervals.length ? "" :
          "No histogram of this event in this range: AWR keeps one for events that waited."),
        heat: { uppers: b.buckets.map(function (k) { return k.wait_time_milli; }),
          intervals: b.intervals.map(function (i, k) { return [at[k], i.counts]; }) },
        datasets: LINES.map(function (l) {
          return { key: l[0], label: l[1] + " (estimated)", unit: "ms", instance: instanceOf(ctx.state), color: l[2],
            points: b.intervals.map(function (i, k) { return [at[k], i[l[0]]]; }) };
        }) };
      });
    };
  }

  /** The CSV of the heat map: per interval, its waits per bucket and its percentiles, as the API's CSV. */
  function csv(chart) {
    var data = cells(chart), zone = chart.win.zone, lines = {};
    chart.points().forEach(function (d) { d.points.forEach(function (p) { (lines[p[0]] = lines[p[0]] || {})[d.key] = p[1]; }); });
    var rows = data.intervals.map(function (i) {
      var l = lines[i[0]] || {};
      return [F.isoTime(i[0], zone), l.p50_ms, l.p95_ms, l.p99_ms].concat(data.uppers.map(function (u) { return i[1][u] || 0; }));
    });
    return F.csv(["time", "p50_ms", "p95_ms", "p99_ms"].concat(data.uppers.map(function (u) { return "< " + u + " ms"; })), rows);
  }

  Views.add("histogram", {
    title: "Wait histogram",
    defaults: function (state) { return state.event ? {} : { event: DEFAULT_EVENT }; },
    key: function (state) { return [state.event]; },
    build: function (ctx, parts, root) {
      var event = ctx.state.event, inst = instanceOf(ctx.state);
      var form = element("form", { "class": "card histogram-form", "aria-label": "The wait event" });
      form.appendChild(element("label", { "for": "histogram-event" }, "Wait event "));
      var select = element("select", { id: "histogram-event" });
      select.appendChild(element("option", { value: event }, event));
      select.addEventListener("change", function () { State.set({ event: select.value }); });
      form.appendChild(select);
      form.appendChild(element("p", { "class": "note" }, "Each cell: the waits of an interval that lasted between half " +
        "the bucket's bound and the bound (Oracle's buckets of powers of two ms), darker for more (on a log scale). The " +
        "percentiles are estimates: log-linear inside the bucket where each is reached."));
      form.addEventListener("submit", function (e) { e.preventDefault(); });
      root.appendChild(form);
      parts.select = select;
      var grid = element("div", { "class": "grid" });
      root.appendChild(grid);
      var who = inst !== "all" ? " · instance " + inst : "";
      parts.heat = HV.chart(ctx, parts, grid, { id: "event-histogram", wide: true, height: 340, log: true,
        title: event + ": waits by latency over time, with p50, p95 and p99" + who, plugins: [heatmap(function () { return parts.heat; })],
        stepMinutes: ctx.db.step, prefetch: false, load: loader(ctx, event), toCSV: csv,
        yRange: function () {
          var u = cells(parts.heat).uppers;
          return u.length ? { min: 0.5, max: u[u.length - 1] } : {};
        } });
      parts.dist = Charts.createXY(grid, { id: "event-histogram-distribution", type: "bar", wide: true, height: 260,
        title: event + ": the range's waits by latency" + who, x: { type: "category", title: "wait time", categories: [] },
        y: { type: "linear", title: "waits" }, datasets: [] });
      parts.charts.push(parts.dist);
    },
    update: function (ctx, parts) {
      parts.heat.setWindow(ctx.win);
      var event = ctx.state.event, inst = instanceOf(ctx.state), dist = parts.dist;
      dist.setState("loading", "Loading…");
      Api.get(Dbs.path(ctx.db, "/event-histogram"), Object.assign({ event: event, instance: inst }, ctx.win.params))
        .then(function (b) {
          var labels = b.distribution.map(function (d) { return d.label; });
          dist.spec.x.categories = labels;
          dist.spec.datasets = [{ label: "waits", unit: "waits", color: "--accent",
            points: b.distribution.map(function (d) { return [d.label, d.waits]; }),
            fields: b.distribution.map(function (d) { return { pct: d.pct }; }) }];
          dist.redraw();
          dist.setState(b.waits ? "ready" : "empty", b.waits ? b.waits.toLocaleString() + " waits; p50 " +
            F.fmtValue(b.p50_ms, "ms") + ", p95 " + F.fmtValue(b.p95_ms, "ms") + ", p99 " + F.fmtValue(b.p99_ms, "ms") +
            " (estimated)." : (b.reason || "No waits of this event in this range."));
        }).catch(function (err) { dist.setState("error", "Could not load the distribution: " + err.message); });
      Api.get(Dbs.path(ctx.db, "/top-events"), Object.assign({ limit: 30, instance: inst }, ctx.win.params))
        .then(function (b) {
          var names = b.rows.map(function (r) { return r.event; }).filter(function (n) { return n !== "DB CPU"; });
          if (names.indexOf(event) < 0) { names.unshift(event); }
          parts.select.textContent = "";
          names.forEach(function (n) { parts.select.appendChild(element("option", { value: n }, n)); });
          parts.select.value = event;
        }).catch(function () { /* the select keeps the event shown */ });
    }
  });
}(window.AWRLens = window.AWRLens || {}));
