/* AWRLens.ChartCard: what time charts (charts.js) and XY charts (charts-xy.js) share: the card (title, tool
 * buttons, status line, canvas, legend) and its states, the HTML legend, PNG and CSV, the white background, the
 * palette, and the register of live charts (AWRLens.Charts.snapshot and settled read it). */
(function (AWRLens) {
  "use strict";
  var F = AWRLens.Format, element = AWRLens.Dom.element;
  var live = new Set();
  var PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#7f7f7f", "#bcbd22"];
  var SAVE_TOOLS = [["png", "PNG", "Save the chart as PNG"], ["csv", "CSV", "Save the chart's data as CSV"]];

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

  /** The card of a chart (title, tool buttons calling chart.act, status line, canvas, legend), added to container. */
  function build(chart, container, spec, opts) {
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

  /** Methods of every chart: its state and status line, and its legend. */
  var methods = {
    setState: function (state, message) {
      this.card.setAttribute("data-state", state);
      this.status.textContent = message || "";
      this.status.classList.toggle("is-error", state === "error");
    },

    /** An HTML legend: one toggle button per series, usable with the keyboard. */
    renderLegend: function () {
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
    }
  };

  /** The PNG or CSV tool of a chart (its toCSV() gives the CSV); false for any other tool. */
  function save(chart, what) {
    if (what === "png") {
      if (chart.chart) { F.download("awrlens-" + chart.spec.id + ".png", chart.chart.toBase64Image("image/png", 1)); }
      return true;
    }
    if (what === "csv") {
      F.download("awrlens-" + chart.spec.id + ".csv", new Blob([chart.toCSV()], { type: "text/csv;charset=utf-8" }));
      return true;
    }
    return false;
  }

  /** Take a chart off the page and out of the register. */
  function remove(chart) {
    if (chart.chart) { chart.chart.destroy(); chart.chart = null; }
    chart.card.remove();
    live.delete(chart);
  }

  AWRLens.ChartCard = {
    PALETTE: PALETTE,
    background: background,
    build: build,
    methods: methods,
    save: save,
    remove: remove,
    live: function () { return Array.from(live); }
  };
}(window.AWRLens = window.AWRLens || {}));
