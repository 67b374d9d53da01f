/* AWRLens.Changes: what changed (GET /changes, docs/awr-rules.md §23) as annotations on every time chart: a thin line
 * at each change's time, drawn on the canvas (so the PNG has it; a restart's line is the restart marker's own, in
 * charts.js), a pin above the plot that shows the change's text on hover or focus, and a list of the window's changes
 * under the chart. Database text (a parameter's value, a run's title) is only ever set as text. A plugin of its own
 * rather than chartjs-plugin-annotation: the pins are elements a keyboard can reach, which canvas annotations are not.
 *   loader(ctx) -> function (win) -> Promise of the API's rows, with `ms` (the change's time) added
 *   attach(chart): the card's list, pins and tooltip; list(chart, shown): the window's changes under the chart.
 * The Δ tool shows or hides them on every time chart at once: `changes=hide` in the link (state.js), so a shared link
 * and Back keep it. */
(function (AWRLens) {
  "use strict";
  var F = AWRLens.Format, Api = AWRLens.Api, Dbs = AWRLens.Databases, Theme = AWRLens.Theme;
  var element = AWRLens.Dom.element;
  var COLORS = AWRLens.Dom.table({ parameter: "#9467bd", plan: "#e46800", version: "#8c564b", run: "#17becf" });  // restart: --restart
  var LABELS = AWRLens.Dom.table({ restart: "restart", parameter: "parameter", plan: "new plan", version: "version",
    run: "benchmark run" });

  function color(kind) { return kind === "restart" ? Theme.color("--restart") : COLORS[kind] || Theme.color("--muted"); }

  /** The changes of a database for a chart's window, asked from one snapshot interval before it (Loaders.bounds); one
   * answer per window, shared by the view's charts (AWRLens.Api keeps it). */
  function loader(ctx) {
    return function (win) {
      var db = ctx.db, iso = function (ms) { return F.isoTime(ms, Dbs.zone(db)); };
      var inst = ctx.state.inst && ctx.state.inst !== "each" ? ctx.state.inst : "all";
      return Api.get(Dbs.path(db, "/changes"), { from: iso(win.from - (db.step || 0) * 60000), to: iso(win.to),
        instance: inst }, { silent: true }).then(function (body) {
        return body.rows.map(function (r) { return Object.assign({ ms: Date.parse(r.time) }, r); });
      });
    };
  }

  /** Whether the changes are shown: not when the link says changes=hide. */
  function shown() { return AWRLens.State.get().changes !== "hide"; }

  /** The Δ tool: hide the changes on every time chart, or show them again (a history entry, as every choice). */
  function toggle() { AWRLens.State.set({ changes: shown() ? "hide" : null }); }

  // a new choice (the tool, Back, Forward) drawn on the live time charts; a chart built later reads it itself
  AWRLens.State.onChange(function (now, prev) {
    if ((now.changes === "hide") === (prev.changes === "hide")) { return; }
    AWRLens.ChartCard.live().forEach(function (c) { if (c.changeList) { c.showChanges(); } });
  });

  /** One line of a change, as text: its time in the chart's zone, its instance and its text. */
  function line(r, zone) {
    return F.fmtTime(r.ms, zone, true) + " · " + (r.instance ? "inst " + r.instance + " · " : "") +
      LABELS[r.kind] + ": " + r.text;
  }

  // the lines, on the canvas: after the datasets, under the tooltip
  var plugin = {
    id: "awrChanges",
    afterDatasetsDraw: function (chart) {
      var own = chart.$awr && chart.$awr.owner, area = chart.chartArea, x = chart.scales.x;
      if (!own || !own.changePins || !x) { return; }  // a chart without changes (spec.changes): compare's
      var ctx = chart.ctx, shown = own.changesShown();
      ctx.save();
      shown.forEach(function (r) {
        if (r.kind === "restart") { return; }  // drawn by the restart markers (charts.js)
        var px = x.getPixelForValue(r.ms);
        ctx.strokeStyle = color(r.kind);
        ctx.globalAlpha = 0.75;
        ctx.setLineDash([2, 2]);
        ctx.beginPath();
        ctx.moveTo(px, area.top);
        ctx.lineTo(px, area.bottom);
        ctx.stroke();
      });
      ctx.restore();
      pins(own, shown, chart);
    }
  };

  /** The pins above the plot, one per change in the window, each with its text for hover, focus and readers. */
  function pins(own, shown, chart) {
    var box = own.changePins, x = chart.scales.x, zone = own.win.zone;
    // drawn again only when they move (a tooltip redraws the chart at every mouse move; a focused pin stays)
    var key = [x.min, x.max, chart.width, chart.chartArea.top, zone, color("restart")].concat(shown.map(function (r) {
      return r.ms + r.kind + r.text; })).join("|");
    if (box.$key === key) { return; }
    box.$key = key;
    box.textContent = "";
    box.style.top = Math.max(0, chart.chartArea.top - 12) + "px";
    shown.forEach(function (r) {
      var text = line(r, zone);
      var pin = element("button", { type: "button", "class": "change-pin", "data-kind": r.kind, "aria-label": text });
      pin.style.left = x.getPixelForValue(r.ms) + "px";
      pin.style.background = color(r.kind);
      var tip = function () {
        own.changeTip.textContent = text;
        own.changeTip.hidden = false;
        var left = Math.min(Math.max(0, x.getPixelForValue(r.ms) - 40), Math.max(0, chart.width - own.changeTip.offsetWidth));
        own.changeTip.style.left = left + "px";
        own.changeTip.style.top = (chart.chartArea.top + 4) + "px";
      };
      var untip = function () { own.changeTip.hidden = true; };
      pin.addEventListener("mouseenter", tip);
      pin.addEventListener("focus", tip);
      pin.addEventListener("mouseleave", untip);
      pin.addEventListener("blur", untip);
      box.appendChild(pin);
    });
  }

  /** The card's parts: pins and a tooltip over the plot, the list under the legend. */
  function attach(chart) {
    var plot = chart.canvas.parentNode;
    chart.changePins = element("div", { "class": "change-pins" });
    chart.changeTip = element("div", { "class": "change-tip", role: "tooltip" });
    chart.changeTip.hidden = true;
    plot.appendChild(chart.changePins);
    plot.appendChild(chart.changeTip);
    chart.changeList = element("ul", { "class": "change-list", "aria-label": "What changed in this window" });
    chart.changeList.hidden = true;
    chart.card.appendChild(chart.changeList);
  }

  /** The list under the chart: the changes in its window, in time order, as text. */
  function list(chart, shown) {
    var ul = chart.changeList, zone = chart.win.zone;
    ul.textContent = "";
    shown.forEach(function (r) {
      var li = element("li", { "data-kind": r.kind });
      var mark = element("span", { "class": "change-mark", "aria-hidden": "true" });
      mark.style.background = color(r.kind);
      li.appendChild(mark);
      li.appendChild(document.createTextNode(line(r, zone)));
      ul.appendChild(li);
    });
    ul.hidden = !shown.length;
  }

  AWRLens.Changes = { loader: loader, plugin: plugin, attach: attach, list: list, line: line, shown: shown, toggle: toggle,
    LABELS: LABELS };
}(window.AWRLens = window.AWRLens || {}));
