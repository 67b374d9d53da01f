/* AWRLens.Views: the controls (database, instances, range, time zone, link), the five history views, and the
 * benchmark views (list, one run, runs compared), which stand alone: no database, range or key needed for a
 * public run, so its link can be sent to anyone.
 * Every change goes through AWRLens.State (the URL); render() draws the state. A view is rebuilt when its key
 * (database, instances, time zone and the view's own choices) changes, and only updated (charts given the new
 * window, tables reloaded) when the range changes. */
(function (AWRLens, $) {
  "use strict";
  var F = AWRLens.Format, Api = AWRLens.Api, State = AWRLens.State, Charts = AWRLens.Charts, Tables = AWRLens.Tables;
  var cfg = window.AWRLENS_CONFIG || {};
  var SEL = {  // every element the views touch
    db: "#db", inst: "#instance", tabs: "#tabs button[data-view]", presets: "button[data-range]",
    absForm: "#abs-range", from: "#from", to: "#to", snapForm: "#snap-range", beginSnap: "#begin-snap",
    endSnap: "#end-snap", tz: "#tz", copy: "#copy-link", link: "#link", rangeLabel: "#range-label",
    error: "#error", errorText: "#error-text", errorClose: "#error-close", main: "#view"
  };
  var DAY = 86400000;
  var PRESETS = { "1d": 1, "7d": 7, "45d": 45 };
  var RATES = { per_second: "per second", per_txn: "per transaction", raw: "raw deltas" };
  var ORDERS = { elapsed: "elapsed time", cpu: "CPU time", gets: "buffer gets", reads: "disk reads",
    executions: "executions", rows: "rows processed" };
  var CLASS_COLORS = {  // Enterprise Manager's colours for the wait classes
    "DB CPU": "#2ca02c", "User I/O": "#1f5fd6", "System I/O": "#3fa7e8", "Concurrency": "#8b1a00",
    "Application": "#c02800", "Commit": "#e46800", "Configuration": "#5c440b", "Administrative": "#717354",
    "Network": "#9f9371", "Cluster": "#c9bfae", "Queueing": "#c2b79b", "Scheduler": "#9fbfa7", "Other": "#f06eaa"
  };
  var TWINS = {  // per-minute sysmetric history of the dashboard's series
    "derived:aas": "Average Active Sessions", "derived:host_cpu_pct": "Host CPU Utilization (%)",
    "derived:tps": "User Transaction Per Sec", "derived:executions": "Executions Per Sec",
    "derived:iops": "I/O Requests per Second", "derived:io_mbps": "I/O Megabytes per Second"
  };
  var VIEWS = {};
  var dbs = [], byId = {}, catalogs = {};
  var active = null, renderGen = 0;

  function element(tag, attrs, text) {
    var el = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { el.setAttribute(k, attrs[k]); });
    if (text !== undefined) { el.textContent = text; }
    return el;
  }

  function dbPath(db, path) { return "/dbs/" + encodeURIComponent(db.id) + path; }

  // -- the error display ------------------------------------------------------------------------------------

  function showError(err) {
    var text = "The API answered" + (err.status ? " " + err.status : "") + (err.code ? " (" + err.code + ")" : "") +
      ": " + err.message + (err.parameter ? " [parameter: " + err.parameter + "]" : "");
    if (!err.status && !err.code) { text = "Error: " + err.message; }
    $(SEL.errorText).text(text);
    $(SEL.error).prop("hidden", false);
  }

  function clearError() { $(SEL.error).prop("hidden", true); $(SEL.errorText).text(""); }

  // -- databases, windows, state defaults -----------------------------------------------------------------

  function describe(d) {
    return {
      id: d.id, name: d.db_name, dbid: d.dbid, rac: d.rac, instances: d.instances,
      offset: F.offsetOf(d.snapshots.to), first: Date.parse(d.snapshots.from), last: Date.parse(d.snapshots.to),
      firstSnap: d.snapshots.first_snap, lastSnap: d.snapshots.last_snap, step: d.snapshots.interval_minutes
    };
  }

  function dbZone(db) { return F.zone(db.offset); }
  function zoneOf(state, db) { return state.tz === "browser" ? "local" : dbZone(db); }

  function parseTime(value, db) {
    return value ? window.luxon.DateTime.fromISO(value, { zone: dbZone(db) }).toMillis() : NaN;
  }

  /** Defaults and repairs for a state from a link: a patch, or null when the state is complete. */
  function normalize(state) {
    var patch = {}, db = byId[state.db];
    if (!db) {
      if (state.db) { showError(new Error("unknown database " + JSON.stringify(state.db) + " in the link; showing " + dbs[0].name)); }
      db = dbs[0];
      patch.db = db.id;
    }
    var insts = ["all", "each"].concat(db.instances.map(function (i) { return String(i.instance_number); }));
    if (insts.indexOf(state.inst) < 0) { patch.inst = "all"; }
    if (!VIEWS[state.view]) { patch.view = "overview"; }
    var hasRange = PRESETS[state.range] || (state.from && state.to && parseTime(state.from, db) < parseTime(state.to, db)) ||
      (/^\d+$/.test(state.begin_snap || "") && /^\d+$/.test(state.end_snap || ""));
    if (!hasRange) {
      if (state.range || state.from || state.to || state.begin_snap || state.end_snap) {
        showError(new Error("the range in the link is incomplete or invalid; showing the default range"));
      }
      patch.range = PRESETS[cfg.defaultRange] ? cfg.defaultRange : "7d";
    }
    if (state.tz !== "db" && state.tz !== "browser") { patch.tz = "db"; }
    var view = VIEWS[patch.view || state.view];
    if (view.defaults) { Object.assign(patch, view.defaults(Object.assign({}, state, patch), db)); }
    return Object.keys(patch).length ? patch : null;
  }

  /** The window of a state: {from, to (ms), params (for the API's tables), zone, limits}. */
  function resolveWindow(state, db) {
    var base = { zone: zoneOf(state, db), limits: { min: db.first, max: db.last } };
    var iso = function (ms) { return F.isoTime(ms, dbZone(db)); };
    if (state.begin_snap) {
      return Api.get(dbPath(db, "/snapshots"), { begin_snap: state.begin_snap, end_snap: state.end_snap,
        instance: db.instances[0].instance_number }).then(function (body) {
        return Object.assign(base, { from: Date.parse(body.range.from), to: Date.parse(body.range.to),
          params: { begin_snap: state.begin_snap, end_snap: state.end_snap }, snaps: [body.range.begin_snap, body.range.end_snap] });
      });
    }
    var from, to;
    if (state.range) {
      to = db.last;
      from = to - PRESETS[state.range] * DAY;
    } else {
      from = parseTime(state.from, db);
      to = parseTime(state.to, db);
    }
    return Promise.resolve(Object.assign(base, { from: from, to: to, params: { from: iso(from), to: iso(to) } }));
  }

  // -- controls -----------------------------------------------------------------------------------------------

  function fillInstances(db) {
    var sel = $(SEL.inst).empty();
    sel.append($("<option>").val("all").text(db.rac ? "All instances, combined" : "The instance"));
    sel.append($("<option>").val("each").text("Each instance"));
    db.instances.forEach(function (i) {
      sel.append($("<option>").val(String(i.instance_number))
        .text(i.instance_number + ": " + i.instance_name + " on " + i.host_name));
    });
  }

  function syncControls(state, db, win) {
    $(SEL.db).val(db.id);
    if ($(SEL.inst).data("db") !== db.id) { fillInstances(db); $(SEL.inst).data("db", db.id); }
    $(SEL.inst).val(state.inst);
    $(SEL.tabs).each(function () {
      var on = this.getAttribute("data-view") === state.view;
      this.setAttribute("aria-pressed", String(on));
      if (on) { this.setAttribute("aria-current", "page"); } else { this.removeAttribute("aria-current"); }
    });
    $(SEL.presets).each(function () { this.setAttribute("aria-pressed", String(this.getAttribute("data-range") === state.range)); });
    var dbOffset = F.fmtTime(db.last, dbZone(db), true).slice(-6);
    var local = F.fmtTime(Date.now(), "local", true).slice(-6);
    $(SEL.tz).find("option[value=db]").text("database time (UTC" + dbOffset + ")");
    $(SEL.tz).find("option[value=browser]").text("browser time (UTC" + local + ")");
    $(SEL.tz).val(state.tz);
    $(SEL.from).val(F.inputTime(win.from, win.zone));
    $(SEL.to).val(F.inputTime(win.to, win.zone));
    $(SEL.beginSnap).attr({ min: db.firstSnap, max: db.lastSnap }).val(win.snaps ? win.snaps[0] : "")
      .attr("placeholder", db.firstSnap);
    $(SEL.endSnap).attr({ min: db.firstSnap, max: db.lastSnap }).val(win.snaps ? win.snaps[1] : "")
      .attr("placeholder", db.lastSnap);
    var days = (win.to - win.from) / DAY;
    var span = days >= 1 ? F.fmtValue(Math.round(days * 10) / 10) + " days" : F.fmtValue(Math.round(days * 240) / 10) + " hours";
    $(SEL.rangeLabel).text(db.name + " · " + F.fmtTime(win.from, win.zone) + " → " + F.fmtTime(win.to, win.zone) +
      " (" + (state.tz === "browser" ? "browser" : "database") + " time, UTC" + F.fmtTime(win.to, win.zone, true).slice(-6) +
      ") · " + span + (state.range ? ", ending at the newest snapshot" : "") +
      (win.snaps ? " · snapshots " + win.snaps[0] + "–" + win.snaps[1] : ""));
    $(SEL.link).prop("hidden", true).val("");
    $(SEL.copy).text("Copy link");
  }

  function bindControls() {
    $(SEL.db).on("change", function () { State.set({ db: this.value, inst: "all", sql: null, ts: null, a_from: null, a_to: null, b_from: null, b_to: null }); });
    $(SEL.inst).on("change", function () { State.set({ inst: this.value }); });
    $(SEL.tabs).on("click", function () { State.set({ view: this.getAttribute("data-view") }); });
    $(SEL.presets).on("click", function () { State.set({ range: this.getAttribute("data-range") }); });
    $(SEL.tz).on("change", function () { State.set({ tz: this.value }); });
    $(SEL.absForm).on("submit", function (e) {
      e.preventDefault();
      var db = byId[State.get().db], zone = zoneOf(State.get(), db);
      var from = F.parseInputTime($(SEL.from).val(), zone), to = F.parseInputTime($(SEL.to).val(), zone);
      if (!(from < to)) { showError(new Error("the range needs a start before its end")); return; }
      setWindow(from, to);
    });
    $(SEL.snapForm).on("submit", function (e) {
      e.preventDefault();
      var a = parseInt($(SEL.beginSnap).val(), 10), b = parseInt($(SEL.endSnap).val(), 10);
      if (!(a < b)) { showError(new Error("the first snapshot must come before the last")); return; }
      State.set({ begin_snap: String(a), end_snap: String(b) });
    });
    $(SEL.copy).on("click", copyLink);
    $(SEL.errorClose).on("click", clearError);
  }

  /** A new absolute window (from a zoom, a pan, the buttons or the form), to the minute, in the database's zone. */
  function setWindow(from, to) {
    var db = byId[State.get().db], minute = 60000;
    from = Math.round(from / minute) * minute;
    to = Math.round(to / minute) * minute;
    if (to <= from) { to = from + minute; }
    State.set({ from: F.isoTime(from, dbZone(db)), to: F.isoTime(to, dbZone(db)) });
  }

  /** The link to this view with a relative range made absolute, so the recipient sees the same data. */
  function absoluteLink() {
    var state = State.get(), db = byId[state.db];
    if (state.range && active) {
      state = State.merge(state, { from: F.isoTime(active.ctx.win.from, dbZone(db)), to: F.isoTime(active.ctx.win.to, dbZone(db)) });
    }
    return State.href(state);
  }

  function copyLink() {
    var link = absoluteLink();
    var box = $(SEL.link).val(link).prop("hidden", false);
    box.trigger("select");
    var done = function () { $(SEL.copy).text("Link copied"); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(link).then(done, function () { $(SEL.copy).text("Copy the link below"); });
    } else {
      $(SEL.copy).text("Copy the link below");
    }
  }

  // -- rendering ----------------------------------------------------------------------------------------------

  function teardown() {
    if (active) {
      active.parts.charts.forEach(function (c) { c.destroy(); });
      active.parts.tables.forEach(function (t) { t.destroy(); });
    }
    active = null;
    $(SEL.main).empty();
  }

  function render(state, prev, how) {
    var standalone = VIEWS[state.view] && VIEWS[state.view].standalone;
    document.documentElement.toggleAttribute("data-bench", !!standalone);
    if (standalone) { renderStandalone(state, VIEWS[state.view], how); return; }
    if (!dbs.length) { renderNoDatabase(state); return; }
    var patch = normalize(state);
    if (patch) { State.set(patch, "replace"); return; }
    if (how !== "init" && how !== "replace") { clearError(); }
    var db = byId[state.db], view = VIEWS[state.view], gen = ++renderGen;
    document.title = "awrlens · " + db.name + " · " + view.title;
    resolveWindow(state, db).then(function (win) {
      if (gen !== renderGen) { return; }
      syncControls(state, db, win);
      var key = [state.db, state.view, state.inst, state.tz].concat(view.key ? view.key(state) : []).join("|");
      var ctx = { state: state, db: db, win: win, onWindow: setWindow };
      if (!active || active.key !== key) {
        teardown();
        active = { key: key, ctx: ctx, parts: { charts: [], tables: [] } };
        var root = element("div", { "class": "view view-" + state.view });
        $(SEL.main).append(root);
        view.build(ctx, active.parts, root);
      }
      active.ctx = ctx;
      view.update(ctx, active.parts);
    }).catch(function (err) {
      if (gen !== renderGen) { return; }
      teardown();
      $(SEL.main).append(element("p", { "class": "placeholder is-error" }, "Cannot show this range: " + err.message));
    });
  }

  /** A benchmark view: drawn from the state alone, rebuilt when its key changes. */
  function renderStandalone(state, view, how) {
    if (how !== "init" && how !== "replace") { clearError(); }
    renderGen += 1;
    document.title = "awrlens · " + view.title;
    pressTab("benchmarks");
    var key = [state.view].concat(view.key ? view.key(state) : []).join("|");
    if (!active || active.key !== key) {
      teardown();
      active = { key: key, ctx: { state: state }, parts: { charts: [], tables: [] } };
      var root = element("div", { "class": "view view-" + state.view });
      $(SEL.main).append(root);
      view.build(active.ctx, active.parts, root);
    }
  }

  /** A history view without databases: the API wants a key this page does not have. */
  function renderNoDatabase(state) {
    teardown();
    pressTab(VIEWS[state.view] ? state.view : "overview");
    var box = element("section", { "class": "card key-card" });
    box.appendChild(element("p", {}, "The database history needs the API key" +
      (Api.hasKey() ? "; the key this page has was refused." : ".") + " Benchmark runs marked public open without it."));
    keyForm(box);
    $(SEL.main).append(box);
  }

  function pressTab(name) {
    $(SEL.tabs).each(function () {
      var on = this.getAttribute("data-view") === name;
      this.setAttribute("aria-pressed", String(on));
      if (on) { this.setAttribute("aria-current", "page"); } else { this.removeAttribute("aria-current"); }
    });
  }

  /** A form for the API key: kept for this tab's session, then the page starts again with it. */
  function keyForm(container) {
    var form = element("form", { "class": "key-form", "aria-label": "Give the API key" });
    form.appendChild(element("label", { "for": "api-key" }, "API key"));
    var input = element("input", { id: "api-key", type: "password", autocomplete: "off", required: "", size: "28" });
    form.appendChild(input);
    form.appendChild(element("button", { type: "submit" }, "Use this key"));
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      Api.setKey(input.value.trim());
      location.reload();
    });
    container.appendChild(form);
    return form;
  }

  // -- loaders: API answers to chart data ------------------------------------------------------------------

  function points(s) { return s.points.map(function (p) { return [Date.parse(p[0]), p[1]]; }); }

  /** Points with a break (null) where more than two snapshot intervals pass without one: a statement AWR did
   * not capture, or a plan not in use, is not drawn as a straight line across. */
  function broken(pts, stepMinutes) {
    var out = [], gap = 2.5 * stepMinutes * 60000;
    pts.forEach(function (p, i) {
      if (i && p[0] - pts[i - 1][0] > gap) { out.push([pts[i - 1][0] + stepMinutes * 60000, null]); }
      out.push(p);
    });
    return out;
  }

  function catalog(db) {
    if (!catalogs[db.id]) {
      catalogs[db.id] = Api.get(dbPath(db, "/catalog")).catch(function (err) { delete catalogs[db.id]; throw err; });
    }
    return catalogs[db.id];
  }

  function twinOf(name) {
    if (TWINS[name]) { return "sysmetric_history:" + TWINS[name]; }
    return name.indexOf("sysmetric:") === 0 ? "sysmetric_history:" + name.slice(10) : null;
  }

  /** Series of the catalog over a window; with detail, their per-minute twins where the window has them. */
  function seriesLoader(ctx, names, opts) {
    opts = opts || {};
    var inst = ctx.state.inst, each = inst === "each";
    return function (range, detail) {
      var twins = {};
      var ready = detail ? catalog(ctx.db).then(function (cat) {
        var known = new Set(cat.rows.map(function (r) { return r.name; }));
        names.forEach(function (n) { var t = twinOf(n); if (t && known.has(t)) { twins[n] = t; } });
      }) : Promise.resolve();
      return ready.then(function () {
        var all = names.concat(Object.keys(twins).map(function (n) { return twins[n]; })), chunks = [];
        for (var i = 0; i < all.length; i += 8) { chunks.push(all.slice(i, i + 8)); }
        var iso = function (ms) { return F.isoTime(ms, dbZone(ctx.db)); };
        return Promise.all(chunks.map(function (chunk) {
          return Api.get(dbPath(ctx.db, "/series"), { name: chunk, from: iso(range.from), to: iso(range.to),
            instance: inst, rate: opts.rate, max_points: cfg.maxPoints });
        }));
      }).then(function (answers) {
        var series = [].concat.apply([], answers.map(function (a) { return a.series; }));
        var find = function (name, instance) {
          return series.find(function (s) { return s.name === name && s.instance === instance; });
        };
        var datasets = [], k = 0;
        names.forEach(function (name) {
          series.filter(function (s) { return s.name === name; }).forEach(function (base) {
            var twin = twins[name] && find(twins[name], base.instance);
            var use = twin && twin.points.length ? twin : base;
            datasets.push({ key: name + "|" + base.instance, instance: base.instance,
              label: base.label + (each ? " · inst " + base.instance : "") + (use === twin ? " · per minute" : ""),
              unit: base.unit, points: points(use), color: Charts.PALETTE[k % Charts.PALETTE.length] });
            k += 1;
          });
        });
        return { datasets: datasets, markers: answers[0].markers,
          downsampled: series.some(function (s) { return s.points_total > s.points.length; }) };
      });
    };
  }

  /** AAS by wait class, stacked, with DB CPU at the bottom and a line at the CPU count. */
  function waitClassLoader(ctx, instance) {
    return function (range) {
      var iso = function (ms) { return F.isoTime(ms, dbZone(ctx.db)); };
      return Api.get(dbPath(ctx.db, "/wait-classes"), { from: iso(range.from), to: iso(range.to), instance: instance,
        max_points: 0 }).then(function (body) {
        var datasets = body.series.map(function (s, i) {
          return { key: s.name + "|" + s.instance, label: s.label, unit: s.unit, instance: s.instance, points: points(s),
            fill: i ? "-1" : "origin", stack: "aas", color: CLASS_COLORS[s.label] || Charts.PALETTE[i % Charts.PALETTE.length] };
        });
        (body.cpu_count || []).forEach(function (s) {
          datasets.push({ key: "cpus|" + s.instance, label: "CPU count", unit: s.unit, instance: s.instance,
            points: points(s), stack: "cpus", color: "#111", dash: [6, 4], order: -1 });
        });
        return { datasets: datasets, markers: body.markers, downsampled: false };
      });
    };
  }

  function chart(ctx, parts, root, spec) {
    var c = Charts.create(root, Object.assign({ onWindow: ctx.onWindow, singleInstance: ctx.db.instances.length === 1 }, spec));
    parts.charts.push(c);
    return c;
  }

  function table(ctx, parts, root, spec) {
    var t = Tables.create(root, Object.assign({ zone: function () { return zoneOf(ctx.state, ctx.db); } }, spec));
    parts.tables.push(t);
    return t;
  }

  function setWindows(ctx, parts) { parts.charts.forEach(function (c) { c.setWindow(ctx.win); }); }

  function tableInstance(state) { return state.inst === "each" ? "all" : state.inst; }

  function sqlHref(state, sqlId) { return State.href(State.merge(state, { view: "sql", sql: sqlId })); }

  var NUM = function (key, title, unit) { return { key: key, title: title, type: "num", unit: unit }; };
  var TEXT = function (key, title) { return { key: key, title: title, type: "text" }; };

  function loadProfileTable(ctx, parts, root) {
    return table(ctx, parts, root, { id: "load-profile", title: "Load Profile", pageLength: 25,
      columns: [TEXT("metric", "Metric"), NUM("per_second", "Per second"), NUM("per_transaction", "Per transaction"),
        NUM("total", "Total")] });
  }

  function topEventsTable(ctx, parts, root) {
    return table(ctx, parts, root, { id: "top-events", title: "Top events (foreground, with DB CPU)", order: [],
      columns: [TEXT("event", "Event"), TEXT("wait_class", "Wait class"), NUM("waits", "Waits"),
        NUM("time_s", "Time", "s"), NUM("avg_ms", "Avg wait", "ms"), NUM("pct_db_time", "% DB time", "%")] });
  }

  function topSqlTable(ctx, parts, root) {
    var tools = element("div", { "class": "tools" });
    var label = element("label", { "for": "top-sql-order" }, "Order by ");
    var select = element("select", { id: "top-sql-order" });
    Object.keys(ORDERS).forEach(function (k) { select.appendChild(element("option", { value: k }, ORDERS[k])); });
    select.value = ctx.state.order || "elapsed";
    select.addEventListener("change", function () { State.set({ order: select.value === "elapsed" ? null : select.value }); });
    tools.appendChild(label);
    tools.appendChild(select);
    var t = table(ctx, parts, root, { id: "top-sql", title: "Top SQL", wide: true, order: [], tools: tools,
      columns: [{ key: "sql_id", title: "SQL ID", type: "link", href: function (row) { return sqlHref(ctx.state, row.sql_id); } },
        NUM("elapsed_s", "Elapsed", "s"), NUM("cpu_s", "CPU", "s"), NUM("executions", "Executions"),
        NUM("elapsed_per_exec_ms", "Elapsed/exec", "ms"), NUM("buffer_gets", "Buffer gets"), NUM("disk_reads", "Disk reads"),
        NUM("pct_db_time", "% DB time", "%"), { key: "plan_hash_values", title: "Plans", type: "plans" },
        TEXT("module", "Module"), { key: "sql_text", title: "SQL text", type: "text", clip: true }],
      onRow: function (row) { State.set({ view: "sql", sql: row.sql_id }); } });
    t.orderSelect = select;
    return t;
  }

  function loadTopSql(ctx, t) {
    t.orderSelect.value = ctx.state.order || "elapsed";
    t.load(Api.get(dbPath(ctx.db, "/top-sql"), Object.assign({ order_by: ctx.state.order, limit: cfg.topSqlLimit || 25 },
      ctx.win.params)).then(function (b) { return b.rows; }));
  }

  // -- the views ------------------------------------------------------------------------------------------------

  VIEWS.overview = {
    title: "Overview",
    build: function (ctx, parts, root) {
      var grid = element("div", { "class": "grid" });
      root.appendChild(grid);
      var insts = ctx.state.inst === "each" ? ctx.db.instances.map(function (i) { return String(i.instance_number); }) : [ctx.state.inst];
      insts.forEach(function (inst) {
        chart(ctx, parts, grid, { id: "aas" + (insts.length > 1 ? "-" + inst : ""), wide: true, stacked: true, bucket: true,
          height: 280, title: "Average active sessions by wait class" + (inst === "all" ? "" : " · instance " + inst),
          load: waitClassLoader(ctx, inst) });
      });
      chart(ctx, parts, grid, { id: "host-cpu", third: true, title: "Host CPU", detail: true, yMax: 100,
        load: seriesLoader(ctx, ["derived:host_cpu_pct", "derived:host_iowait_pct"]) });
      chart(ctx, parts, grid, { id: "io", third: true, title: "I/O requests and throughput", detail: true,
        load: seriesLoader(ctx, ["derived:iops", "derived:io_mbps"]) });
      chart(ctx, parts, grid, { id: "calls", third: true, title: "Transactions and executions", detail: true,
        load: seriesLoader(ctx, ["derived:tps", "derived:executions"]) });
      parts.lp = loadProfileTable(ctx, parts, grid);
      parts.events = topEventsTable(ctx, parts, grid);
      parts.sql = topSqlTable(ctx, parts, grid);
    },
    update: function (ctx, parts) {
      setWindows(ctx, parts);
      var p = Object.assign({ instance: tableInstance(ctx.state) }, ctx.win.params);
      parts.lp.load(Api.get(dbPath(ctx.db, "/load-profile"), p).then(function (b) { return b.rows; }));
      parts.events.load(Api.get(dbPath(ctx.db, "/top-events"), p).then(function (b) { return b.rows; }));
      loadTopSql(ctx, parts.sql);
    }
  };

  VIEWS.explorer = {
    title: "Metric explorer",
    defaults: function (state) {
      var patch = {};
      if (!state.series || !state.series.length) { patch.series = ["derived:aas"]; }
      if (!RATES[state.rate]) { patch.rate = "per_second"; }
      return patch;
    },
    key: function (state) { return [state.series.join("\n"), state.rate]; },
    build: function (ctx, parts, root) {
      var max = 8, series = ctx.state.series;
      var form = element("form", { "class": "card explorer-form", "aria-label": "Series on the chart" });
      var row = element("div", { "class": "row" });
      row.appendChild(element("label", { "for": "series-search" }, "Add a series"));
      var input = element("input", { id: "series-search", type: "search", list: "catalog-names", autocomplete: "off",
        placeholder: "type to search the catalog, e.g. redo, log file sync, Host CPU", size: "48" });
      row.appendChild(input);
      row.appendChild(element("button", { type: "submit" }, "Add"));
      row.appendChild(element("label", { "for": "rate" }, "Counters"));
      var rate = element("select", { id: "rate" });
      Object.keys(RATES).forEach(function (k) { rate.appendChild(element("option", { value: k }, RATES[k])); });
      rate.value = ctx.state.rate;
      rate.addEventListener("change", function () { State.set({ rate: rate.value }); });
      row.appendChild(rate);
      form.appendChild(row);
      var list = element("datalist", { id: "catalog-names" });
      form.appendChild(list);
      var note = element("p", { "class": "note", role: "status", "aria-live": "polite" }, "Loading the catalog…");
      form.appendChild(note);
      var chips = element("ul", { "class": "chips", "aria-label": "Series shown" });
      series.forEach(function (name) {
        var li = element("li", { "class": "chip" });
        li.appendChild(element("span", {}, name));
        var rm = element("button", { type: "button", "aria-label": "Remove " + name, title: "Remove" }, "×");
        rm.addEventListener("click", function () {
          State.set({ series: series.filter(function (s) { return s !== name; }) });
        });
        li.appendChild(rm);
        chips.appendChild(li);
      });
      form.appendChild(chips);
      root.appendChild(form);
      var known = null;
      catalog(ctx.db).then(function (cat) {
        known = {};
        var frag = document.createDocumentFragment();
        cat.rows.forEach(function (r) {
          known[r.name] = r;
          frag.appendChild(element("option", { value: r.name, label: r.label + " · " + r.unit + " · " + r.kind }));
        });
        list.appendChild(frag);
        note.textContent = cat.count + " series in the catalog. Each instance: one line per instance (Instances above). " +
          "Per-minute detail replaces sysmetric series when the window is " + (cfg.detailMaxHours || 6) + " hours or less.";
      }).catch(function (err) { note.textContent = "The catalog could not be loaded: " + err.message; });
      form.addEventListener("submit", function (e) {
        e.preventDefault();
        var name = input.value.trim();
        if (!name) { return; }
        if (known && !known[name]) { note.textContent = "No series named \u201c" + name + "\u201d: pick one from the list."; return; }
        if (series.indexOf(name) >= 0) { note.textContent = name + " is already on the chart."; return; }
        if (series.length >= max) { note.textContent = "At most " + max + " series on one chart."; return; }
        State.set({ series: series.concat([name]) });
      });
      var grid = element("div", { "class": "grid" });
      root.appendChild(grid);
      chart(ctx, parts, grid, { id: "explorer", title: "Metric explorer", wide: true, height: 360, detail: true,
        load: seriesLoader(ctx, series, { rate: ctx.state.rate }) });
    },
    update: setWindows
  };

  VIEWS.sql = {
    title: "SQL detail",
    key: function (state) { return [state.sql || ""]; },
    build: function (ctx, parts, root) {
      var form = element("form", { "class": "card sql-form", "aria-label": "Open a SQL statement" });
      form.appendChild(element("label", { "for": "sql-id" }, "SQL ID"));
      var input = element("input", { id: "sql-id", type: "text", pattern: "[0-9a-z]{13}", maxlength: "13", size: "15",
        required: "", spellcheck: "false", title: "13 characters: digits and lower-case letters" });
      input.value = ctx.state.sql || "";
      form.appendChild(input);
      form.appendChild(element("button", { type: "submit" }, "Open"));
      form.addEventListener("submit", function (e) {
        e.preventDefault();
        if (input.checkValidity()) { State.set({ sql: input.value.trim() }); }
      });
      root.appendChild(form);
      var grid = element("div", { "class": "grid" });
      root.appendChild(grid);
      if (!ctx.state.sql) {
        grid.appendChild(element("p", { "class": "note wide" }, "Pick a statement from the top SQL of this range, or type its SQL ID."));
        parts.sql = topSqlTable(ctx, parts, grid);
        return;
      }
      var info = element("section", { "class": "card wide sql-info", "aria-labelledby": "h-sql-text" });
      info.appendChild(element("h2", { id: "h-sql-text" }, "SQL " + ctx.state.sql));
      parts.meta = element("p", { "class": "meta" }, "Loading…");
      info.appendChild(parts.meta);
      parts.text = element("pre", { "class": "sql-text", tabindex: "0", "aria-label": "SQL text" });
      info.appendChild(parts.text);
      grid.appendChild(info);
      parts.answer = null;
      var answer = function (range) {
        var iso = function (ms) { return F.isoTime(ms, dbZone(ctx.db)); };
        return Api.get(dbPath(ctx.db, "/sql/" + encodeURIComponent(ctx.state.sql)),
          { from: iso(range.from), to: iso(range.to), max_points: cfg.maxPoints });
      };
      [["elapsed_per_exec", "Elapsed time per execution"], ["cpu_per_exec", "CPU time per execution"],
        ["buffer_gets_per_exec", "Buffer gets per execution"], ["executions", "Executions"]].forEach(function (m) {
        chart(ctx, parts, grid, { id: "sql-" + m[0].replace(/_/g, "-"), title: m[1] + ", one line per plan",
          load: function (range) {
            return answer(range).then(function (body) {
              var plans = body.plans.map(function (p) { return p.plan_hash_value; });
              var lines = body.series.filter(function (s) { return s.metric === m[0]; });
              return { markers: {}, downsampled: lines.some(function (s) { return s.points.length >= cfg.maxPoints; }),
                datasets: lines.map(function (s) {
                  var i = plans.indexOf(s.plan_hash_value);
                  return { key: String(s.plan_hash_value), label: "plan " + s.plan_hash_value, unit: s.unit,
                    instance: "all", points: s.points.length < cfg.maxPoints ? broken(points(s), ctx.db.step) : points(s), color: Charts.PALETTE[(i < 0 ? 0 : i) % Charts.PALETTE.length] };
                }) };
            });
          } });
      });
      parts.plans = table(ctx, parts, grid, { id: "sql-plans", title: "Plans in this range", wide: true,
        columns: [{ key: "plan_hash_value", title: "Plan hash value", type: "text" }, NUM("executions", "Executions"),
          NUM("elapsed_s", "Elapsed", "s"), NUM("elapsed_per_exec_ms", "Elapsed/exec", "ms"),
          { key: "first_seen", title: "First seen", type: "time" }, { key: "last_seen", title: "Last seen", type: "time" },
          NUM("snapshots", "Snapshots")] });
    },
    update: function (ctx, parts) {
      setWindows(ctx, parts);
      if (!ctx.state.sql) { loadTopSql(ctx, parts.sql); return; }
      var body = Api.get(dbPath(ctx.db, "/sql/" + encodeURIComponent(ctx.state.sql)),
        Object.assign({ max_points: cfg.maxPoints }, ctx.win.params));
      body.then(function (b) {
        parts.text.textContent = b.sql_text || "(no text captured in AWR)";
        parts.meta.textContent = "Module: " + (b.module || "—") + " · " + b.plans.length + " plan(s) in this range";
      }).catch(function (err) { parts.meta.textContent = "Could not load this statement: " + err.message; });
      parts.plans.load(body.then(function (b) { return b.plans; }));
    }
  };

  VIEWS.compare = {
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
        var zone = zoneOf(ctx.state, ctx.db), patch = {};
        Object.keys(parts.inputs).forEach(function (k) {
          patch[k] = F.isoTime(F.parseInputTime(parts.inputs[k].value, zone), dbZone(ctx.db));
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
        var iso = function (ms) { return F.isoTime(ms, dbZone(db)); };
        var a = [from - w, from], b = [from, win.to];
        if (a[0] < db.first) { a = [from, from + w / 2]; b = [a[1], win.to]; }  // no history before it: its halves
        State.set({ a_from: iso(a[0]), a_to: iso(a[1]), b_from: iso(b[0]), b_to: iso(b[1]) }, "replace");
        return;
      }
      var zone = zoneOf(s, db);
      Object.keys(parts.inputs).forEach(function (k) { parts.inputs[k].value = F.inputTime(parseTime(s[k], db), zone); });
      var body = Api.get(dbPath(db, "/compare"), { a_from: s.a_from, a_to: s.a_to, b_from: s.b_from, b_to: s.b_to,
        instance: tableInstance(s) });
      parts.lp.load(body.then(function (b) { return b.load_profile.rows; }));
      parts.events.load(body.then(function (b) { return b.top_events.rows; }));
    }
  };

  VIEWS.tablespaces = {
    title: "Tablespaces",
    key: function (state) { return [state.ts || ""]; },
    build: function (ctx, parts, root) {
      var grid = element("div", { "class": "grid" });
      root.appendChild(grid);
      var answer = function (params) { return Api.get(dbPath(ctx.db, "/tablespaces"), Object.assign({ max_points: cfg.maxPoints }, params)); };
      var chosen = function (body) {  // the one in the link, or the fullest
        if (ctx.state.ts) { return ctx.state.ts; }
        var rows = body.rows.slice().sort(function (a, b) { return (b.used_pct_of_max || 0) - (a.used_pct_of_max || 0); });
        return rows.length ? rows[0].tablespace : null;
      };
      chart(ctx, parts, grid, { id: "tablespace", wide: true, height: 300,
        title: "Tablespace size over time: used, allocated and maximum" + (ctx.state.ts ? " · " + ctx.state.ts : ""),
        load: function (range) {
          var iso = function (ms) { return F.isoTime(ms, dbZone(ctx.db)); };
          return answer({ from: iso(range.from), to: iso(range.to) }).then(function (body) {
            var ts = chosen(body), style = { used: ["#1f77b4", true, []], size: ["#2ca02c", false, []], max: ["#d62728", false, [6, 4]] };
            var lines = body.series.filter(function (s) { return s.tablespace === ts; });
            return { markers: {}, downsampled: lines.some(function (s) { return s.points.length >= cfg.maxPoints; }),
              datasets: lines.map(function (s) {
                return { key: s.metric, label: s.tablespace + " " + (s.metric === "size" ? "allocated" : s.metric), unit: s.unit,
                  instance: "all", points: points(s), color: style[s.metric][0], fill: style[s.metric][1], dash: style[s.metric][2] };
              }) };
          });
        } });
      parts.ts = table(ctx, parts, grid, { id: "tablespaces", title: "Tablespaces at the end of the range", wide: true,
        pageLength: 25, columns: [TEXT("tablespace", "Tablespace"), TEXT("contents", "Contents"), NUM("used_mb", "Used", "MB"),
          NUM("size_mb", "Allocated", "MB"), NUM("max_mb", "Maximum", "MB"), NUM("used_pct_of_max", "Used of max", "%"),
          NUM("growth_mb", "Growth in range", "MB")],
        onRow: function (row) { State.set({ ts: row.tablespace }); } });
      parts.answer = answer;
    },
    update: function (ctx, parts) {
      setWindows(ctx, parts);
      parts.ts.load(parts.answer(ctx.win.params).then(function (b) { return b.rows; }));
    }
  };

  // -- benchmark runs ---------------------------------------------------------------------------------------------

  var KINDS = { cpu_consistency: "CPU consistency", io_sweep: "I/O by size", client_hang: "client hangs",
    before_after: "before / after", ab: "A / B", other: "other" };
  var UTC = function () { return "UTC"; };
  var BARS = { client_hang: "How long the client waited, by case", before_after: "Before and after",
    ab: "Side by side" };

  function runHref(slug) { return State.href({ view: "run", run: slug }); }

  function unique(values) {
    var out = [];
    values.forEach(function (v) { if (out.indexOf(v) < 0) { out.push(v); } });
    return out;
  }

  function median(sorted) {
    var n = sorted.length;
    return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** A row's note for tooltips: what the harness said about it (hang outcomes), or its extra attributes. */
  function note(row) {
    var e = row.extra || {};
    if (e.outcome) { return e.outcome; }
    if (e.still_hanging) { return "still hanging" + (e.note ? ": " + e.note : ""); }
    return e.note || e.setting || e.error || "";
  }

  /** The charts that fit a run (or runs compared) of this kind:
   * - CPU consistency: elapsed per session against N, every session as a point, the median as a line and the
   *   fastest-to-slowest range shaded, one colour per run;
   * - numbers on x (I/O sizes...): one chart per unit (throughput, IOPS), one line per series (volume type);
   * - categories on x (before/after, A/B, hang cases): bars, one chart per unit, one bar per series. */
  function benchCharts(runs, rows) {
    var multi = runs.length > 1;
    var kind = runs.every(function (r) { return r.kind === runs[0].kind; }) ? runs[0].kind : "other";
    var numeric = rows.every(function (r) { return typeof r.x === "number"; });
    var label = function (row, name) { return multi ? row.run + " · " + name : name; };
    var color = function (i) { return Charts.PALETTE[i % Charts.PALETTE.length]; };
    if (kind === "cpu_consistency" && numeric) {
      var datasets = [], most = 1;
      unique(rows.map(function (r) { return r.run || runs[0].slug; })).forEach(function (slug, k) {
        var mine = rows.filter(function (r) { return (r.run || runs[0].slug) === slug; });
        var byN = {};
        mine.forEach(function (r) { (byN[r.x] = byN[r.x] || []).push(r.y); most = Math.max(most, r.x); });
        var ns = Object.keys(byN).map(Number).sort(function (a, b) { return a - b; });
        var sorted = ns.map(function (n) { return byN[n].slice().sort(function (a, b) { return a - b; }); });
        var tag = multi ? slug + " · " : "";
        datasets.push({ label: tag + "every session", unit: mine[0].unit, show: "points", color: color(k),
          points: mine.map(function (r) { return [r.x, r.y]; }),
          notes: mine.map(function (r) { return r.extra && r.extra.session ? "session " + r.extra.session : ""; }) });
        datasets.push({ label: tag + "median", unit: mine[0].unit, show: "line", color: color(k),
          points: ns.map(function (n, i) { return [n, median(sorted[i])]; }) });
        datasets.push({ label: tag + "fastest", unit: mine[0].unit, show: "line", dash: [4, 3], color: color(k),
          points: ns.map(function (n, i) { return [n, sorted[i][0]]; }) });
        datasets.push({ label: tag + "slowest", unit: mine[0].unit, show: "line", dash: [4, 3], color: color(k), fill: "-1",
          points: ns.map(function (n, i) { return [n, sorted[i][sorted[i].length - 1]]; }) });
      });
      return [{ id: "bench-cpu", title: "Elapsed time per session against parallel sessions: every session, the median " +
        "and the fastest-to-slowest range", type: "scatter", wide: true, height: 380, datasets: datasets,
        x: { type: "linear", title: "parallel sessions (N)", min: 0, max: most + 1, step: 1 },
        y: { title: "elapsed per session (" + (rows[0].unit || "s") + ")" } }];
    }
    return unique(rows.map(function (r) { return r.unit || ""; })).map(function (unit, u) {
      var these = rows.filter(function (r) { return (r.unit || "") === unit; });
      var names = unique(these.map(function (r) { return label(r, r.series); }));
      var sets = names.map(function (name, i) {
        var mine = these.filter(function (r) { return label(r, r.series) === name; });
        return { label: name, unit: unit, color: color(i), show: numeric ? "line" : "bar",
          points: mine.map(function (r) { return [r.x, r.y]; }), notes: mine.map(note) };
      });
      var positive = these.every(function (r) { return r.y > 0; });
      var spread = positive && Math.max.apply(null, these.map(function (r) { return r.y; })) /
        Math.min.apply(null, these.map(function (r) { return r.y; })) > 50;
      var log = spread && (kind === "client_hang" || !numeric);
      var least = Math.min.apply(null, these.map(function (r) { return r.y; }));
      var spec = { id: "bench-" + (u + 1), wide: true, height: 320, datasets: sets,
        y: { title: unit || "value", type: log ? "logarithmic" : "linear",
          min: log ? Math.pow(10, Math.floor(Math.log10(least * 0.999))) : undefined } };
      if (numeric) {
        var sizes = kind === "io_sweep" && these.every(function (r) { return r.x > 0; });
        return Object.assign(spec, { type: "scatter", title: (unit || "Value") + " against " +
          (sizes ? "I/O size" : "x") + ", one line per series",
          x: { type: sizes ? "logarithmic" : "linear", title: sizes ? "I/O size (KB)" : "x" } });
      }
      return Object.assign(spec, { type: "bar", title: (BARS[kind] || "Values") + (unit ? " · " + unit : "") +
        (log ? " (log scale)" : ""),
        x: { type: "category", categories: unique(these.map(function (r) { return r.x; })) } });
    });
  }

  function measurementsTable(parts, root, body, withRun) {
    var numeric = body.rows.every(function (r) { return typeof r.x === "number"; });
    var columns = (withRun ? [TEXT("run", "Run")] : []).concat([NUM("seq", "#"), TEXT("series", "Series"),
      numeric ? NUM("x", "x") : TEXT("x", "x"), { key: "y", title: "y", type: "num", unit: function (row) { return row.unit; } },
      TEXT("unit", "Unit")]).concat(body.extra_columns.map(function (k, i) { return TEXT("extra_" + i, k); }));
    var rows = body.rows.map(function (r) {  // keys of our own: DataTables reads "a.b", "a[]" and "a()" as paths
      var out = Object.assign({}, r);
      body.extra_columns.forEach(function (k, i) {
        var v = (r.extra || {})[k];
        out["extra_" + i] = v !== null && typeof v === "object" ? JSON.stringify(v) : v;
      });
      return out;
    });
    var t = Tables.create(root, { id: "measurements", title: "Measurements", wide: true, pageLength: 25, zone: UTC,
      columns: columns });
    parts.tables.push(t);
    t.setRows(rows);
    return t;
  }

  function runMeta(run) {
    var bits = [KINDS[run.kind] || run.kind, run.visibility];
    if (run.started) {
      bits.push(F.fmtTime(Date.parse(run.started), "UTC") + (run.finished ? " → " + F.fmtTime(Date.parse(run.finished), "UTC") : "") + " UTC");
    }
    bits.push(run.measurements + " measurements");
    return bits.join(" · ");
  }

  function environment(run) {
    var dl = element("dl", { "class": "env" });
    [["Host", run.host], ["Instance type", run.instance_type], ["vCPUs", run.vcpus], ["Cores", run.cores],
      ["Database", run.db_version]].forEach(function (p) {
      if (p[1] === null || p[1] === undefined || p[1] === "") { return; }
      dl.appendChild(element("dt", {}, p[0]));
      dl.appendChild(element("dd", {}, String(p[1])));
    });
    return dl;
  }

  /** A permalink box: the link of `state` alone (short and readable), copied on a click. */
  function permalink(container, state) {
    var link = State.href(state);
    var button = element("button", { type: "button", "class": "copy-run-link" }, "Copy link");
    var box = element("input", { type: "text", readonly: "", "class": "permalink", "aria-label": "Link to this page" });
    box.value = link;
    button.addEventListener("click", function () {
      box.select();
      var done = function () { button.textContent = "Link copied"; };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(link).then(done, function () { button.textContent = "Copy the link beside"; });
      } else {
        button.textContent = "Copy the link beside";
      }
    });
    container.appendChild(button);
    container.appendChild(box);
  }

  /** Where a run or comparison could not be loaded: the API's message, and a key form when it wants a key. */
  function loadFailed(card, err) {
    card.appendChild(element("p", { "class": "is-error" }, err.status === 401
      ? "This needs the API key: " + err.message : "Could not load this: " + err.message));
    if (err.status === 401) { keyForm(card); }
    card.setAttribute("data-state", "error");
  }

  function compareForm(container, current, label) {
    var form = element("form", { "class": "compare-runs", "aria-label": "Compare runs" });
    form.appendChild(element("label", { "for": "add-run" }, label));
    var select = element("select", { id: "add-run" });
    form.appendChild(select);
    form.appendChild(element("button", { type: "submit" }, "Compare"));
    Api.get("/benchmarks", null, { silent: true }).then(function (body) {
      body.rows.forEach(function (r) {
        if (current.indexOf(r.slug) < 0) { select.appendChild(element("option", { value: r.slug }, r.title + " (" + r.slug + ")")); }
      });
    }).catch(function () { form.hidden = true; });
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      if (select.value) { State.set({ view: "runs", runs: current.concat([select.value]), run: null }); }
    });
    container.appendChild(form);
  }

  VIEWS.benchmarks = {
    title: "Benchmarks",
    standalone: true,
    build: function (ctx, parts, root) {
      var intro = element("section", { "class": "card bench-intro" });
      intro.appendChild(element("h2", {}, "Benchmark runs"));
      intro.appendChild(element("p", { "class": "note" }, "Results recorded with `flask bench import`, `flask bench cpu`, " +
        "`flask bench hang` or POST /api/v1/benchmarks. Open a run for its chart and measurements, or tick several " +
        "and compare them on one chart."));
      var compare = element("button", { type: "button", id: "compare-selected", disabled: "" }, "Compare the selected runs");
      intro.appendChild(compare);
      root.appendChild(intro);
      var grid = element("div", { "class": "grid" });
      root.appendChild(grid);
      var chosen = [];
      var t = Tables.create(grid, { id: "benchmarks", title: "Runs", wide: true, pageLength: 25, zone: UTC, order: [],
        columns: [{ key: "title", title: "Run", type: "link", href: function (row) { return runHref(row.slug); } },
          TEXT("kind", "Kind"), TEXT("visibility", "Visibility"), { key: "started", title: "Started (UTC)", type: "time" },
          TEXT("instance_type", "Instance type"), NUM("vcpus", "vCPUs"), NUM("cores", "Cores"),
          NUM("measurements", "Measurements"), TEXT("awr_db", "AWR window of"), TEXT("slug", "Slug")],
        onRow: function (row) { State.set({ view: "run", run: row.slug }); } });
      parts.tables.push(t);
      var boxes = element("fieldset", { "class": "pick-runs" });
      boxes.appendChild(element("legend", {}, "Select runs to compare"));
      intro.insertBefore(boxes, compare);
      t.load(Api.get("/benchmarks").then(function (body) {
        body.rows.forEach(function (r) {
          var id = "pick-" + r.slug, label = element("label", { "for": id });
          var box = element("input", { type: "checkbox", id: id, value: r.slug });
          box.addEventListener("change", function () {
            chosen = box.checked ? chosen.concat([r.slug]) : chosen.filter(function (s) { return s !== r.slug; });
            if (chosen.length) { compare.removeAttribute("disabled"); } else { compare.setAttribute("disabled", ""); }
          });
          label.appendChild(box);
          label.appendChild(document.createTextNode(" " + r.slug));
          boxes.appendChild(label);
        });
        return body.rows.map(function (r) { return Object.assign({}, r, { kind: KINDS[r.kind] || r.kind }); });
      }));
      compare.addEventListener("click", function () { if (chosen.length) { State.set({ view: "runs", runs: chosen }); } });
    }
  };

  VIEWS.run = {
    title: "Benchmark run",
    standalone: true,
    key: function (state) { return [state.run || ""]; },
    build: function (ctx, parts, root) {
      var slug = ctx.state.run;
      var head = element("section", { "class": "card bench-head", "data-run": slug || "", "data-state": "loading",
        "aria-labelledby": "h-run" });
      head.appendChild(element("h2", { id: "h-run" }, slug ? "Run " + slug : "No run in the link"));
      root.appendChild(head);
      var grid = element("div", { "class": "grid" });
      root.appendChild(grid);
      if (!slug) {
        head.appendChild(element("p", {}, "Pick a run from the benchmarks list."));
        head.setAttribute("data-state", "error");
        return;
      }
      Api.get("/benchmarks/" + encodeURIComponent(slug), null, { silent: true }).then(function (body) {
        var run = body.run;
        document.title = "awrlens · " + run.title;
        head.querySelector("h2").textContent = run.title;
        head.appendChild(element("p", { "class": "meta" }, runMeta(run)));
        head.appendChild(environment(run));
        if (run.description) { head.appendChild(element("p", { "class": "description" }, run.description)); }
        if (Object.keys(run.parameters || {}).length) {
          var params = element("details", { "class": "parameters" });
          params.appendChild(element("summary", {}, "Parameters"));
          params.appendChild(element("pre", {}, JSON.stringify(run.parameters, null, 2)));
          head.appendChild(params);
        }
        var actions = element("div", { "class": "actions" });
        permalink(actions, { view: "run", run: run.slug });
        if (run.awr_db) {
          var state = { db: run.awr_db, view: "overview", begin_snap: String(run.awr_begin_snap),
            end_snap: String(run.awr_end_snap) };
          var awr = element("a", { "class": "button awr-link", href: State.href(state) },
            "Database history of this run: " + run.awr_db + ", snapshots " + run.awr_begin_snap + "–" + run.awr_end_snap);
          awr.addEventListener("click", function (e) {
            if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) { return; }
            e.preventDefault();
            State.set(Object.assign({ run: null, runs: null }, state));
          });
          actions.appendChild(awr);
        }
        head.appendChild(actions);
        compareForm(head, [run.slug], "Compare with");
        benchCharts([run], body.rows).forEach(function (spec) { parts.charts.push(Charts.createXY(grid, spec)); });
        measurementsTable(parts, grid, body, false);
        head.setAttribute("data-state", "ready");
      }).catch(function (err) {
        loadFailed(head, err);
      });
    }
  };

  VIEWS.runs = {
    title: "Compare benchmark runs",
    standalone: true,
    key: function (state) { return [(state.runs || []).join("\n")]; },
    build: function (ctx, parts, root) {
      var slugs = ctx.state.runs || [];
      var head = element("section", { "class": "card bench-head", "data-state": "loading", "aria-labelledby": "h-runs" });
      head.appendChild(element("h2", { id: "h-runs" }, "Runs compared"));
      root.appendChild(head);
      var grid = element("div", { "class": "grid" });
      root.appendChild(grid);
      if (!slugs.length) {
        head.appendChild(element("p", {}, "No runs in the link: pick them from the benchmarks list."));
        head.setAttribute("data-state", "error");
        return;
      }
      Api.get("/benchmarks/compare", { runs: slugs }, { silent: true }).then(function (body) {
        var list = element("ul", { "class": "chips", "aria-label": "Runs compared" });
        body.runs.forEach(function (run) {
          var li = element("li", { "class": "chip" });
          var a = element("a", { href: runHref(run.slug) }, run.title + " (" + run.slug + ")");
          li.appendChild(a);
          var rm = element("button", { type: "button", "aria-label": "Remove " + run.slug, title: "Remove" }, "×");
          rm.addEventListener("click", function () {
            var rest = slugs.filter(function (s) { return s !== run.slug; });
            State.set(rest.length ? { runs: rest } : { view: "benchmarks", runs: null });
          });
          li.appendChild(rm);
          list.appendChild(li);
        });
        head.appendChild(list);
        var actions = element("div", { "class": "actions" });
        permalink(actions, { view: "runs", runs: slugs });
        head.appendChild(actions);
        compareForm(head, slugs, "Add a run");
        benchCharts(body.runs, body.rows).forEach(function (spec) { parts.charts.push(Charts.createXY(grid, spec)); });
        measurementsTable(parts, grid, body, true);
        head.setAttribute("data-state", "ready");
      }).catch(function (err) {
        loadFailed(head, err);
      });
    }
  };

  AWRLens.Views = {
    SEL: SEL,
    init: function (databases) {
      dbs = databases.map(describe);
      dbs.forEach(function (d) { byId[d.id] = d; });
      var sel = $(SEL.db).empty();
      dbs.forEach(function (d) {
        sel.append($("<option>").val(d.id).text(d.name + " (" + d.dbid + ")" + (d.rac ? " · RAC, " + d.instances.length + " instances" : "")));
      });
      bindControls();
    },
    render: render,
    showError: showError,
    /** Whether a view needs no database (the benchmark views). */
    standalone: function (name) { return !!(VIEWS[name] && VIEWS[name].standalone); },
    absoluteLink: absoluteLink,
    fail: function (message) {
      teardown();
      $(SEL.main).append(element("p", { "class": "placeholder is-error" }, message));
    }
  };
}(window.AWRLens = window.AWRLens || {}, window.jQuery));
