/* AWRLens.Charts.createXY: benchmark measurements that are not over time, on Chart.js: points, lines and bars
 * against a number (sessions, I/O size) or a category, with the card, legend, PNG and CSV of AWRLens.ChartCard. */
(function (AWRLens) {
  "use strict";
  var F = AWRLens.Format, Card = AWRLens.ChartCard, Theme = AWRLens.Theme, element = AWRLens.Dom.element;
  var PALETTE = Card.PALETTE;

  /**
   * spec: {id, title, type: "scatter" | "bar", x: {type: linear|logarithmic|category, title, categories, min, max,
   *        step}, y: {type: linear|logarithmic, title, min}, height, wide,
   *        conclusion: under the title, text or a list of pieces: text, or a change {text, tone, better} in a span
   *                    of class tone (Tables.direction's: "better", "worse" or "") that colours it as compare
   *                    periods does,
   *        datasets: [{label, unit, points: [[x, y]], show: points|line|bar, color, fill, dash, pointStyle, radius,
   *                    notes: [text], open: [true where the measurement never ended],
   *                    fields: [{field: value} of each point's measurement, for the CSV]}]}
   */
  // an arrow and "never ended" on the open bars: the case went on past the height drawn
  var openBars = {
    id: "awrOpenBars",
    afterDatasetsDraw: function (chart) {
      var ctx = chart.ctx;
      chart.data.datasets.forEach(function (d, i) {
        if (!d.open || !chart.isDatasetVisible(i)) { return; }
        chart.getDatasetMeta(i).data.forEach(function (bar, k) {
          if (!d.open[k]) { return; }
          var x = bar.x, top = bar.y;
          ctx.save();
          ctx.strokeStyle = ctx.fillStyle = d.borderColor;
          ctx.lineWidth = 2;
          ctx.beginPath();  // inside the open bar: an arrow up to its top, and the words under it
          ctx.moveTo(x, top + 30);
          ctx.lineTo(x, top + 4);
          ctx.moveTo(x - 5, top + 10);
          ctx.lineTo(x, top + 4);
          ctx.lineTo(x + 5, top + 10);
          ctx.stroke();
          ctx.font = "11px system-ui, sans-serif";
          ctx.textAlign = "center";
          ctx.fillText("never ended", x, top + 44);
          ctx.restore();
        });
      });
    }
  };

  /** The status line: the conclusion's pieces (see the spec) and the notes after it. */
  function fillStatus(status, pieces) {
    status.textContent = "";
    pieces.forEach(function (p) {
      status.appendChild(typeof p === "string" ? document.createTextNode(p)
        : element("span", { "class": p.tone || "", "data-better": p.better || "" }, p.text));
    });
  }

  function XYChart(container, spec) {
    this.spec = spec;
    Card.build(this, container, spec, { tools: [Card.LOG_TOOL], status: "", height: 300, label: spec.title });
    this.draw();
  }

  XYChart.prototype.setState = Card.methods.setState;
  XYChart.prototype.renderLegend = Card.methods.renderLegend;

  XYChart.prototype.draw = function () {
    var spec = this.spec, bar = spec.type === "bar", cats = spec.x.categories || [];
    var datasets = spec.datasets.map(function (d, i) {
      var color = Theme.color(d.color) || PALETTE[i % PALETTE.length];
      var show = d.show || (bar ? "bar" : "points");
      var at = bar ? cats.map(function (c) { return d.points.findIndex(function (q) { return q[0] === c; }); }) : null;
      var data = bar ? at.map(function (k) { return k < 0 ? null : d.points[k][1]; })
        : d.points.map(function (p) { return { x: p[0], y: p[1] }; });
      var open = bar ? at.map(function (k) { return k >= 0 && !!(d.open || [])[k]; }) : [];
      var notes = bar ? at.map(function (k) { return k < 0 ? "" : (d.notes || [])[k]; }) : d.notes || [];
      return {
        label: d.label, unit: d.unit, key: d.label, data: data, points: d.points, notes: notes, open: open,
        type: show === "bar" ? "bar" : "scatter", showLine: show === "line",
        borderColor: color, borderDash: d.dash || [], fill: d.fill || false,
        // a measurement that never ended (a hang) is an open bar: its height is where the test stopped waiting
        backgroundColor: show === "bar" ? function (c) { return open[c.dataIndex] ? "#ffffff00" : color + "cc"; }
          : d.fill ? color + "26" : color + "a0",
        borderWidth: show === "bar" ? function (c) { return open[c.dataIndex] ? 2 : 1; } : show === "line" ? (d.dash ? 1.5 : 2) : 1,
        pointStyle: d.pointStyle || "circle",
        pointRadius: d.radius || (show === "points" ? 2.5 : show === "line" && !d.fill ? 3 : 0),
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
    if (this.log === undefined) { this.log = spec.y.type === "logarithmic"; }  // the log tool turns it on and off
    this.card.querySelector("[data-act=log]").setAttribute("aria-pressed", String(this.log));
    var yLog = this.log, axis = Card.logAxis([].concat.apply([], spec.datasets.map(function (d) {
      return d.points.map(function (p) { return p[1]; });
    })));
    var yScale = { type: yLog ? "logarithmic" : "linear", beginAtZero: !yLog, min: yLog ? axis.min : spec.y.min,
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
      plugins: [Card.background, openBars]
    });
    this.renderLegend();
    var any = datasets.some(function (d) { return d.points.length; });
    var pieces = [].concat(spec.conclusion || []);
    if (yLog && axis.note) { pieces.push((pieces.length ? " " : "") + axis.note); }
    this.setState(any ? "ready" : "empty", any ? "" : "No measurements.");
    if (any) { fillStatus(this.status, pieces); }
  };

  /** Drawn again (in another theme). */
  XYChart.prototype.redraw = function () {
    this.chart.destroy();
    this.draw();
  };

  XYChart.prototype.act = function (what) { Card.save(this, what); };

  /** Every series' points as given (x, y), for the CSV and the test snapshot. */
  XYChart.prototype.points = function () {
    return this.spec.datasets.map(function (d) {
      return { label: d.label, unit: d.unit, points: d.points.map(function (p) { return [p[0], p[1]]; }),
        fields: d.fields || [] };
    });
  };

  /** Every point with every field of its measurement (a hang's still_hanging, the setting tried...), so a value
   * drawn at a cap never reads as a measured one. */
  XYChart.prototype.toCSV = function () {
    var rows = [], x = this.spec.x.title || "x", sets = this.points(), keys = [];
    sets.forEach(function (d) {
      d.fields.forEach(function (f) { Object.keys(f || {}).forEach(function (k) { if (keys.indexOf(k) < 0) { keys.push(k); } }); });
    });
    sets.forEach(function (d) {
      d.points.forEach(function (p, i) {
        var f = d.fields[i] || {};
        rows.push([d.label, d.unit, p[0], p[1]].concat(keys.map(function (k) {
          return f[k] !== null && typeof f[k] === "object" ? JSON.stringify(f[k]) : f[k];
        })));
      });
    });
    return F.csv(["series", "unit", x, "value"].concat(keys), rows);
  };

  XYChart.prototype.destroy = function () { Card.remove(this); };

  AWRLens.Charts.createXY = function (container, spec) { return new XYChart(container, spec); };
}(window.AWRLens = window.AWRLens || {}));
