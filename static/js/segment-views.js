/* The segments behind the reads, writes and waits (issue 14): the range's top segments by a statistic (GET /segments),
 * and a click on one charts it over time (GET /segments/{obj}; docs/awr-rules.md §25). The statistic (`stat`) and
 * the segment (`seg`, OBJ#.DATAOBJ#) are in the link. Object names are database text: the table shows them as text. */
(function (AWRLens) {
  "use strict";
  var Api = AWRLens.Api, State = AWRLens.State, Tables = AWRLens.Tables;
  var Dbs = AWRLens.Databases, Loaders = AWRLens.Loaders, Views = AWRLens.Views, HV = AWRLens.HistoryViews;
  var element = AWRLens.Dom.element, NUM = Tables.num, TEXT = Tables.text;
  // the API's order_by, as the page names them
  var STATS = AWRLens.Dom.table({
    logical_reads: "logical reads", physical_reads: "physical reads", physical_writes: "physical writes",
    physical_reads_direct: "direct reads", physical_writes_direct: "direct writes", row_lock_waits: "row lock waits",
    itl_waits: "ITL waits", buffer_busy_waits: "buffer busy waits", db_block_changes: "block changes",
    physical_read_requests: "read requests", physical_write_requests: "write requests", table_scans: "table scans",
    gc_cr_blocks_received: "GC CR blocks received", gc_cu_blocks_received: "GC current blocks received",
    gc_buffer_busy: "GC buffer busy", space_used: "space used (growth)"
  });
  var DEFAULT_STAT = "logical_reads";

  function segmentOf(state) {
    var m = /^(\d{1,10})\.(\d{1,10})$/.exec(state.seg || "");
    return m ? { obj: m[1], dataobj: m[2] } : null;
  }

  function nameOf(r) {
    return (r.owner || "?") + "." + (r.object_name || "** unknown object **") + (r.subobject_name ? " (" + r.subobject_name + ")" : "");
  }

  /** The instance the view reads: one, or every one combined ("each" draws nothing per instance here). */
  function instanceOf(state) { return state.inst && state.inst !== "each" ? state.inst : "all"; }

  Views.add("segments", {
    title: "Segments",
    defaults: function (state) {
      var patch = {};
      if (!STATS[state.stat]) { patch.stat = DEFAULT_STAT; }
      if (state.seg && !segmentOf(state)) { patch.seg = null; }
      return patch;
    },
    key: function (state) { return [state.stat, state.seg || ""]; },
    build: function (ctx, parts, root) {
      var stat = ctx.state.stat, seg = segmentOf(ctx.state);
      var form = element("form", { "class": "card segments-form", "aria-label": "Segments: the statistic" });
      form.appendChild(element("label", { "for": "segments-stat" }, "Top segments by "));
      var select = element("select", { id: "segments-stat" });
      Object.keys(STATS).forEach(function (k) { select.appendChild(element("option", { value: k }, STATS[k])); });
      select.value = stat;
      select.addEventListener("change", function () { State.set({ stat: select.value }); });
      form.appendChild(select);
      var kept = ctx.db.source === "statspack" ?  // docs/awr-rules.md §31
        "Statspack keeps the segments past its thresholds at each snapshot of level 7 or higher, not every one: " +
        "% of total is of the database's own counter, % captured of the segments Statspack kept. A click on a row charts it." :
        "AWR keeps the top segments of each snapshot, not every one: " +
        "% of total is of the database's own counter, % captured of the segments AWR kept. A click on a row charts it.";
      form.appendChild(element("p", { "class": "note" }, kept));
      form.addEventListener("submit", function (e) { e.preventDefault(); });
      root.appendChild(form);
      var grid = element("div", { "class": "grid" });
      root.appendChild(grid);
      if (seg) {
        var named = { text: "OBJ# " + seg.obj };
        parts.chart = HV.chart(ctx, parts, grid, { id: "segment", wide: true, height: 300,
          title: "Segment OBJ# " + seg.obj + " over time: " + STATS[stat],
          load: function (range) {
            return Api.get(Dbs.path(ctx.db, "/segments/" + seg.obj), Object.assign({ dataobj: seg.dataobj,
              instance: instanceOf(ctx.state) }, Loaders.bounds(ctx.db, range))).then(Loaders.unpack).then(function (b) {
              named.text = nameOf(b);
              parts.chart.card.querySelector("h3").textContent = named.text + " over time: " + STATS[stat];
              return { markers: {}, downsampled: false, datasets: b.series.filter(function (s) { return s.metric === stat; })
                .map(function (s) {
                  return { key: s.metric, label: named.text + " · " + STATS[stat], unit: s.unit, instance: "all",
                    points: s.points, fill: true };
                }) };
            }).catch(function (err) {
              if (err.status === 404) { return { markers: {}, datasets: [], notice: "This segment has no statistics in this range." }; }
              throw err;
            });
          } });
      }
      parts.top = HV.table(ctx, parts, grid, { id: "segments", wide: true, pageLength: 25, order: [],
        title: "Top segments by " + STATS[stat],
        // OBJ# beside the name: the number ASH's samples give (CURRENT_OBJ#, Top activity's objects)
        columns: [TEXT("owner", "Owner"), TEXT("object_name", "Object"), Tables.id("obj", "OBJ#"), TEXT("subobject_name", "Subobject"),
          TEXT("object_type", "Type"), TEXT("tablespace_name", "Tablespace"), Tables.container, NUM(stat, STATS[stat]),
          NUM("pct_total", "% of total", "%"), NUM("pct_captured", "% captured", "%")].concat(
          Object.keys(STATS).filter(function (k) { return k !== stat; }).map(function (k) { return NUM(k, STATS[k]); })),
        onRow: function (r) { State.set({ seg: r.obj + "." + r.dataobj }); } });
    },
    update: function (ctx, parts) {
      HV.setWindows(ctx, parts);
      parts.top.load(Api.get(Dbs.path(ctx.db, "/segments"), Object.assign({ order_by: ctx.state.stat, limit: 50,
        instance: instanceOf(ctx.state) }, ctx.win.params)).then(function (b) { return b.rows; }));
    }
  });
}(window.AWRLens = window.AWRLens || {}));
