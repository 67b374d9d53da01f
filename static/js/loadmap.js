/* AWRLens.LoadMap: Top activity's Load Map (issue 31), as OEM's ASH Analytics draws it: a treemap of the window's
 * activity by one dimension, or by two (the second nested in the first), each rectangle's area its AAS. It draws the
 * rows of GET /activity/groups (ashtop's table) with the treemap chart type of chartjs-chart-treemap; a click on a
 * rectangle keeps the samples of its group, as a click on the table's row does. PNG as every chart's (chart-card.js);
 * the table beside it is its CSV. */
(function (AWRLens) {
  "use strict";
  var F = AWRLens.Format, Charts = AWRLens.Charts, Theme = AWRLens.Theme, element = AWRLens.Dom.element;

  /** spec: {id, title, dims: the rows' dimensions (the first one or two are drawn), label(dim), about(), onPick(row)} */
  function LoadMap(grid, spec) {
    this.spec = spec;
    this.card = element("section", { "class": "card wide chart-card loadmap-card", "data-chart": spec.id,
      "data-state": "loading", "aria-labelledby": "h-" + spec.id });
    var head = element("div", { "class": "card-head" });
    head.appendChild(element("h3", { id: "h-" + spec.id }, spec.title));
    var png = element("button", { type: "button", "data-act": "png", title: "Save as PNG" }, "PNG");
    var self = this;
    png.addEventListener("click", function () { AWRLens.ChartCard.save(self, "png"); });
    head.appendChild(png);
    this.card.appendChild(head);
    this.status = element("p", { "class": "status", role: "status" }, "Loading…");
    this.card.appendChild(this.status);
    var box = element("div", { "class": "loadmap", style: "position:relative;height:320px" });
    this.canvas = element("canvas", { role: "img", "aria-label": spec.title });
    box.appendChild(this.canvas);
    this.card.appendChild(box);
    grid.appendChild(this.card);
    this.chart = null;
  }

  LoadMap.prototype.load = function (rows) {
    var self = this;
    return rows.then(function (list) { self.draw(list); }).catch(function (err) {
      self.card.setAttribute("data-state", "error");
      self.status.textContent = "Could not load the Load Map: " + err.message;
    });
  };

  LoadMap.prototype.draw = function (rows) {
    var spec = this.spec, dims = spec.dims.slice(0, 2);
    if (this.chart) { this.chart.destroy(); this.chart = null; }
    if (!rows.length) {
      this.card.setAttribute("data-state", "empty");
      this.status.textContent = "No Active Session History sample in this window.";
      return;
    }
    var keys = dims.map(function (d) { return d + "_label"; }), colors = {};
    rows.forEach(function (r) {
      var first = String(r[keys[0]]);
      if (!(first in colors)) { colors[first] = Charts.PALETTE[Object.keys(colors).length % Charts.PALETTE.length]; }
    });
    this.chart = new window.Chart(this.canvas, {
      type: "treemap",
      data: { datasets: [{
        label: "AAS", unit: "sessions", tree: rows, key: "aas", groups: keys,
        borderColor: Theme.color("--panel"), borderWidth: 1, spacing: 1,
        backgroundColor: function (c) {
          var raw = c.raw || {}, row = raw._data || {};
          var first = row[keys[0]] !== undefined ? row[keys[0]] : (row.children && row.children[0] || {})[keys[0]];
          return colors[String(first)] || "#a8a8a8";
        },
        labels: { display: true, color: "#fff", overflow: "fit", formatter: function (c) {
          return [String(c.raw.g), F.fmtValue(c.raw.v, "sessions")];
        } },
        captions: { display: dims.length > 1, color: "#fff", font: { weight: "bold" } }
      }] },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        plugins: { legend: { display: false }, tooltip: { callbacks: {
          title: function (items) { return items.length ? String(items[0].raw.g) : ""; },
          label: function (item) { return F.fmtValue(item.raw.v, "sessions") + " AAS"; } } } },
        onClick: function (evt, found) {
          if (!found.length) { return; }
          var raw = found[found.length - 1].element.$context.raw, leaf = raw._data && raw._data.children;
          var row = leaf && leaf.length === 1 ? leaf[0] : null;
          if (row) { spec.onPick(row, dims); } else if (leaf && leaf.length) { spec.onPick(leaf[0], dims.slice(0, 1)); }
        }
      }
    });
    this.card.setAttribute("data-state", "ready");
    this.status.textContent = "Area: each group's average active sessions" + (dims.length > 1 ? ", " +
      spec.label(dims[1]) + " inside " + spec.label(dims[0]) : "") + ". A click keeps its samples.";
  };

  LoadMap.prototype.setWindow = function () {};  // drawn from the table's answer, which follows the window
  LoadMap.prototype.destroy = function () { if (this.chart) { this.chart.destroy(); this.chart = null; } };

  AWRLens.LoadMap = { create: function (grid, spec) { return new LoadMap(grid, spec); } };
}(window.AWRLens = window.AWRLens || {}));
