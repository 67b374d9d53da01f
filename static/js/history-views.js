/* The history views (overview, metric explorer, SQL detail, tablespaces; top activity is in activity-views.js,
 * compare periods in compare-views.js), registered with the router (AWRLens.Views.add). Each builds its charts and tables once per
 * key and updates them for each window; their data comes from AWRLens.Loaders (charts) and the history API
 * (tables). */
(function (AWRLens) {
  "use strict";
  var F = AWRLens.Format, Api = AWRLens.Api, State = AWRLens.State, Charts = AWRLens.Charts, Tables = AWRLens.Tables;
  var Dbs = AWRLens.Databases, Loaders = AWRLens.Loaders, Views = AWRLens.Views;
  var element = AWRLens.Dom.element, NUM = Tables.num, TEXT = Tables.text;
  var cfg = window.AWRLENS_CONFIG || {};
  var RATES = AWRLens.Dom.table({ per_second: "per second", per_txn: "per transaction", raw: "raw deltas" });
  var ORDERS = { elapsed: "elapsed time", cpu: "CPU time", gets: "buffer gets", reads: "disk reads",
    executions: "executions", rows: "rows processed" };

  /** What a history chart shows, for its PNG: the database, the instances and the window with its zone. */
  function about(ctx, c) {
    var db = ctx.db, all = db.instances.map(function (i) { return i.instance_number; }).join(", "), inst = ctx.state.inst;
    var who = db.instances.length === 1 ? "instance " + all : inst === "each" ? "instances " + all + ", one line each"
      : inst && inst !== "all" ? "instance " + inst : "instances " + all + " combined";
    var win = c.win || ctx.win;
    return [db.name + " (" + db.id + ") · " + who,
      F.fmtTime(win.from, win.zone, true) + " to " + F.fmtTime(win.to, win.zone, true) + " (" + win.zone + ")"];
  }

  function chart(ctx, parts, root, spec) {
    var c = Charts.create(root, Object.assign({ onWindow: ctx.onWindow, singleInstance: ctx.db.instances.length === 1,
      database: ctx.db.name, bandOn: !!(spec.band && ctx.state.band_ref),  // a baseline picked: its band drawn
      about: function () { return about(ctx, c); }, changes: AWRLens.Changes.loader(ctx) }, spec));
    parts.charts.push(c);
    return c;
  }

  function table(ctx, parts, root, spec) {
    var t = Tables.create(root, Object.assign({ zone: function () { return Dbs.zoneOf(ctx.state, ctx.db); } }, spec));
    parts.tables.push(t);
    return t;
  }

  function setWindows(ctx, parts) { parts.charts.forEach(function (c) { c.setWindow(ctx.win); }); }

  function tableInstance(state) { return state.inst === "each" ? "all" : state.inst; }

  /** A statement's detail; in a CDB root, in the container of the row it was picked from. */
  function sqlState(row) { return { view: "sql", sql: row.sql_id, con: row.container ? String(row.con_dbid) : null }; }
  function sqlHref(state, row) { return State.href(State.merge(state, sqlState(row))); }

  // -- the tables of several views -------------------------------------------------------------------------------

  function loadProfileTable(ctx, parts, root) {
    return table(ctx, parts, root, { id: "load-profile", title: "Load Profile", pageLength: 25,
      columns: [TEXT("metric", "Metric"), NUM("per_second", "Per second"), NUM("per_transaction", "Per transaction"),
        NUM("per_exec", "Per exec"), NUM("per_call", "Per call"), NUM("total", "Total")] });
  }

  function topEventsTable(ctx, parts, root) {
    return table(ctx, parts, root, { id: "top-events", title: "Top events (foreground, with DB CPU)", order: [],
      columns: [TEXT("event", "Event"), TEXT("wait_class", "Wait class"), NUM("waits", "Waits"),
        NUM("time_s", "Time", "s"), NUM("avg_ms", "Avg wait", "ms"), NUM("pct_db_time", "% DB time", "%")],
      // an event's row opens how its waits were spread (histogram-views.js)
      onRow: function (r) { if (r.wait_class !== "CPU") { State.set({ view: "histogram", event: r.event }); } } });
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
      columns: [{ key: "sql_id", title: "SQL ID", type: "link", href: function (row) { return sqlHref(ctx.state, row); } },
        Tables.container,
        NUM("elapsed_s", "Elapsed", "s"), NUM("cpu_s", "CPU", "s"), NUM("executions", "Executions"),
        NUM("elapsed_per_exec_ms", "Elapsed/exec", "ms"), NUM("buffer_gets", "Buffer gets"), NUM("disk_reads", "Disk reads"),
        NUM("pct_db_time", "% DB time", "%"), { key: "plan_hash_values", title: "Plans", type: "plans" },
        TEXT("module", "Module"), { key: "sql_text", title: "SQL text", type: "text", clip: true }],
      onRow: function (row) { State.set(sqlState(row)); } });
    t.orderSelect = select;
    return t;
  }

  function loadTopSql(ctx, t) {
    t.orderSelect.value = ctx.state.order || "elapsed";
    t.load(Api.get(Dbs.path(ctx.db, "/top-sql"), Object.assign({ order_by: ctx.state.order, limit: cfg.topSqlLimit || 25 },
      ctx.win.params)).then(function (b) { return b.rows; }));
  }

  // -- the views ------------------------------------------------------------------------------------------------

  /** A view about what the database's history does not keep: a note saying so, in place of the view. */
  function notKept(root, text) {
    var card = element("div", { "class": "card", id: "not-kept", role: "note" });
    card.appendChild(element("p", {}, text));
    root.appendChild(card);
    return card;
  }

  /** The overview's AAS chart from the snapshots or, aas=ash in the link, from Active Session History (its
   * tool button switches). */
  function aasChart(ctx, parts, grid, id, inst) {
    var sampled = ctx.db.source !== "statspack";  // Statspack keeps no ASH (docs/awr-rules.md §31)
    var ash = sampled && ctx.state.aas === "ash";
    var c = chart(ctx, parts, grid, { id: id, wide: true, stacked: true, bucket: true, height: 280, prefetch: !ash,
      title: "Average active sessions by wait class" + (inst === "all" ? "" : " · instance " + inst) +
        (ash ? " · Active Session History" : ""),
      load: ash ? Loaders.activity(ctx, { by: "wait_class", instance: inst, cpu: true }) : Loaders.waitClasses(ctx, inst) });
    var toggle = element("button", { type: "button", "data-act": "ash", "aria-pressed": String(ash),
      title: "Draw from Active Session History (samples every 10 s) instead of the snapshots" }, "ASH");
    toggle.addEventListener("click", function () { State.set({ aas: ash ? null : "ash" }); });
    if (!sampled) {
      toggle.disabled = true;
      toggle.title = ctx.db.name + "'s history is Statspack, which keeps no Active Session History: the chart is the snapshots'";
    }
    var tools = c.card.querySelector(".tools");
    tools.insertBefore(toggle, tools.firstChild);
  }

  /** What the normal band (≈) compares with (docs/awr-rules.md §32): the 4 weeks before, or an AWR baseline
   * (§33), `band_ref` in the link; picked, the view's bands are drawn against it. Listed where the database keeps
   * baselines (AWR). */
  function bandReference(ctx, root) {
    if (ctx.db.source === "statspack") { return; }  // Statspack keeps no named ranges (docs/awr-rules.md §31)
    var form = element("form", { "class": "card wide band-ref", "aria-label": "Normal band" });
    form.appendChild(element("label", { "for": "band-ref" }, "Normal band (≈) against "));
    var select = element("select", { id: "band-ref" });
    select.appendChild(element("option", { value: "" }, "the same hour of the 4 weeks before"));
    form.appendChild(select);
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    root.appendChild(form);
    var zone = Dbs.zoneOf(ctx.state, ctx.db);
    Api.get(Dbs.path(ctx.db, "/baselines"), {}, { silent: true }).then(function (body) {
      body.rows.filter(function (r) { return r.from && r.to; }).forEach(function (r) {
        select.appendChild(element("option", { value: r.name }, "the same hour of the day in baseline " + r.name +
          " (" + F.fmtTime(Date.parse(r.from), zone) + " → " + F.fmtTime(Date.parse(r.to), zone) + ")"));
      });
      select.value = ctx.state.band_ref || "";
    }, function () { select.disabled = true; });
    select.addEventListener("change", function () { State.set({ band_ref: select.value || null }); });
  }

  Views.add("overview", {
    title: "Overview",
    key: function (state) { return [state.aas === "ash" ? "ash" : "", state.band_ref]; },
    build: function (ctx, parts, root) {
      var grid = element("div", { "class": "grid" });
      root.appendChild(grid);
      var insts = ctx.state.inst === "each" ? ctx.db.instances.map(function (i) { return String(i.instance_number); }) : [ctx.state.inst];
      insts.forEach(function (inst) { aasChart(ctx, parts, grid, "aas" + (insts.length > 1 ? "-" + inst : ""), inst); });
      chart(ctx, parts, grid, { id: "host-cpu", third: true, title: "Host CPU", detail: true, yMax: 100,
        band: true, load: Loaders.series(ctx, ["derived:host_cpu_pct", "derived:host_iowait_pct"]) });
      chart(ctx, parts, grid, { id: "io", third: true, title: "I/O requests and throughput", detail: true,
        band: true, load: Loaders.series(ctx, ["derived:iops", "derived:io_mbps"]) });
      chart(ctx, parts, grid, { id: "calls", third: true, title: "Transactions and executions", detail: true,
        band: true, load: Loaders.series(ctx, ["derived:tps", "derived:executions"]) });
      bandReference(ctx, grid);  // under the charts it concerns
      parts.lp = loadProfileTable(ctx, parts, grid);
      parts.events = topEventsTable(ctx, parts, grid);
      parts.sql = topSqlTable(ctx, parts, grid);
    },
    update: function (ctx, parts) {
      setWindows(ctx, parts);
      var p = Object.assign({ instance: tableInstance(ctx.state) }, ctx.win.params);
      parts.lp.load(Api.get(Dbs.path(ctx.db, "/load-profile"), p).then(function (b) { return b.rows; }));
      parts.events.load(Api.get(Dbs.path(ctx.db, "/top-events"), p).then(function (b) { return b.rows; }));
      loadTopSql(ctx, parts.sql);
    }
  });

  Views.add("explorer", {
    title: "Metric explorer",
    defaults: function (state) {
      var patch = {};
      if (!state.series || !state.series.length) { patch.series = ["derived:aas"]; }
      if (!RATES[state.rate]) { patch.rate = "per_second"; }
      return patch;
    },
    key: function (state) { return [state.series.join("\n"), state.rate, state.band_ref]; },
    build: function (ctx, parts, root) {
      var max = cfg.maxSeries, series = ctx.state.series;
      var form = element("form", { "class": "card explorer-form", "aria-label": "Series on the chart" });
      var row = element("div", { "class": "row" });
      row.appendChild(element("label", { "for": "series-search" }, "Add a series"));
      var input = element("input", { id: "series-search", type: "search", autocomplete: "off", role: "combobox",
        "aria-autocomplete": "list", "aria-controls": "catalog-matches", "aria-expanded": "false",
        placeholder: "words of a name or description, any order: log file sync, redo, Host CPU", size: "48" });
      row.appendChild(input);
      row.appendChild(element("button", { type: "submit" }, "Add"));
      row.appendChild(element("label", { "for": "rate" }, "Counters"));
      var rate = element("select", { id: "rate" });
      Object.keys(RATES).forEach(function (k) { rate.appendChild(element("option", { value: k }, RATES[k])); });
      rate.value = ctx.state.rate;
      rate.addEventListener("change", function () { State.set({ rate: rate.value }); });
      row.appendChild(rate);
      form.appendChild(row);
      // the catalog's matches, as the API finds them (every word, any order; the closest names for a typo)
      var list = element("ul", { id: "catalog-matches", role: "listbox", "class": "matches", "aria-label": "Matching series" });
      list.hidden = true;
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
      var known = null, matches = [], active = -1, asked = 0, timer = null;
      Loaders.catalog(ctx.db).then(function (cat) {
        known = AWRLens.Dom.table();
        cat.rows.forEach(function (r) { known[r.name] = r; });
        note.textContent = cat.count + " series in the catalog. Each instance: one line per instance (Instances above). " +
          "Per-minute detail replaces sysmetric series when the window is " + (cfg.detailMaxHours || 6) + " hours or less.";
      }).catch(function (err) { note.textContent = "The catalog could not be loaded: " + err.message; });
      var add = function (name) {
        if (known && !known[name]) { note.textContent = "No series named \u201c" + name + "\u201d: pick one from the list."; return; }
        if (series.indexOf(name) >= 0) { note.textContent = name + " is already on the chart."; return; }
        if (series.length >= max) { note.textContent = "At most " + max + " series on one chart."; return; }
        State.set({ series: series.concat([name]) });
      };
      var choose = function (k) {
        active = k;
        Array.prototype.forEach.call(list.querySelectorAll("[role=option]"), function (li, i) {
          li.setAttribute("aria-selected", String(i === k));
        });
        if (k >= 0) { input.setAttribute("aria-activedescendant", "match-" + k); } else { input.removeAttribute("aria-activedescendant"); }
      };
      var show = function (q, rows, close) {
        list.textContent = "";
        matches = rows.slice(0, 12).map(function (r) { return r.name; });
        rows.slice(0, 12).forEach(function (r, i) {
          var li = element("li", { role: "option", id: "match-" + i, "aria-selected": "false" });
          li.appendChild(element("span", { "class": "name" }, r.name));
          li.appendChild(element("span", { "class": "meta" }, r.label + " · " + r.unit + " · " + r.kind));
          li.addEventListener("mousedown", function (e) { e.preventDefault(); add(r.name); });
          list.appendChild(li);
        });
        if (rows.length > matches.length) {
          list.appendChild(element("li", { "class": "more" }, (rows.length - matches.length) + " more: add words to narrow"));
        }
        if (!rows.length) {
          var none = element("li", { "class": "none" }, "No series has every word of \u201c" + q + "\u201d." +
            (close.length ? " Did you mean: " : ""));
          close.forEach(function (name) {
            var b = element("button", { type: "button", "class": "suggest" }, name);
            b.addEventListener("mousedown", function (e) { e.preventDefault(); input.value = name; search(); });
            none.appendChild(b);
          });
          list.appendChild(none);
        }
        list.hidden = false;
        input.setAttribute("aria-expanded", "true");
        choose(-1);
      };
      var hide = function () { list.hidden = true; input.setAttribute("aria-expanded", "false"); choose(-1); };
      var search = function () {
        var q = input.value.trim(), mine = ++asked;
        if (!q) { hide(); return; }
        Api.get(Dbs.path(ctx.db, "/catalog"), { q: q }).then(function (body) {
          if (mine === asked) { show(q, body.rows, body.did_you_mean || []); }
        }).catch(function (err) { note.textContent = "The catalog could not be searched: " + err.message; });
      };
      input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(search, 120); });
      input.addEventListener("blur", hide);
      input.addEventListener("keydown", function (e) {
        if (e.key === "ArrowDown" || e.key === "ArrowUp") {
          e.preventDefault();
          if (list.hidden) { search(); return; }
          var k = active + (e.key === "ArrowDown" ? 1 : -1);
          choose(Math.max(-1, Math.min(matches.length - 1, k)));
        } else if (e.key === "Escape") {
          hide();
        } else if (e.key === "Enter" && active >= 0) {
          e.preventDefault();
          add(matches[active]);
        }
      });
      form.addEventListener("submit", function (e) {
        e.preventDefault();
        var name = input.value.trim();
        if (!name) { return; }
        add(known && !known[name] && matches.length === 1 ? matches[0] : name);
      });
      var grid = element("div", { "class": "grid" });
      root.appendChild(grid);
      bandReference(ctx, root);  // under the charts, which the grid gets once their units are known
      // one chart, with an axis per unit; more than two units: one small chart per unit (small multiples)
      var load = Loaders.series(ctx, series, { rate: ctx.state.rate });
      parts.ready = load(ctx.win, Charts.detailed(ctx.win)).then(function (res) {
        return res.datasets.map(function (d) { return d.unit; }).filter(function (u, k, all) { return all.indexOf(u) === k; });
      }, function () { return []; }).then(function (units) {
        if (units.length <= 2) {
          chart(ctx, parts, grid, { id: "explorer", title: "Metric explorer", wide: true, height: 360, detail: true, band: true,
            load: load });
          return;
        }
        units.forEach(function (u, i) {
          chart(ctx, parts, grid, { id: "explorer-" + (i + 1), title: "Metric explorer · " + (F.unitTitle(u) || "no unit"),
            height: 260, detail: true, band: true, load: function (range, detail, how) {
              return load(range, detail, how).then(function (res) {
                return Object.assign({}, res, { datasets: res.datasets.filter(function (d) { return d.unit === u; }) });
              });
            } });
        });
      });
    },
    update: function (ctx, parts) { parts.ready.then(function () { setWindows(ctx, parts); }); }
  });

  /** In a CDB root, whose rows the detail holds: one container's, or every container's summed. */
  function containersNote(b) {
    var names = b.containers.map(function (c) { return c.container || String(c.con_dbid); });
    if (b.con_dbid !== null && b.con_dbid !== undefined) {
      var one = b.containers.filter(function (c) { return c.con_dbid === b.con_dbid; })[0];
      return " · container " + (one ? one.container : b.con_dbid);
    }
    return names.length ? " · summed over containers " + names.join(", ") : "";
  }

  // the dimensions a statement's activity is stacked by in SQL detail (GET /activity?sql_id=)
  var SQL_ACTIVITY = AWRLens.Dom.table({ event: "event", session: "session", sql_plan_hash_value: "plan",
    module: "module", instance: "instance" });

  /** The statement's average active sessions over the window from Active Session History, stacked by event (or
   * session, plan, module, instance: `by` in the link), with a link to Top activity filtered by it. */
  function sqlActivity(ctx, parts, grid) {
    var by = SQL_ACTIVITY[ctx.state.by] ? ctx.state.by : "event";
    var form = element("form", { "class": "card wide activity-form", "aria-label": "The statement's activity" });
    form.appendChild(element("label", { "for": "sql-activity-by" }, "Its activity by "));
    var select = element("select", { id: "sql-activity-by" });
    Object.keys(SQL_ACTIVITY).forEach(function (k) { select.appendChild(element("option", { value: k }, SQL_ACTIVITY[k])); });
    select.value = by;
    select.addEventListener("change", function () { State.set({ by: select.value === "event" ? null : select.value }); });
    form.appendChild(select);
    form.appendChild(element("a", { href: State.href(State.merge(ctx.state, { view: "activity", sql: null, con: null,
      filter: ["sql_id:" + ctx.state.sql], by: by })), "class": "row-link" }, "Open in Top activity"));
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    grid.appendChild(form);
    chart(ctx, parts, grid, { id: "sql-activity", wide: true, stacked: true, height: 260, prefetch: false,
      title: "Average active sessions of this statement by " + SQL_ACTIVITY[by] + " · Active Session History",
      load: Loaders.activity(ctx, { by: by, filters: { sql_id: ctx.state.sql } }) });
  }

  Views.add("sql", {
    title: "SQL detail",
    key: function (state) {
      return [state.sql || "", state.con || "", state.plan || "", state.plan_b || "", state.by || ""];
    },
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
        return Api.get(Dbs.path(ctx.db, "/sql/" + encodeURIComponent(ctx.state.sql)),
          Object.assign({ max_points: cfg.maxPoints, shape: "axes", con_dbid: ctx.state.con }, Loaders.bounds(ctx.db, range)))
          .then(Loaders.unpack);
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
                    instance: "all", points: s.points.length < cfg.maxPoints ? Loaders.broken(s.points, ctx.db.step)
                      : s.points, color: Charts.PALETTE[(i < 0 ? 0 : i) % Charts.PALETTE.length] };
                }) };
            });
          } });
      });
      if (ctx.db.source === "statspack") {  // docs/awr-rules.md §31
        grid.appendChild(element("p", { "class": "note wide", id: "sql-statspack" }, ctx.db.name + "'s history is " +
          "Statspack: its summaries of this statement above, its plans (snapshots of level 6 and higher) below; " +
          "Statspack keeps no Active Session History, SQL monitor reports or bind values."));
      } else {
        sqlActivity(ctx, parts, grid);
      }
      parts.plans = table(ctx, parts, grid, { id: "sql-plans", title: "Plans in this range", wide: true,
        columns: [{ key: "plan_hash_value", title: "Plan hash value", type: "text" }, NUM("executions", "Executions"),
          NUM("elapsed_s", "Elapsed", "s"), NUM("elapsed_per_exec_ms", "Elapsed/exec", "ms"),
          { key: "first_seen", title: "First seen", type: "time" }, { key: "last_seen", title: "Last seen", type: "time" },
          NUM("snapshots", "Snapshots")] });
      parts.monitor = ctx.db.source === "statspack" ? null : AWRLens.OracleReports.monitored(ctx, parts, grid);
      AWRLens.PlanViews.build(ctx, parts, grid);  // plans, plan diff and binds: plan-views.js
    },
    update: function (ctx, parts) {
      setWindows(ctx, parts);
      if (!ctx.state.sql) { loadTopSql(ctx, parts.sql); return; }
      if (parts.monitor) { parts.monitor.update(ctx); }
      var body = Api.get(Dbs.path(ctx.db, "/sql/" + encodeURIComponent(ctx.state.sql)),
        Object.assign({ max_points: cfg.maxPoints, con_dbid: ctx.state.con }, ctx.win.params));
      body.then(function (b) {
        parts.text.textContent = b.sql_text || (ctx.db.source === "statspack" ? "(no text in STATS$SQLTEXT)" :
          "(no text captured in AWR)");
        parts.meta.textContent = "Module: " + (b.module || "—") + " · " + b.plans.length + " plan(s) in this range" +
          containersNote(b);
      }).catch(function (err) { parts.meta.textContent = "Could not load this statement: " + err.message; });
      parts.plans.load(body.then(function (b) { return b.plans; }));
      AWRLens.PlanViews.update(ctx, parts);
    }
  });

  Views.add("tablespaces", {
    title: "Tablespaces",
    key: function (state) { return [state.ts || "", state.con || ""]; },
    build: function (ctx, parts, root) {
      if (ctx.db.source === "statspack") {  // docs/awr-rules.md §31
        parts.notKept = notKept(root, ctx.db.name + "'s history is Statspack, which keeps no tablespace usage " +
          "(AWR's DBA_HIST_TBSPC_SPACE_USAGE has no Statspack twin).");
        return;
      }
      var grid = element("div", { "class": "grid" });
      root.appendChild(grid);
      var answer = function (params) {
        return Api.get(Dbs.path(ctx.db, "/tablespaces"), Object.assign({ max_points: cfg.maxPoints, shape: "axes" }, params))
          .then(Loaders.unpack);
      };
      var same = function (a, b) { return a.tablespace === b.tablespace && (!a.container || a.con_dbid === b.con_dbid); };
      var chosen = function (body) {  // the one in the link (in its container, in a CDB root), or the fullest
        if (ctx.state.ts) { return { tablespace: ctx.state.ts, container: ctx.state.con, con_dbid: Number(ctx.state.con) }; }
        var rows = body.rows.slice().sort(function (a, b) { return (b.used_pct_of_max || 0) - (a.used_pct_of_max || 0); });
        return rows.length ? rows[0] : null;
      };
      var ahead = null;  // the end of the projection drawn (ms), past the range's end
      var c = chart(ctx, parts, grid, { id: "tablespace", wide: true, height: 300,
        title: "Tablespace size over time: used, allocated and maximum, and when used reaches the maximum at the range's growth" +
          (ctx.state.ts ? " · " + ctx.state.ts : ""),
        xMax: function () { return ahead; },
        load: function (range) {
          var iso = function (ms) { return F.isoTime(ms, Dbs.zone(ctx.db)); };
          return answer({ from: iso(range.from), to: iso(range.to) }).then(function (body) {
            var ts = chosen(body), style = { used: ["#1f77b4", true, []], size: ["#2ca02c", false, []], max: ["#d62728", false, [6, 4]],
              forecast: ["#1f77b4", false, [3, 3]] };
            var lines = ts ? body.series.filter(function (s) { return same(ts, s); }) : [];
            // the row's projection (§16): from the last used size to the maximum, where that is within a year
            var row = ts ? body.rows.filter(function (r) { return same(ts, r); })[0] : null;
            // drawn from the window shown only: the windows fetched beside it (charts.js) project from their own ends
            var own = c && c.win && range.from < c.win.to && range.to >= c.win.to;  // the load that holds its end
            var projection = own && row && row.projection && row.projection.length ? row.projection.map(function (p) {
              return [Date.parse(p[0]), p[1]];
            }) : null;
            if (own) { ahead = projection ? projection[1][0] : null; }
            // the maximum drawn on to where the projection meets it (a copy: the answer is shared, api.js)
            var drawnOn = function (s) {
              var last = s.points[s.points.length - 1];
              return own && ahead && s.metric === "max" && last ? s.points.concat([[ahead, last[1]]]) : s.points;
            };
            var drawn = lines.map(function (s) { return { metric: s.metric, s: s, points: drawnOn(s) }; });
            if (projection) { drawn.push({ metric: "forecast", s: lines[0] || row, points: projection }); }
            return { markers: {}, downsampled: lines.some(function (s) { return s.points.length >= cfg.maxPoints; }),
              datasets: drawn.map(function (d) {
                return { key: d.metric, label: (d.s.container ? d.s.container + " " : "") + d.s.tablespace + " " +
                  ({ size: "allocated", forecast: "used, projected" }[d.metric] || d.metric), unit: "MB",
                  instance: "all", points: d.points, color: style[d.metric][0], fill: style[d.metric][1], dash: style[d.metric][2] };
              }) };
          });
        } });
      parts.ts = table(ctx, parts, grid, { id: "tablespaces", title: "Tablespaces at the end of the range", wide: true,
        pageLength: 25, columns: [TEXT("tablespace", "Tablespace"), Tables.container, TEXT("contents", "Contents"), NUM("used_mb", "Used", "MB"),
          NUM("size_mb", "Allocated", "MB"), NUM("max_mb", "Maximum", "MB"), NUM("used_pct_of_max", "Used of max", "%"),
          NUM("growth_mb", "Growth in range", "MB"), NUM("growth_mb_per_day", "Growth per day", "MB"),
          TEXT("forecast", "Reaches its maximum")],
        onRow: function (row) { State.set({ ts: row.tablespace, con: row.container ? String(row.con_dbid) : null }); } });
      parts.answer = answer;
    },
    update: function (ctx, parts) {
      if (parts.notKept) { return; }
      setWindows(ctx, parts);
      parts.ts.load(parts.answer(ctx.win.params).then(function (b) { return b.rows; }));
    }
  });

  // what the other history views (histogram-views.js, segment-views.js) build their cards with
  AWRLens.HistoryViews = { chart: chart, table: table, setWindows: setWindows, about: about, notKept: notKept };
}(window.AWRLens = window.AWRLens || {}));
