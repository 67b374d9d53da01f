/* AWRLens.ChartCard: what time charts (charts.js) and XY charts (charts-xy.js) share: the card (title, tool
 * buttons, status line, canvas, legend) and its states, the HTML legend, PNG and CSV, the background and colours of
 * the theme (AWRLens.Theme), the palette, and the register of live charts (AWRLens.Charts.snapshot and settled
 * read it). */
(function (AWRLens) {
  "use strict";
  var F = AWRLens.Format, element = AWRLens.Dom.element, Theme = AWRLens.Theme;
  var live = new Set();
  var PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#7f7f7f", "#bcbd22"];
  var SAVE_TOOLS = [["png", "PNG", "Save the chart as PNG"], ["csv", "CSV", "Save the chart's data as CSV"]];

  // the theme's background, so an exported PNG is not transparent
  var background = {
    id: "awrBackground",
    beforeDraw: function (chart) {
      var ctx = chart.ctx;
      ctx.save();
      ctx.globalCompositeOperation = "destination-over";
      ctx.fillStyle = Theme.color("--panel");
      ctx.fillRect(0, 0, chart.width, chart.height);
      ctx.restore();
    }
  };

  var LOG_TOOL = ["log", "log", "Logarithmic y axis: on or off"];
  var BAND_TOOL = ["band", "≈", "Normal band: each series at the same hour of the week in the 4 weeks before (p10 to " +
    "p90 shaded, the median dashed), the points outside it marked; on or off"];

  /** A log axis for these values: its minimum the power of ten below the smallest positive one (so a bar always
   * rises from the axis), and a note on the values of zero or less, which a log axis cannot draw. */
  function logAxis(values) {
    var positive = values.filter(function (v) { return v > 0; });
    var low = values.filter(function (v) { return v !== null && v !== undefined && v <= 0; }).length;
    return { min: positive.length ? Math.pow(10, Math.floor(Math.log10(Math.min.apply(null, positive) * 0.999))) : 1,
      note: low ? low + (low === 1 ? " value" : " values") + " of zero or less not drawn on the log scale." : "" };
  }

  /** The card of a chart (title, tool buttons calling chart.act, status line, canvas, legend), added to container. */
  function build(chart, container, spec, opts) {
    chart.card = element("section", { "class": "card chart-card" + (spec.wide ? " wide" : spec.third ? " third" : ""),
      "data-chart": spec.id, "data-state": "loading", "aria-labelledby": "h-" + spec.id });
    var head = element("header", { "class": "card-head" });
    head.appendChild(element("h3", { id: "h-" + spec.id }, spec.title));
    var tools = element("div", { "class": "tools", role: "group", "aria-label": "Chart tools: " + spec.title });
    (opts.tools || []).concat(SAVE_TOOLS).forEach(function (b) {
      var btn = element("button", { type: "button", "data-act": b[0], title: b[2], "aria-label": b[2] }, b[1]);
      if (b === LOG_TOOL || b === BAND_TOOL) { btn.setAttribute("aria-pressed", "false"); }
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

  // -- PNG that stands alone: the chart with its title, what it shows (database, instances, range and zone: the
  // spec's about()), its legend, and the link that reproduces it, drawn as text and kept as PNG text chunks --------

  var CRC = (function () {
    var t = [];
    for (var n = 0; n < 256; n++) {
      var c = n;
      for (var k = 0; k < 8; k++) { c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; }
      t.push(c >>> 0);
    }
    return t;
  }());

  function crc32(bytes) {
    var c = 0xffffffff;
    for (var i = 0; i < bytes.length; i++) { c = CRC[(c ^ bytes[i]) & 0xff] ^ (c >>> 8); }
    return (c ^ 0xffffffff) >>> 0;
  }

  /** PNG bytes with tEXt chunks (keyword -> Latin-1 text) put in before the image data. */
  function withText(png, texts) {
    var chunks = Object.keys(texts).map(function (key) {
      var body = Array.from(key + "\0" + texts[key], function (ch) { var c = ch.charCodeAt(0); return c < 256 ? c : 63; });
      var data = new Uint8Array(12 + body.length), view = new DataView(data.buffer);
      view.setUint32(0, body.length);
      data.set([116, 69, 88, 116], 4);  // "tEXt"
      data.set(body, 8);
      view.setUint32(8 + body.length, crc32(data.subarray(4, 8 + body.length)));
      return data;
    });
    var at = 33;  // after the signature (8) and IHDR (25)
    var size = chunks.reduce(function (n, c) { return n + c.length; }, png.length), out = new Uint8Array(size), pos = at;
    out.set(png.subarray(0, at));
    chunks.forEach(function (c) { out.set(c, pos); pos += c.length; });
    out.set(png.subarray(at), pos);
    return out;
  }

  /** Lines of `text` no wider than `width` in the context's font (a long link is cut anywhere). */
  function wrap(g, text, width) {
    var lines = [], line = "";
    Array.from(text).forEach(function (ch) {
      if (g.measureText(line + ch).width > width && line) { lines.push(line); line = ""; }
      line += ch;
    });
    return line ? lines.concat([line]) : lines;
  }

  function png(chart) {
    var c = chart.chart, src = c.canvas, ratio = src.width / (src.clientWidth || src.width), pad = 12 * ratio;
    var about = chart.spec.about ? chart.spec.about() : [], link = window.location.href;
    var legend = c.data.datasets.filter(function (d, i) { return c.isDatasetVisible(i); });
    var units = new Set(legend.map(function (d) { return d.unit; }));
    var out = document.createElement("canvas"), g = out.getContext("2d"), width = src.width - 2 * pad;
    var font = function (px, bold) { g.font = (bold ? "bold " : "") + px * ratio + "px sans-serif"; };
    font(11);
    var linkLines = wrap(g, link, width);
    font(12);
    var rows = [[]], x = 0;  // the legend, laid out in rows
    legend.forEach(function (d) {
      var text = d.label + (units.size > 1 && d.unit ? " (" + d.unit + ")" : ""), w = 18 * ratio + g.measureText(text).width;
      if (x + w > width && rows[rows.length - 1].length) { rows.push([]); x = 0; }
      rows[rows.length - 1].push({ d: d, text: text, x: x });
      x += w + 14 * ratio;
    });
    var line = 18 * ratio;
    out.width = src.width;
    out.height = Math.ceil(pad + line * (1 + about.length) + src.height + line * rows.length + linkLines.length * 15 * ratio + 2 * pad);
    g.fillStyle = Theme.color("--panel");
    g.fillRect(0, 0, out.width, out.height);
    g.fillStyle = Theme.color("--ink");
    g.textBaseline = "top";
    var y = pad;
    font(15, true);
    g.fillText(chart.spec.title, pad, y);
    y += line;
    font(12);
    about.forEach(function (t) { g.fillText(t, pad, y); y += line; });
    g.drawImage(src, 0, y);
    y += src.height;
    rows.forEach(function (row) {
      row.forEach(function (item) {
        g.fillStyle = item.d.borderColor;
        g.fillRect(pad + item.x, y + 3 * ratio, 12 * ratio, 8 * ratio);
        g.fillStyle = Theme.color("--ink");
        g.fillText(item.text, pad + item.x + 18 * ratio, y);
      });
      y += line;
    });
    font(11);
    g.fillStyle = Theme.color("--muted");
    linkLines.forEach(function (t) { g.fillText(t, pad, y + pad / 2); y += 15 * ratio; });
    var raw = atob(out.toDataURL("image/png").split(",")[1]), bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { bytes[i] = raw.charCodeAt(i); }
    return new Blob([withText(bytes, { Title: chart.spec.title, Description: about.join("\n"), Source: link })],
      { type: "image/png" });
  }

  /** The PNG or CSV tool of a chart (its toCSV() gives the CSV), its log toggle (chart.log, drawn again) or its normal
   * band's (chart.band, loaded again); false for any other tool. */
  function save(chart, what) {
    if (what === "band") {  // asked again with the band (docs/awr-rules.md §32), or without
      chart.band = !chart.band;
      chart.card.querySelector("[data-act=band]").setAttribute("aria-pressed", String(chart.band));
      chart.segments = [];
      chart.setWindow(chart.win);
      return true;
    }
    if (what === "log") {
      chart.log = !chart.log;
      chart.card.querySelector("[data-act=log]").setAttribute("aria-pressed", String(chart.log));
      if (chart.chart) { chart.redraw(); }
      return true;
    }
    if (what === "png") {
      if (chart.chart) { F.download(AWRLens.Views.fileName(chart.spec.id, "png", chart.win), png(chart)); }
      return true;
    }
    if (what === "csv") {
      F.download(AWRLens.Views.fileName(chart.spec.id, "csv", chart.win),
        new Blob([chart.toCSV()], { type: "text/csv;charset=utf-8" }));
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

  /** Chart.js's colours from the theme shown (text, grid, tooltip), and every live chart drawn again in it. */
  function themed() {
    var d = window.Chart.defaults, tip = d.plugins.tooltip;
    d.color = Theme.color("--muted");
    d.borderColor = Theme.color("--grid");
    tip.backgroundColor = Theme.color("--tooltip");
    tip.titleColor = tip.bodyColor = tip.footerColor = Theme.color("--tooltip-ink");
    live.forEach(function (c) { if (c.chart) { c.redraw(); } });
  }
  themed();
  Theme.onChange(themed);

  AWRLens.ChartCard = {
    PALETTE: PALETTE,
    LOG_TOOL: LOG_TOOL,
    BAND_TOOL: BAND_TOOL,
    logAxis: logAxis,
    background: background,
    build: build,
    methods: methods,
    save: save,
    remove: remove,
    live: function () { return Array.from(live); }
  };
}(window.AWRLens = window.AWRLens || {}));
