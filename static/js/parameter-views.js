/* The Parameters view (docs/awr-rules.md §23): what was set and changed, per instance, from DBA_HIST_PARAMETER:
 * every change in the range (each also a pin on the time charts: changes.js), the parameters not at their default
 * in the range, and the values in force at the range's last snapshot. Sizes read in binary units (sga_target 64 GB);
 * CSV keeps the value as Oracle keeps it, with its unit. */
(function (AWRLens) {
  "use strict";
  var Api = AWRLens.Api, Dbs = AWRLens.Databases, Views = AWRLens.Views, Tables = AWRLens.Tables;
  var HV = AWRLens.HistoryViews, element = AWRLens.Dom.element, NUM = Tables.num, TEXT = Tables.text;

  function VALUE(key, title) { return { key: key, title: title, type: "param" }; }
  function TIME(key, title) { return { key: key, title: title, type: "time" }; }

  /** The instance the tables ask for: one line each is every instance, each row naming its own. */
  function instanceOf(state) { return state.inst === "each" || !state.inst ? "all" : state.inst; }

  Views.add("parameters", {
    title: "Parameters",
    build: function (ctx, parts, root) {
      var grid = element("div", { "class": "grid" });
      root.appendChild(grid);
      parts.changed = HV.table(ctx, parts, grid, { id: "parameter-changes", title: "Changes in this range", wide: true,
        order: [[0, "asc"]], columns: [TIME("time", "Seen at"), NUM("instance", "Instance"), TEXT("parameter", "Parameter"),
          VALUE("old_value", "From"), VALUE("new_value", "To"), TIME("restart", "At the restart of"),
          TEXT("unit", "Unit")] });
      parts.set = HV.table(ctx, parts, grid, { id: "parameters-non-default", title: "Not at their default in this range",
        wide: true, pageLength: 25, order: [[0, "asc"]], columns: [TEXT("parameter", "Parameter"), NUM("instance", "Instance"),
          VALUE("value", "Value"), TIME("from", "From"), TIME("to", "To"), TEXT("unit", "Unit")] });
      parts.at = HV.table(ctx, parts, grid, { id: "parameters-at", title: "In force at the range's last snapshot", wide: true,
        pageLength: 25, order: [[0, "asc"]], columns: [TEXT("parameter", "Parameter"), NUM("instance", "Instance"),
          VALUE("value", "Value"), TEXT("isdefault", "Default"), TEXT("ismodified", "Modified"), TEXT("unit", "Unit")] });
    },
    update: function (ctx, parts) {
      var p = Object.assign({ instance: instanceOf(ctx.state) }, ctx.win.params), path = function (s) { return Dbs.path(ctx.db, s); };
      parts.changed.load(Api.get(path("/parameters/changes"), p).then(function (b) { return b.rows; }));
      parts.set.load(Api.get(path("/parameters/non-default"), p).then(function (b) { return b.rows; }));
      parts.at.load(Api.get(path("/parameters"), p).then(function (b) {
        parts.at.setTitle("In force at snapshot " + b.snap_id + " (the range's last)");
        return b.rows;
      }));
    }
  });
}(window.AWRLens = window.AWRLens || {}));
