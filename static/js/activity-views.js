/* Top activity (issue 13): average active sessions from Active Session History, stacked by a dimension, beside
 * the top lists of the window (SQL, events, sessions, modules, objects) and its wait chains; registered with
 * the router (AWRLens.Views.add) as the history views are. A click on a row of a top list filters the chart and
 * the lists by it (a chip each, removable); the dimension (`by`) and the filters (`filter=dimension:value`) are in
 * the link. The chart and the lists read GET /activity, GET /activity/top and GET /activity/chains (docs/awr-rules.md
 * §22). */
(function (AWRLens) {
  "use strict";
  var F = AWRLens.Format, Api = AWRLens.Api, State = AWRLens.State, Charts = AWRLens.Charts, Tables = AWRLens.Tables;
  var Dbs = AWRLens.Databases, Loaders = AWRLens.Loaders, Views = AWRLens.Views;
  var element = AWRLens.Dom.element, NUM = Tables.num, TEXT = Tables.text;
  // the API's dimensions (group_by), as the page names them; every one but instance is also a filter (the
  // instance is the page's instance picker)
  var DIMENSIONS = AWRLens.Dom.table({
    wait_class: "wait class", event: "event", sql_id: "SQL ID", top_level_sql_id: "top-level SQL ID",
    sql_plan_hash_value: "plan hash value", module: "module", action: "action", program: "program",
    service: "service", user: "user", session: "session", instance: "instance", machine: "machine",
    blocking_session: "blocking session (inst:sid,serial#)", current_obj: "object"
  });
  var DEFAULT_BY = "wait_class";
  // the top lists of GET /activity/top: [list (a dimension), id, title, the name column's title]
  var LISTS = [["sql_id", "ash-sql", "Top SQL", "SQL ID"], ["event", "ash-events", "Top events", "Event"],
    ["session", "ash-sessions", "Top sessions", "Session (inst:sid,serial#)"], ["module", "ash-modules", "Top modules", "Module"],
    ["current_obj", "ash-objects", "Top objects", "Object"]];

  function filterable(name) { return name !== "instance" && !!DIMENSIONS[name]; }

  // the dimensions every sample has a value of (CPU names the wait class and event of a sample on CPU)
  var NEVER_NULL = { wait_class: true, event: true };

  /** The link's filters as [[dimension, value]]: known dimensions only, the last value of each; `dimension:` with
   * no value is the samples without one (value null: the API's `without`, the group it names "no SQL"...). */
  function filtersOf(state) {
    var out = [];
    (state.filter || []).forEach(function (f) {
      var at = f.indexOf(":"), name = f.slice(0, at), value = f.slice(at + 1);
      if (at > 0 && filterable(name) && (value !== "" || !NEVER_NULL[name])) {
        out = withFilter(out, name, value === "" ? null : value);
      }
    });
    return out;
  }

  function asLink(filters) { return filters.map(function (f) { return f[0] + ":" + (f[1] === null ? "" : f[1]); }); }

  function asParams(filters) {
    var out = {};
    filters.forEach(function (f) {
      if (f[1] === null) { out.without = (out.without || []).concat([f[0]]); } else { out[f[0]] = f[1]; }
    });
    return out;
  }

  function describe(f) { return DIMENSIONS[f[0]] + (f[1] === null ? " without a value" : " = " + f[1]); }

  /** The filters with name = value added (in place of an earlier value of the same dimension). */
  function withFilter(filters, name, value) {
    return filters.filter(function (f) { return f[0] !== name; }).concat([[name, value]]);
  }

  /** A session as a DBA reads it: its user (by name where the dictionary names it), program and machine. */
  function who(r) {
    return [r.user_name || r.user, r.program, r.machine].filter(function (x) { return x !== null && x !== undefined; }).join(" · ");
  }

  /** The wait-chain tree's nodes as table rows, depth first: the session indented by its depth, who it is, what it
   * did meanwhile (its most sampled state, event and SQL_ID), what it waited on behind the row above it. */
  function chainRows(roots) {
    var rows = [];
    var walk = function (node, depth) {
      var d = node.doing[0], w = (node.waits || [])[0];
      rows.push({
        session: node.session, depth: depth, behind: node.behind,
        tree: "\u00a0\u00a0".repeat(depth) + (depth ? "└ " : "") + node.session + (node.cycle ? " (cycle)" : ""),
        who: who(node),
        doing: d ? [d.event, d.sql_id].filter(Boolean).join(" · ") + " (" + d.samples + " of " + node.samples + " samples)" :
          node.note,
        blocked_on: w ? w.event + (w.object || w.current_obj !== null ? " · " + (w.object || w.current_obj) : "") : null,
        blocked_aas: node.blocked_aas === undefined ? null : node.blocked_aas,
        behind_aas: node.behind_aas
      });
      node.waiters.forEach(function (c) { walk(c, depth + 1); });
    };
    roots.forEach(function (r) { walk(r, 0); });
    return rows;
  }

  var DEFAULT_GROUPS = ["sql_id", "event"];  // ashtop's own default

  /** The dimensions of the ashtop table: the link's `groups` (1 to 3 known dimensions, each once), else
   * DEFAULT_GROUPS. */
  function groupsOf(state) {
    var out = [];
    String(state.groups || "").split(",").forEach(function (d) {
      if (DIMENSIONS[d] && out.indexOf(d) < 0 && out.length < 3) { out.push(d); }
    });
    return out.length ? out : DEFAULT_GROUPS;
  }

  /** ashtop (GET /activity/groups): the window's samples grouped by up to three dimensions at once, picked in the
   * card's own selects (`groups` in the link); a click on a row keeps the samples of its group (a filter each). */
  function ashtopTable(ctx, table, filters, set) {
    var groups = groupsOf(ctx.state);
    var tools = element("span", { "class": "tools" });
    var selects = [0, 1, 2].map(function (k) {
      var select = element("select", { id: "ash-groups-" + k, "aria-label": "Group by, dimension " + (k + 1) });
      if (k) { select.appendChild(element("option", { value: "" }, "—")); }
      Object.keys(DIMENSIONS).forEach(function (d) { select.appendChild(element("option", { value: d }, DIMENSIONS[d])); });
      select.value = groups[k] || "";
      tools.appendChild(select);
      return select;
    });
    selects.forEach(function (select) {
      select.addEventListener("change", function () {
        var picked = groupsOf({ groups: selects.map(function (s) { return s.value; }).filter(Boolean).join(",") });
        State.set({ groups: picked.join(",") === DEFAULT_GROUPS.join(",") ? null : picked.join(",") });
      });
    });
    return table({ id: "ash-groups", title: "ashtop: by " + groups.map(function (d) { return DIMENSIONS[d]; }).join(" · "),
      wide: true, tools: tools,
      columns: groups.map(function (d) { return Object.assign(TEXT(d + "_label", DIMENSIONS[d]), { hover: d }); }).concat([
        NUM("aas", "AAS"), NUM("pct_activity", "Activity", "%"), NUM("sessions", "Sessions"),
        { key: "first_seen", title: "First seen", type: "time" }, { key: "last_seen", title: "Last seen", type: "time" }]),
      onRow: function (r) {
        set(groups.filter(filterable).reduce(function (acc, d) {
          return withFilter(acc, d, r[d] === null || r[d] === undefined ? null : String(r[d]));
        }, filters));
      } });
  }

  function instanceOf(state) { return state.inst === "each" ? "all" : state.inst; }

  // the live buffer (GV$ACTIVE_SESSION_HISTORY, docs/awr-rules.md §30): `live` in the link is the last minutes to the
  // database's now ("15"), refreshed every LIVE_REFRESH ms, or a window pinned as ISO 8601 from/to
  var LIVE_REFRESH = 15000, LIVE_MINUTES = "15", LIVE_MIN_WINDOW = 60000;

  /** The link's live window: null (the history), {minutes} or {from, to} (ISO times, pinned). */
  function liveOf(state) {
    var v = String(state.live || "");
    if (/^[0-9]{1,3}$/.test(v) && +v >= 1 && +v <= 180) { return { minutes: +v }; }
    var parts = v.split("/");
    if (parts.length === 2 && !isNaN(Date.parse(parts[0])) && Date.parse(parts[0]) < Date.parse(parts[1])) {
      return { from: parts[0], to: parts[1] };
    }
    return null;
  }

  /** The lists, ashtop, its Load Map and the wait chains of a window (`params`: the API's range, or ash=live and its
   * window); `fresh`: asked again (the live buffer's). */
  function loadTables(ctx, parts, params, fresh) {
    var opts = fresh ? { fresh: true } : undefined;
    var top = Api.get(Dbs.path(ctx.db, "/activity/top"), Object.assign({ instance: instanceOf(ctx.state) },
      asParams(filtersOf(ctx.state)), params), opts);
    parts.lists.forEach(function (l) {
      l.table.load(top.then(function (b) {
        return b.lists[l.name].map(function (r) {
          return Object.assign({}, r, { label: Loaders.groupLabel(r.label), open: r.name === null ? null : "Open",
            who: l.name === "session" ? who(r) : undefined });
        });
      }));
    });
    var grouped = Api.get(Dbs.path(ctx.db, "/activity/groups"), Object.assign({ instance: instanceOf(ctx.state),
      group_by: groupsOf(ctx.state).join(",") }, asParams(filtersOf(ctx.state)), params), opts).then(function (b) {
      return b.rows;
    });
    parts.groups.load(grouped);
    parts.loadmap.load(grouped);
    parts.chains.load(Api.get(Dbs.path(ctx.db, "/activity/chains"), params, opts).then(function (b) {
      return chainRows(b.roots);
    }));
  }

  /** The live view's refresh: its window resolved by the chart's answer (the last minutes to the database's now, or
   * the pinned window), then the chart and the tables of that same window; the status says when, and the window shown
   * is kept for Copy link, which pins it. */
  function liveUpdate(ctx, parts) {
    var live = liveOf(ctx.state), db = ctx.db, zone = Dbs.zoneOf(ctx.state, db);
    var ask = Object.assign({ ash: "live", group_by: ctx.state.by, instance: instanceOf(ctx.state), shape: "axes" },
      asParams(filtersOf(ctx.state)), live.minutes ? { minutes: live.minutes } : { from: live.from, to: live.to });
    return Api.get(Dbs.path(db, "/activity"), ask, { fresh: true }).then(Loaders.unpack).then(function (body) {
      var from = Date.parse(body.range.from), to = Date.parse(body.range.to);
      parts.live = { from: from, to: to, body: body };
      var win = { zone: ctx.win.zone, limits: { min: from, max: to }, from: from, to: to,
        params: { ash: "live", from: body.range.from, to: body.range.to } };
      parts.charts.forEach(function (c) { c.setWindow(win); });
      loadTables(ctx, parts, win.params, true);
      parts.refreshes = (parts.refreshes || 0) + 1;
      parts.liveStatus.setAttribute("data-refreshes", String(parts.refreshes));
      parts.liveStatus.textContent = (live.minutes ? "Live: the last " + live.minutes + " minutes to the database's now (" +
        F.fmtTime(Date.parse(body.live.now), zone) + "), asked again every " + LIVE_REFRESH / 1000 + " s" +
        (parts.paused ? "; paused." : " unless paused (the button, or a pointer on a table).") :
        "A pinned window of the live buffer: " + F.fmtTime(from, zone) + " to " + F.fmtTime(to, zone) + ".") +
        " One-second samples age out of the in-memory buffer (oldest now: " + F.fmtTime(Date.parse(body.live.oldest_sample), zone) +
        "); the history keeps one in ten." + (body.live.aged_out ? " " + body.live.aged_out + "." : "");
      ctx.win.live = body.range.from + "/" + body.range.to;  // what Copy link pins (AWRLens.Controls)
    });
  }

  /** The live controls: to the history and back, and pause (the page's Copy link pins the window shown). */
  function liveControls(ctx, parts, form) {
    var live = liveOf(ctx.state), row = element("div", { "class": "row live-row" });
    var toggle = element("button", { type: "button", id: "ash-live", "aria-pressed": live ? "true" : "false" },
      live ? "History" : "Live");
    toggle.title = live ? "Back to the history (one sample in ten, kept at each snapshot)" :
      "The last minutes from GV$ACTIVE_SESSION_HISTORY, one sample a second, refreshed every 15 s";
    toggle.addEventListener("click", function () { State.set({ live: live ? null : LIVE_MINUTES }); });
    row.appendChild(toggle);
    parts.liveStatus = element("p", { "class": "note live-status", role: "status", "aria-live": "polite" },
      live ? "Reading the live buffer…" : "");
    if (live) {
      if (live.minutes) {
        var pause = element("button", { type: "button", id: "ash-live-pause", "aria-pressed": "false" }, "Pause");
        pause.addEventListener("click", function () {
          parts.paused = !parts.paused;
          pause.textContent = parts.paused ? "Resume" : "Pause";
          pause.setAttribute("aria-pressed", parts.paused ? "true" : "false");
        });
        row.appendChild(pause);
      }
    }
    form.appendChild(row);
    form.appendChild(parts.liveStatus);
  }

  /** What the chart shows, for its PNG: the database, the instances, the window with its zone, the filters. */
  function about(ctx, c, filters) {
    var db = ctx.db, inst = instanceOf(ctx.state), win = c.win || ctx.win;
    var all = db.instances.map(function (i) { return i.instance_number; }).join(", ");
    var who = db.instances.length === 1 ? "instance " + all : inst !== "all" ? "instance " + inst : "instances " + all + " combined";
    return [db.name + " (" + db.id + ") · " + who,
      F.fmtTime(win.from, win.zone, true) + " to " + F.fmtTime(win.to, win.zone, true) + " (" + win.zone + ")",
      filters.length ? "Only the samples with " + filters.map(describe).join(" and ") : "Every sample"];
  }

  /** A database whose history is Statspack has no ASH (docs/awr-rules.md §31): the view says so and shows the
   * snapshots' average active sessions by wait class instead (DB time over the elapsed time, as the overview). */
  function withoutAsh(ctx, parts, root) {
    parts.withoutAsh = true;
    var card = element("div", { "class": "card", id: "ash-none", role: "note" });
    card.appendChild(element("p", {}, ctx.db.name + "'s history is Statspack, which keeps no Active Session History: " +
      "ASH is part of Oracle's Diagnostics Pack, which " + ctx.db.name + " does not have, and Statspack samples no sessions. " +
      "No top lists, ashtop or wait chains here. Below, the snapshots' average active sessions by wait class " +
      "(DB time over the elapsed time, hour by hour); the top SQL and events of a range are in the Overview."));
    root.appendChild(card);
    var grid = element("div", { "class": "grid activity-grid" });
    root.appendChild(grid);
    var inst = instanceOf(ctx.state);
    var c = Charts.create(grid, { id: "activity", wide: true, stacked: true, bucket: true, height: 320,
      title: "Average active sessions by wait class · from the snapshots (Statspack)" + (inst !== "all" ? " · instance " + inst : ""),
      singleInstance: ctx.db.instances.length === 1, onWindow: ctx.onWindow, changes: AWRLens.Changes.loader(ctx),
      database: ctx.db.name, load: Loaders.waitClasses(ctx, inst) });
    parts.charts.push(c);
  }

  Views.add("activity", {
    title: "Top activity",
    defaults: function (state) {
      var patch = {};
      if (!DIMENSIONS[state.by]) { patch.by = DEFAULT_BY; }
      var filters = asLink(filtersOf(state));
      if (filters.join("\n") !== (state.filter || []).join("\n")) { patch.filter = filters.length ? filters : null; }
      return patch;
    },
    key: function (state) { return [state.by, (state.filter || []).join("\n"), state.groups || "", state.live || ""]; },
    build: function (ctx, parts, root) {
      if (ctx.db.source === "statspack") {
        withoutAsh(ctx, parts, root);
        return;
      }
      var by = ctx.state.by, filters = filtersOf(ctx.state), inst = instanceOf(ctx.state), live = liveOf(ctx.state);
      var set = function (next) { State.set({ filter: next.length ? asLink(next) : null }); };

      var form = element("form", { "class": "card activity-form", "aria-label": "Top activity: dimension and filters" });
      var row = element("div", { "class": "row" });
      row.appendChild(element("label", { "for": "ash-by" }, "Stack by"));
      var select = element("select", { id: "ash-by" });
      Object.keys(DIMENSIONS).forEach(function (k) { select.appendChild(element("option", { value: k }, DIMENSIONS[k])); });
      select.value = by;
      select.addEventListener("change", function () { State.set({ by: select.value }); });
      row.appendChild(select);
      var chips = element("ul", { "class": "chips", "aria-label": "Filters" });
      filters.forEach(function (f) {
        var li = element("li", { "class": "chip", "data-filter": f[0] });
        li.appendChild(element("span", {}, describe(f)));
        var rm = element("button", { type: "button", "aria-label": "Remove the filter " + describe(f), title: "Remove" }, "×");
        rm.addEventListener("click", function () { set(filters.filter(function (g) { return g !== f; })); });
        li.appendChild(rm);
        chips.appendChild(li);
      });
      row.appendChild(chips);
      if (filters.length > 1) {
        var clear = element("button", { type: "button" }, "Remove every filter");
        clear.addEventListener("click", function () { set([]); });
        row.appendChild(clear);
      }
      form.appendChild(row);
      var note = element("p", { "class": "note", role: "status", "aria-live": "polite" }, (filters.length ? "" :
        "Every sample. ") + "A click on a row of a list below keeps only its samples; a blocker's row in the wait " +
        "chains, the samples it blocked.");
      form.appendChild(note);
      liveControls(ctx, parts, form);
      form.addEventListener("submit", function (e) { e.preventDefault(); });
      root.appendChild(form);

      var grid = element("div", { "class": "grid activity-grid" });
      root.appendChild(grid);
      if (live && live.minutes) {  // asked again every LIVE_REFRESH, but while paused or a table is read
        grid.addEventListener("pointerover", function (e) { parts.reading = !!e.target.closest(".table-card"); });
        grid.addEventListener("pointerleave", function () { parts.reading = false; });
        var timer = setInterval(function () {
          if (!parts.paused && !parts.reading && parts.ctx) { liveUpdate(parts.ctx, parts).catch(function () {}); }
        }, LIVE_REFRESH);
        parts.charts.push({ setWindow: function () {}, destroy: function () { clearInterval(timer); } });
      }
      var zoneIso = function (ms) { return F.isoTime(ms, Dbs.zone(ctx.db)); };
      var title = "Average active sessions by " + DIMENSIONS[by] + (inst !== "all" ? " · instance " + inst : "") +
        (filters.length ? " · " + filters.map(describe).join(" · ") : "");
      var c = Charts.create(grid, { id: "activity", title: title, wide: true, stacked: true, height: 320, prefetch: false,
        // a zoom in the live view pins its window (the refresh stops there)
        onWindow: live ? function (from, to) { State.set({ live: zoneIso(from) + "/" + zoneIso(to) }); } : ctx.onWindow,
        minWindow: live ? LIVE_MIN_WINDOW : undefined,  // one-second samples: a zoom down to a minute
        singleInstance: ctx.db.instances.length === 1, about: function () { return about(ctx, c, filters); },
        database: ctx.db.name,
        changes: live ? null : AWRLens.Changes.loader(ctx),
        load: Loaders.activity(ctx, { by: by, filters: asParams(filters), instance: inst, cpu: !filters.length && !live,
          live: live ? function () { return parts.live; } : null }) });
      parts.charts.push(c);

      var pick = function (name, value) {
        var v = value === null || value === undefined ? null : String(value);  // null: the samples without a value
        if (filters.some(function (f) { return f[0] === name && f[1] === v; })) { return; }
        set(withFilter(filters, name, v));
      };
      var table = function (spec) {
        var t = Tables.create(grid, Object.assign({ order: [], zone: function () { return Dbs.zoneOf(ctx.state, ctx.db); } }, spec));
        parts.tables.push(t);
        return t;
      };
      parts.lists = LISTS.map(function (l) {
        return { name: l[0], table: table({ id: l[1], title: l[2],
          columns: [Object.assign(TEXT("label", l[3]), { hover: "name" })].concat(
            l[0] === "current_obj" ? [TEXT("name", "OBJ#")] : [],
            l[0] === "session" ? [TEXT("who", "User · program · machine")] : [],
            // the statement's SQL detail over the same window: a link of its own (a click on the row filters)
            l[0] === "sql_id" ? [{ key: "open", title: "SQL detail", type: "link", follow: true,
              href: function (r) {
                return State.href(State.merge(ctx.state, { view: "sql", sql: r.name, con: null, filter: null, by: null }));
              } }] : [],
            [NUM("aas", "AAS"), NUM("pct_activity", "Activity", "%"),
            NUM("pct_cpu", "CPU", "%"), NUM("pct_wait", "Wait", "%")]),
          onRow: function (r) { pick(l[0], r.name); } }) };
      });
      parts.groups = ashtopTable(ctx, table, filters, set);
      var groups = groupsOf(ctx.state);
      parts.loadmap = AWRLens.LoadMap.create(grid, { id: "ash-loadmap", dims: groups,
        title: "Load Map: average active sessions by " + groups.slice(0, 2).map(function (d) { return DIMENSIONS[d]; }).join(" · "),
        label: function (d) { return DIMENSIONS[d]; }, about: function () { return about(ctx, { win: ctx.win }, filters); },
        onPick: function (row, dims) {
          set(dims.filter(filterable).reduce(function (acc, d) {
            return withFilter(acc, d, row[d] === null || row[d] === undefined ? null : String(row[d]));
          }, filters));
        } });
      parts.charts.push(parts.loadmap);
      // the tree of who blocked whom (GET /activity/chains): a row per session under each blocker, depth first, in
      // the tree's order (not sortable); a click on a blocker keeps the samples it blocked, on a waiter its own
      parts.chains = table({ id: "ash-chains", title: "Wait chains (root blockers first)", wide: true, sortable: false,
        pageLength: 25,
        columns: [TEXT("tree", "Session (inst:sid,serial#)"), NUM("depth", "Depth"), TEXT("who", "User · program · machine"),
          TEXT("doing", "Doing meanwhile"), TEXT("blocked_on", "Blocked on (event · object)"),
          NUM("blocked_aas", "AAS blocked"), NUM("behind_aas", "AAS waiting behind")],
        onRow: function (r) { pick(r.behind ? "blocking_session" : "session", r.session); } });
    },
    update: function (ctx, parts) {
      parts.ctx = ctx;
      if (parts.withoutAsh) {
        parts.charts.forEach(function (c) { c.setWindow(ctx.win); });
        return;
      }
      if (liveOf(ctx.state)) {
        liveUpdate(ctx, parts).catch(function () {});
        return;
      }
      parts.charts.forEach(function (c) { c.setWindow(ctx.win); });
      loadTables(ctx, parts, ctx.win.params, false);
    }
  });

  AWRLens.Activity = { DIMENSIONS: DIMENSIONS, filtersOf: filtersOf };
}(window.AWRLens = window.AWRLens || {}));
