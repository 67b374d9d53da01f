/* The compare-periods view, registered with the router (AWRLens.Views.add): two periods, A and B, of one
 * database, from the history API's /compare, what changed first (docs/awr-rules.md §29): DB time per second, the
 * movers (a bar chart and a table) and the plans that appeared or disappeared; then the same charts for A and B on
 * one time axis, B shifted onto A (A solid, B dashed; the tooltip gives B's own time); then the detailed tables.
 * Colour says direction only where the answer says which way is better ("better": "lower" | "higher" | null).
 * AWRLens.Compare holds the overlay's arithmetic. */
(function (AWRLens) {
  "use strict";
  var F = AWRLens.Format, Api = AWRLens.Api, State = AWRLens.State, Tables = AWRLens.Tables, Charts = AWRLens.Charts;
  var Dbs = AWRLens.Databases, Views = AWRLens.Views, Loaders = AWRLens.Loaders;
  var element = AWRLens.Dom.element, NUM = Tables.num, TEXT = Tables.text;
  var OVERLAID_MOVERS = 3;  // the first time movers with a series, drawn over time
  var KINDS = { "time model": "Time model", "wait event": "Wait event", sql: "SQL", "load profile": "Load Profile" };

  /** What one period alone holds, as the answer says ("a": gone in B, "b": new in B). */
  function onlyIn(value) { return value === "a" ? "A only (gone in B)" : value === "b" ? "B only (new in B)" : ""; }

  /** The periods of a state, in ms. */
  function periods(state, db) {
    var t = function (k) { return Dbs.parseTime(state[k], db); };
    return { a: { from: t("a_from"), to: t("a_to") }, b: { from: t("b_from"), to: t("b_to") } };
  }

  /** A and B's datasets of the same series on one axis: A's points of intervals within A, solid; B's within B,
   * dashed, moved by (A.from - B.from), with `shift` (B.from - A.from) so the tooltip can give each point's own time.
   * A point is timed at the end of its interval of `step` ms; an interval that starts before a period's start is not
   * part of it (docs/awr-rules.md §12), as in the compare answer. */
  function overlaid(aSets, bSets, a, b, step) {
    var shift = a.from - b.from, colors = AWRLens.Dom.table();
    var within = function (p, w) { return p[0] - step >= w.from && p[0] <= w.to; };
    var out = aSets.map(function (d) {
      colors[d.key] = d.color;
      return Object.assign({}, d, { key: "A|" + d.key, label: "A · " + d.label,
        points: d.points.filter(function (p) { return within(p, a); }) });
    });
    bSets.forEach(function (d) {
      var partial = AWRLens.Dom.table();
      Object.keys(d.partial || {}).forEach(function (t) { partial[Number(t) + shift] = d.partial[t]; });
      out.push(Object.assign({}, d, { key: "B|" + d.key, label: "B · " + d.label, color: colors[d.key] || d.color,
        dash: [6, 4], shift: -shift, partial: partial,
        points: d.points.filter(function (p) { return within(p, b); }).map(function (p) { return [p[0] + shift, p[1]]; }) }));
    });
    return out;
  }

  /** The axis both periods share: from A's start, as long as the longer of the two. */
  function sharedWindow(a, b) { return { from: a.from, to: a.from + Math.max(a.to - a.from, b.to - b.from) }; }

  AWRLens.Compare = { overlaid: overlaid, sharedWindow: sharedWindow };

  if (!Views) { return; }  // the arithmetic alone (tests/js)

  function table(ctx, parts, root, spec) {
    var t = Tables.create(root, Object.assign({ zone: function () { return Dbs.zoneOf(ctx.state, ctx.db); } }, spec));
    parts.tables.push(t);
    return t;
  }

  function tableInstance(state) { return state.inst === "each" ? "all" : state.inst; }

  /** What a compare chart shows, for its PNG: the database, the instances and both periods. */
  function about(ctx) {
    var db = ctx.db, zone = Dbs.zoneOf(ctx.state, db), p = periods(ctx.state, db), inst = tableInstance(ctx.state);
    var span = function (w) { return F.fmtTime(w.from, zone, true) + " to " + F.fmtTime(w.to, zone, true); };
    return [db.name + " (" + db.id + ") · " + (inst && inst !== "all" ? "instance " + inst : "every instance"),
      "A: " + span(p.a) + " · B: " + span(p.b) + " (" + zone + ")"];
  }

  /** A time chart of A and B overlaid, B shifted onto A; zooming stays within the chart. */
  function overlayChart(ctx, parts, root, spec, names) {
    var p = periods(ctx.state, ctx.db), shared = sharedWindow(p.a, p.b), shift = p.a.from - p.b.from;
    var win = { from: shared.from, to: shared.to, zone: Dbs.zoneOf(ctx.state, ctx.db),
      limits: { min: shared.from, max: shared.to } };
    var c = Charts.create(root, Object.assign({ singleInstance: ctx.db.instances.length === 1, prefetch: false,
      database: ctx.db.name,
      about: function () { return about(ctx); },
      onWindow: function (from, to) { c.setWindow(Object.assign({}, win, { from: from, to: to })); },
      load: function (range) {
        return names.then(function (list) {
          var load = Loaders.series(ctx, list);
          return Promise.all([load(range), load({ from: range.from - shift, to: range.to - shift })]);
        }).then(function (res) {
          return { datasets: overlaid(res[0].datasets, res[1].datasets, p.a, p.b, (ctx.db.step || 0) * 60000),
            markers: res[0].markers,
            downsampled: res[0].downsampled || res[1].downsampled };
        });
      } }, spec));
    parts.charts.push(c);
    c.setWindow(win);
    return c;
  }

  /** DB time per second of A and B, coloured by the answer's direction. */
  function headline(box, body) {
    var d = body.db_time, e = body.elapsed_seconds, hours = function (s) { return F.fmtValue(s / 3600, "h"); };
    box.textContent = "";
    box.appendChild(element("span", {}, "DB time per second (average active sessions): A " + F.fmtValue(d.a) +
      ", B " + F.fmtValue(d.b) + " "));
    var change = element("span", { "class": Tables.direction(d.change_pct, d.better), "data-better": d.better || "" },
      F.fmtChange(d.change_pct));
    box.appendChild(change);
    box.appendChild(element("span", {}, " · A covers " + hours(e.a) + ", B " + hours(e.b) +
      "; every value is per second or per transaction, so periods of different lengths compare."));
  }

  /** The time movers as bars: the change of each, as a share of A's DB time per second. */
  function moversChart(ctx, parts, root, rows) {
    var time = rows.filter(function (r) { return r.group === "time" && r.db_time_change_pct !== null; });
    var label = function (r) { return (KINDS[r.kind] || r.kind) + ": " + r.item; };
    parts.charts.push(Charts.createXY(root, { id: "compare-movers-chart", type: "bar", height: 300, wide: true,
      title: "What changed: the time movers, B − A as % of A's DB time per second",
      about: function () { return about(ctx); },
      x: { type: "category", categories: time.map(label) }, y: { title: "% of A's DB time" },
      datasets: [{ label: "Change, % of A's DB time per second", unit: "%", show: "bar",
        points: time.map(function (r) { return [label(r), r.db_time_change_pct]; }),
        fields: time.map(function (r) { return { kind: r.kind, item: r.item, a: r.a, b: r.b }; }) }] }));
  }

  /** Period A from an AWR baseline (docs/awr-rules.md §33): a named range the DBA kept, or the moving window. Picked,
   * it fills A's times, and compares at once when B is set. Listed where the database keeps baselines (AWR). */
  function baselinePicker(ctx, parts, fs) {
    if (ctx.db.source === "statspack") { return; }  // Statspack keeps no named ranges (docs/awr-rules.md §31)
    var select = element("select", { id: "a-baseline" });
    select.appendChild(element("option", { value: "" }, "(the times)"));
    fs.appendChild(element("label", { "for": "a-baseline" }, "or a baseline"));
    fs.appendChild(select);
    var zone = Dbs.zoneOf(ctx.state, ctx.db), found = [];
    Api.get(Dbs.path(ctx.db, "/baselines"), {}, { silent: true }).then(function (body) {
      found = body.rows.filter(function (r) { return r.from && r.to; });
      found.forEach(function (r, i) {
        select.appendChild(element("option", { value: String(i) }, r.name + " (" + F.fmtTime(Date.parse(r.from), zone) +
          " → " + F.fmtTime(Date.parse(r.to), zone) + ")"));
        var s = ctx.state;  // A is this baseline: it says so
        if (Date.parse(s.a_from) === Date.parse(r.from) && Date.parse(s.a_to) === Date.parse(r.to)) { select.value = String(i); }
      });
    }, function () { select.disabled = true; });
    select.addEventListener("change", function () {
      var r = found[Number(select.value)];
      if (!r || select.value === "") { return; }
      parts.inputs.a_from.value = F.inputTime(Date.parse(r.from), zone);
      parts.inputs.a_to.value = F.inputTime(Date.parse(r.to), zone);
      if (ctx.state.b_from && ctx.state.b_to) { State.set({ a_from: r.from, a_to: r.to }); }
    });
  }

  Views.add("compare", {
    title: "Compare periods",
    key: function (state) { return [state.a_from, state.a_to, state.b_from, state.b_to]; },
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
        if (p[0] === "a") { baselinePicker(ctx, parts, fs); }
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
      var s = ctx.state;
      if (!(s.a_from && s.a_to && s.b_from && s.b_to)) { return; }  // update chooses the periods
      var answer = Api.get(Dbs.path(ctx.db, "/compare"), { a_from: s.a_from, a_to: s.a_to, b_from: s.b_from,
        b_to: s.b_to, instance: tableInstance(s) });
      // what changed
      var head = element("section", { "class": "card wide compare-headline", id: "compare-headline", role: "status" },
        "Loading…");
      root.appendChild(head);
      answer.then(function (body) { headline(head, body); })
        .catch(function (err) { head.textContent = "Could not compare these periods: " + err.message; });
      var grid = element("div", { "class": "grid" });
      root.appendChild(grid);
      var bars = element("div", { "class": "wide compare-bars" });
      grid.appendChild(bars);
      answer.then(function (body) { moversChart(ctx, parts, bars, body.movers.rows); }).catch(function () { /* in the headline */ });
      var change = function (key, title, better) { return { key: key, title: title, type: "change", better: better }; };
      var valueIn = function (key, title) { return NUM(key, title, function (row) { return row.unit; }); };
      parts.movers = table(ctx, parts, grid, { id: "compare-movers", title: "What changed: the movers, largest first",
        pageLength: 25, wide: true, order: [],
        columns: [TEXT("group", "Group"), TEXT("kind", "Kind"), TEXT("item", "Item"), Tables.container,
          TEXT("measure", "Measure"), valueIn("a", "A"), valueIn("b", "B"), change("change_pct", "Change", "better"),
          change("db_time_change_pct", "Of A's DB time", "better"),
          TEXT("only_in", "Only in")] });
      parts.movers.load(answer.then(function (b) {
        return b.movers.rows.map(function (r) {
          return Object.assign({}, r, { kind: KINDS[r.kind] || r.kind, only_in: onlyIn(r.only_in) });
        });
      }));
      parts.differences = table(ctx, parts, grid, { id: "compare-differences", wide: true, order: [],
        title: "What differs: plans of the top statements that appeared or disappeared",
        columns: [TEXT("kind", "Kind"), TEXT("item", "Item"), Tables.container, TEXT("a", "A"), TEXT("b", "B"),
          TEXT("change", "Change")] });
      parts.differences.load(answer.then(function (b) { return b.differences.rows; }));
      // over time, B shifted onto A
      overlayChart(ctx, parts, grid, { id: "compare-aas", wide: true,
        title: "DB time per second (AAS): A solid, B dashed and shifted onto A" }, Promise.resolve(["derived:aas"]));
      overlayChart(ctx, parts, grid, { id: "compare-top-movers", wide: true,
        title: "The top time movers over time: A solid, B dashed and shifted onto A" },
      answer.then(function (b) {
        return b.movers.rows.filter(function (r) { return r.series; }).slice(0, OVERLAID_MOVERS)
          .map(function (r) { return r.series; });
      }));
      // the detailed tables
      parts.lp = table(ctx, parts, grid, { id: "compare-load-profile", title: "Load Profile: A and B", pageLength: 25, wide: true,
        columns: [TEXT("metric", "Metric"), NUM("a_per_second", "A per second"), NUM("b_per_second", "B per second"),
          change("change_pct", "Change per second", "better_per_second"), NUM("a_per_transaction", "A per txn"),
          NUM("b_per_transaction", "B per txn"), change("change_pct_per_transaction", "Change per txn", "better_per_transaction")] });
      parts.lp.load(answer.then(function (b) { return b.load_profile.rows; }));
      parts.events = table(ctx, parts, grid, { id: "compare-top-events", title: "Top events: A and B", pageLength: 25, wide: true,
        columns: [TEXT("event", "Event"), TEXT("wait_class", "Wait class"), NUM("a_per_second", "A time per second", "s/s"),
          NUM("b_per_second", "B time per second", "s/s"), change("change_pct", "Change", "better"),
          TEXT("only_in", "Only in"),
          NUM("a_waits_per_transaction", "A waits per txn"), NUM("b_waits_per_transaction", "B waits per txn"),
          change("waits_per_transaction_change_pct", "Change of waits per txn", "better_waits_per_transaction"),
          NUM("a_avg_ms", "A avg wait", "ms"), NUM("b_avg_ms", "B avg wait", "ms"),
          NUM("a_pct_db_time", "A % DB time", "%"), NUM("b_pct_db_time", "B % DB time", "%")] });
      parts.events.load(answer.then(function (b) {
        return b.top_events.rows.map(function (r) { return Object.assign({}, r, { only_in: onlyIn(r.only_in) }); });
      }));
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
    }
  });

}(window.AWRLens = window.AWRLens || {}));
