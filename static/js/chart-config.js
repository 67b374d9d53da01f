/* AWRLens.ChartConfig: the Chart.js configuration a time chart (charts.js) draws with: its datasets and axes (a
 * y axis per unit, byte units on round binary steps, ticks on round times of the zone shown), its tooltips, the zoom
 * plugin's drag, wheel and pan, and the plugins drawn with it: instance restarts, missing and manual snapshots
 * (markers), combined points that sum fewer instances (partialMarks) and the benchmark's first-paint marks (paint). */
(function (AWRLens) {
  "use strict";
  var F = AWRLens.Format, Card = AWRLens.ChartCard, Theme = AWRLens.Theme, DateTime = window.luxon.DateTime;
  var Windows = AWRLens.ChartWindows, Changes = AWRLens.Changes;
  var cfg = window.AWRLENS_CONFIG || {};
  var firstPainted = false;
  var PALETTE = Card.PALETTE;

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

  /** A tick's text: the date at midnight, the time of day at any other tick (noon reads 12:00 on an axis of days). */
  function tickLabel(value, win) {
    var d = DateTime.fromMillis(value, { zone: win.zone });
    return d.hour === 0 && d.minute === 0 ? d.toFormat("dd LLL") : d.toFormat("HH:mm");
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

  /** The Chart.js datasets of the merged series (ChartWindows.merge) in window `win`. */
  function datasets(merged, spec, win) {
    var bucket = null;
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
        borderColor: color, backgroundColor: d.fill ? color + (d.alpha || "cc") : color,
        // a stacked series fills down to the one below it ("-1"; Chart.js's "stack" mode is 10x slower)
        fill: d.fill === true ? "origin" : d.fill || false,
        stack: d.stack || "s" + i, borderDash: d.dash || [], borderWidth: d.fill || d.thin ? 0.5 : 1.5,
        pointHitRadius: 4, tension: 0, yAxisID: spec.stacked ? "y" : "y" + units.indexOf(d.unit),
        hidden: false, order: d.order || 0, partial: d.partial || AWRLens.Dom.table(),
        pointRadius: d.marks ? 3 : 0,  // marks only (the points outside the normal band); the partial points: partialMarks
        showLine: !d.marks
      };
    });
  }

  /** The axes of `datasets` in window `win`: a time axis, and a y axis per unit (one, stacked, for spec.stacked);
   * logarithmic with `log`. Returns {scales, logNote}: what the log axes leave out. */
  function scales(datasets, spec, win, log) {
    // the axis runs past the window where the chart draws ahead of it (spec.xMax: a tablespace's projection)
    var to = Math.max(win.to, (spec.xMax && spec.xMax()) || 0);
    var logNote = "", scales = {
      x: {
        type: "time", min: win.from, max: to,
        adapters: { date: { zone: win.zone } },
        // ticks on round times of the zone shown (every 15 minutes, 6 hours, a day...), which the axis names
        afterBuildTicks: function (scale) {
          scale.ticks = roundTicks(win.from, to, win.zone, Math.max(3, Math.floor(scale.chart.width / 90)));
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
      var notes = [];
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
      logNote = notes.join(" ");
      if (!units.length) { scales.y0 = { type: "linear", beginAtZero: true }; }
    }
    return { scales: scales, logNote: logNote };
  }

  /** The Chart.js configuration of `chart` (a TimeChart: its spec, window, canvas and log axis) drawing `data` (its
   * datasets) with `marks` (the API's markers); the tooltips follow the chart's window, and a zoom or a pan goes to
   * chart.userWindow. */
  function config(chart, data, marks) {
    var self = chart, spec = chart.spec, win = chart.win;
    return {
      type: "line",
      data: { datasets: data },
      options: {
        animation: false, parsing: false, normalized: true, spanGaps: false, responsive: true,
        maintainAspectRatio: false,
        interaction: { mode: "nearest", axis: "x", intersect: false },
        scales: chart.scales(data),
        plugins: {
          legend: { display: false },
          // more points than two per pixel in the window: draw each pixel's first, min, max and last
          decimation: { enabled: !spec.stacked, algorithm: "min-max",
            threshold: Math.max(200, 2 * (chart.canvas.parentNode.clientWidth || 600)) },
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
            limits: { x: { min: win.limits.min, max: win.limits.max, minRange: spec.minWindow || Windows.MIN_WINDOW } },
            zoom: { mode: "x", drag: { enabled: true, threshold: 8, backgroundColor: "rgba(31,119,180,0.15)" },
              wheel: { enabled: true, modifierKey: "ctrl" },
              onZoom: function (c) { self.zoomTrigger = c.trigger; },  // "wheel" or "drag", before the debounced call
              onZoomComplete: function (c) { self.userWindow(c.chart, self.zoomTrigger); } },
            pan: { enabled: true, mode: "x", modifierKey: "shift",
              onPanComplete: function (c) { self.userWindow(c.chart, "pan"); } }
          }
        }
      },
      // the chart's markers and owner (the changes it shows) are there for its first drawing, in the constructor
      plugins: [{ id: "awrOwner", beforeInit: function (chart) { chart.$awr = { markers: marks, owner: self }; } },
        Card.background, markers, partialMarks, Changes.plugin, paint].concat(spec.plugins || [])  // spec.plugins: drawn with the chart
    };
  }

  AWRLens.ChartConfig = {
    config: config,
    datasets: datasets,
    scales: scales,
    roundTicks: roundTicks,
    tickLabel: tickLabel,
    byteStep: byteStep,
    bucketed: bucketed,
    partialText: partialText
  };
}(window.AWRLens = window.AWRLens || {}));
