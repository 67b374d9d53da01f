/* AWRLens.Views: the router. Every change goes through AWRLens.State (the URL); render() draws the state with
 * the view it names. A view (history-views.js, activity-views.js, run-views.js) is registered with
 * add(name, view):
 *   {title, build(ctx, parts, root), update(ctx, parts), key(state) (its own choices), defaults(state, db),
 *    standalone (needs no database, range or key: the benchmark views, so a public run's link opens anywhere)}
 * A view is rebuilt when its key (database, instances, time zone and the view's own choices) changes, and only
 * updated (charts given the new window, tables reloaded) when the range changes. */
(function (AWRLens, $) {
  "use strict";
  var Api = AWRLens.Api, State = AWRLens.State, Dbs = AWRLens.Databases, Controls = AWRLens.Controls;
  var element = AWRLens.Dom.element, SEL = Controls.SEL, F = AWRLens.Format;
  var cfg = window.AWRLENS_CONFIG || {};
  var VIEWS = AWRLens.Dom.table();
  var active = null, renderGen = 0;

  /** Defaults and repairs for a state from a link: a patch, or null when the state is complete. */
  function normalize(state) {
    var patch = {}, dbs = Dbs.list(), db = Dbs.get(state.db), PRESETS = Dbs.PRESETS;
    if (!db) {
      if (state.db) { Controls.showError(new Error("unknown database " + JSON.stringify(state.db) + " in the link; showing " + dbs[0].name)); }
      db = dbs[0];
      patch.db = db.id;
    }
    var insts = ["all", "each"].concat(db.instances.map(function (i) { return String(i.instance_number); }));
    if (insts.indexOf(state.inst) < 0) { patch.inst = "all"; }
    if (!VIEWS[state.view]) { patch.view = "overview"; }
    // one kind of range: the first complete one in the order Dbs.resolveWindow reads them; the other kinds' keys
    // (a stale end_snap beside a named range) leave the link
    var kept = /^\d+$/.test(state.begin_snap || "") && /^\d+$/.test(state.end_snap || "") ? ["begin_snap", "end_snap"]
      : PRESETS[state.range] ? ["range"]
        : state.from && state.to && Dbs.parseTime(state.from, db) < Dbs.parseTime(state.to, db) ? ["from", "to"] : null;
    if (kept) {
      State.RANGE_KEYS.forEach(function (k) { if (kept.indexOf(k) < 0 && state[k] !== undefined) { patch[k] = null; } });
    } else {
      if (state.range || state.from || state.to || state.begin_snap || state.end_snap) {
        Controls.showError(new Error("the range in the link is incomplete or invalid; showing the default range"));
      }
      patch.range = PRESETS[cfg.defaultRange] ? cfg.defaultRange : "7d";
    }
    if (state.tz !== "db" && state.tz !== "browser") { patch.tz = "db"; }
    if (state.changes !== undefined && state.changes !== "hide") { patch.changes = null; }  // shown: the default
    var view = VIEWS[patch.view || state.view];
    if (view.defaults) { Object.assign(patch, view.defaults(Object.assign({}, state, patch), db)); }
    return Object.keys(patch).length ? patch : null;
  }

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
    document.documentElement.toggleAttribute("data-standalone", !!standalone);
    if (standalone) { renderStandalone(state, VIEWS[state.view], how); return; }
    if (!Dbs.list().length) { renderNoDatabase(state); return; }
    var patch = normalize(state);
    if (patch) { State.set(patch, "replace"); return; }
    if (how !== "init" && how !== "replace") { Controls.clearError(); }
    var db = Dbs.get(state.db), view = VIEWS[state.view], gen = ++renderGen;
    document.title = "awrlens · " + db.name + " · " + view.title;
    Dbs.resolveWindow(state, db).then(function (win) {
      if (gen !== renderGen) { return; }
      Controls.sync(state, db, win);
      var key = [state.db, state.view, state.inst, state.tz].concat(view.key ? view.key(state) : []).join("|");
      var ctx = { state: state, db: db, win: win, onWindow: Controls.setWindow };
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
    if (how !== "init" && how !== "replace") { Controls.clearError(); }
    renderGen += 1;
    document.title = "awrlens · " + view.title;
    Controls.pressTab("benchmarks");
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
    Controls.pressTab(VIEWS[state.view] ? state.view : "overview");
    var box = element("section", { "class": "card key-card" });
    box.appendChild(element("p", {}, "The database history needs the API key" +
      (Api.hasKey() ? "; the key this page has was refused." : ".") + " Benchmark runs marked public open without it."));
    Controls.keyForm(box);
    $(SEL.main).append(box);
  }

  /** An export's file name: awrlens-<database>-<what>-<from>-<to>.<ext>, the range shown (a chart's own window `win`,
   * else the view's) as the database's local times (awrlens-RACPROD-aas-20261113T0700-20261120T0700.csv);
   * awrlens-<what>.<ext> where no database is shown (a benchmark run). */
  function fileName(what, ext, win) {
    var ctx = active && active.ctx, parts = ["awrlens"];
    if (ctx && ctx.db) {
      var w = win || ctx.win;
      parts.push(ctx.db.name, what);
      if (w) { parts.push(F.fileStamp(w.from, w.zone), F.fileStamp(w.to, w.zone)); }
    } else {
      parts.push(what);
    }
    return parts.map(function (p) { return String(p).replace(/[^A-Za-z0-9_.-]+/g, "_"); }).join("-") + "." + ext;
  }

  AWRLens.Views = {
    fileName: fileName,
    /** Register a view under the name the state's `view` gives it. */
    add: function (name, view) { VIEWS[name] = view; },
    init: function (databases) {
      Controls.init(Dbs.set(databases), function () { return active && active.ctx.win; });
    },
    render: render,
    /** The repairs a state from a link needs (defaults, one kind of range): a patch, or null when it is complete. */
    normalize: normalize,
    showError: Controls.showError,
    /** Whether a view needs no database (the benchmark views). */
    standalone: function (name) { return !!(VIEWS[name] && VIEWS[name].standalone); },
    absoluteLink: Controls.absoluteLink,
    fail: function (message) {
      teardown();
      $(SEL.main).append(element("p", { "class": "placeholder is-error" }, message));
    }
  };
}(window.AWRLens = window.AWRLens || {}, window.jQuery));
