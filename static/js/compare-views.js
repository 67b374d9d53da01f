/* The compare-periods view, registered with the router (AWRLens.Views.add): two periods, A and B, of one
 * database side by side, from the history API's /compare. */
(function (AWRLens) {
  "use strict";
  var F = AWRLens.Format, Api = AWRLens.Api, State = AWRLens.State, Tables = AWRLens.Tables;
  var Dbs = AWRLens.Databases, Views = AWRLens.Views;
  var element = AWRLens.Dom.element, NUM = Tables.num, TEXT = Tables.text;

  function table(ctx, parts, root, spec) {
    var t = Tables.create(root, Object.assign({ zone: function () { return Dbs.zoneOf(ctx.state, ctx.db); } }, spec));
    parts.tables.push(t);
    return t;
  }

  function tableInstance(state) { return state.inst === "each" ? "all" : state.inst; }

  Views.add("compare", {
    title: "Compare periods",
    build: function (ctx, parts, root) {
      var form = element("form", { "class": "card compare-form", "aria-label": "Periods to compare" });
      parts.inputs = {};
      [["a", "Period A"], ["b", "Period B"]].forEach(function (p) {
        var fs = element("fieldset", {});
        fs.appendChild(element("legend", {}, p[1]));
        ["from", "to"].forEach(function (end) {
          var id = p[0] + "-" + end;
          fs.appendChild(element("label", { "for": id }, end === "from" ? "From" : "to"));
          var input = element("input", { id: id, type: "datetime-local", required: "" });
          parts.inputs[p[0] + "_" + end] = input;
          fs.appendChild(input);
        });
        form.appendChild(fs);
      });
      form.appendChild(element("button", { type: "submit" }, "Compare"));
      form.addEventListener("submit", function (e) {
        e.preventDefault();
        var zone = Dbs.zoneOf(ctx.state, ctx.db), patch = {};
        Object.keys(parts.inputs).forEach(function (k) {
          patch[k] = F.isoTime(F.parseInputTime(parts.inputs[k].value, zone), Dbs.zone(ctx.db));
        });
        State.set(patch);
      });
      root.appendChild(form);
      var grid = element("div", { "class": "grid" });
      root.appendChild(grid);
      parts.lp = table(ctx, parts, grid, { id: "compare-load-profile", title: "Load Profile: A and B", pageLength: 25, wide: true,
        columns: [TEXT("metric", "Metric"), NUM("a_per_second", "A per second"), NUM("b_per_second", "B per second"),
          { key: "change_pct", title: "Change", type: "change" }, NUM("a_per_transaction", "A per txn"),
          NUM("b_per_transaction", "B per txn")] });
      parts.events = table(ctx, parts, grid, { id: "compare-top-events", title: "Top events: A and B", pageLength: 25, wide: true,
        columns: [TEXT("event", "Event"), TEXT("wait_class", "Wait class"), NUM("a_time_s", "A time", "s"),
          NUM("b_time_s", "B time", "s"), { key: "change_pct", title: "Change", type: "change" },
          NUM("a_avg_ms", "A avg wait", "ms"), NUM("b_avg_ms", "B avg wait", "ms"),
          NUM("a_pct_db_time", "A % DB time", "%"), NUM("b_pct_db_time", "B % DB time", "%")] });
    },
    update: function (ctx, parts) {
      var s = ctx.state, db = ctx.db, win = ctx.win;
      if (!(s.a_from && s.a_to && s.b_from && s.b_to)) {  // B: the range shown; A: as long, just before it
        var from = Math.max(win.from, db.first), w = win.to - from;
        var iso = function (ms) { return F.isoTime(ms, Dbs.zone(db)); };
        var a = [from - w, from], b = [from, win.to];
        if (a[0] < db.first) { a = [from, from + w / 2]; b = [a[1], win.to]; }  // no history before it: its halves
        State.set({ a_from: iso(a[0]), a_to: iso(a[1]), b_from: iso(b[0]), b_to: iso(b[1]) }, "replace");
        return;
      }
      var zone = Dbs.zoneOf(s, db);
      Object.keys(parts.inputs).forEach(function (k) { parts.inputs[k].value = F.inputTime(Dbs.parseTime(s[k], db), zone); });
      var body = Api.get(Dbs.path(db, "/compare"), { a_from: s.a_from, a_to: s.a_to, b_from: s.b_from, b_to: s.b_to,
        instance: tableInstance(s) });
      parts.lp.load(body.then(function (b) { return b.load_profile.rows; }));
      parts.events.load(body.then(function (b) { return b.top_events.rows; }));
    }
  });

}(window.AWRLens = window.AWRLens || {}));
