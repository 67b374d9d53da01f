/* Oracle's own reports (issues 13, 14; docs/awr-rules.md §27), apart from the app's own report: the "Oracle reports"
 * view opens Oracle's AWR report of a snapshot range (one instance; on RAC with every instance, the global report),
 * or the compare-periods report of two ranges, as HTML or text, and downloads it; in SQL detail,
 * AWRLens.OracleReports.monitored() lists the statement's monitored executions, each opening its SQL monitor report.
 *
 * A report is markup Oracle rendered from database text: it never becomes part of this page. HTML goes in an iframe
 * whose sandbox attribute is empty (no allow-scripts, no allow-same-origin): it runs no script, submits no form,
 * opens no window, and its document has an opaque origin, which can reach neither this page nor its storage nor the
 * API key. Text goes in a <pre> as textContent.
 * Why srcdoc: the API wants its key in a header, which an iframe's src cannot send, and a key in a URL leaks
 * (history, logs, Referer). So the page fetches the report with the header (Api.fetchDocument) and hands the text
 * to the iframe as srcdoc; the empty sandbox keeps the srcdoc document in an opaque origin all the same (a Blob URL
 * would do as well, with one more object to revoke). The API serves the report with `Content-Security-Policy:
 * sandbox` too, for when it is opened on its own. A download is the fetched text saved as a Blob under the API's
 * file name (database, instances, snapshots). */
(function (AWRLens) {
  "use strict";
  var Api = AWRLens.Api, State = AWRLens.State, Tables = AWRLens.Tables, Dbs = AWRLens.Databases;
  var Views = AWRLens.Views;
  var element = AWRLens.Dom.element, NUM = Tables.num, TEXT = Tables.text;
  var KINDS = AWRLens.Dom.table({ report: "AWR report", global: "AWR RAC (global) report", diff: "AWR compare periods",
    global_diff: "AWR RAC compare periods" });

  /** A viewer card: a title, a Download button, and the report shown inertly. show(promise of a document). */
  function viewer(container, id, title) {
    var card = element("section", { "class": "card wide report-viewer", "data-report": id, "data-state": "empty",
      "aria-labelledby": "h-" + id });
    var head = element("header", { "class": "card-head" });
    var h = element("h3", { id: "h-" + id }, title);
    var download = element("button", { type: "button", "class": "report-download", disabled: "" }, "Download");
    head.appendChild(h);
    head.appendChild(download);
    card.appendChild(head);
    var status = element("p", { "class": "status", role: "status", "aria-live": "polite" }, "");
    var body = element("div", { "class": "report-body" });
    card.appendChild(status);
    card.appendChild(body);
    container.appendChild(card);
    var current = null, gen = 0;
    download.addEventListener("click", function () { if (current) { save(current); } });
    return {
      card: card,
      show: function (what, promise) {
        var mine = ++gen;
        current = null;
        download.disabled = true;
        card.setAttribute("data-state", "loading");
        status.textContent = "Loading " + what + "…";
        status.classList.remove("is-error");
        return promise.then(function (doc) {
          if (mine !== gen) { return; }
          current = doc;
          body.textContent = "";
          body.appendChild(doc.type === "html" ? frame(doc, what) : text(doc, what));
          status.textContent = what + (doc.filename ? " · " + doc.filename : "");
          download.disabled = false;
          card.setAttribute("data-state", "ready");
        }).catch(function (err) {
          if (mine !== gen) { return; }
          body.textContent = "";
          status.textContent = "Could not open " + what + ": " + err.message;
          status.classList.add("is-error");
          card.setAttribute("data-state", "error");
        });
      },
      clear: function (message) {
        gen += 1;
        current = null;
        download.disabled = true;
        body.textContent = "";
        status.textContent = message || "";
        card.setAttribute("data-state", "empty");
      }
    };
  }

  /* The policy the API serves the report with (app/api/oracle_reports.py CSP), but sandbox, which a <meta> cannot
   * give (the iframe's sandbox attribute does): the sandbox stops scripts, not loads, so without it an <img>,
   * stylesheet, <object> or frame the report names would be fetched by the viewer's browser. */
  var POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

  /** Oracle's HTML, inert: sandbox set (empty) before the document is given, so it never runs unsandboxed, and the
   * policy first in it, so the parser puts it in the head before anything the document loads or a <base> it sets. */
  function frame(doc, what) {
    var f = element("iframe", { sandbox: "", referrerpolicy: "no-referrer", "class": "report-frame", title: what });
    f.srcdoc = "<meta http-equiv=\"Content-Security-Policy\" content=\"" + POLICY + "\">" + doc.text;
    return f;
  }

  function text(doc, what) {
    var pre = element("pre", { "class": "report-text", tabindex: "0", "aria-label": what });
    pre.textContent = doc.text;
    return pre;
  }

  /** Save a fetched report as a file, under the API's name. */
  function save(doc) {
    var blob = new Blob([doc.text], { type: doc.type === "html" ? "text/html" : "text/plain" });
    var address = URL.createObjectURL(blob);
    var a = element("a", { href: address, download: doc.filename || ("report." + (doc.type === "html" ? "html" : "txt")) });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(address); }, 1000);
  }

  /** The instances of a report from the page's picker: all (each too) or one instance number. */
  function instanceOf(state) { return state.inst === "each" || !state.inst ? "all" : state.inst; }

  function snapInput(id, label, fs) {
    fs.appendChild(element("label", { "for": id }, label));
    var input = element("input", { id: id, type: "number", min: "0", step: "1", required: "", inputmode: "numeric" });
    fs.appendChild(input);
    return input;
  }

  Views.add("oracle-reports", {
    title: "Oracle reports",
    key: function () { return []; },
    build: function (ctx, parts, root) {
      if (ctx.db.source === "statspack") {  // docs/awr-rules.md §31
        parts.notKept = AWRLens.HistoryViews.notKept(root, ctx.db.name + "'s history is Statspack: Oracle's AWR and " +
          "SQL monitor reports need AWR (the Diagnostics Pack). The Report button makes awrlens's own report of the " +
          "range from Statspack.");
        return;
      }
      var form = element("form", { "class": "card oracle-report-form", "aria-label": "Oracle's AWR report: snapshots" });
      form.appendChild(element("h2", {}, "Oracle's AWR report"));
      var a = element("fieldset", {});
      a.appendChild(element("legend", {}, "Snapshots"));
      parts.begin = snapInput("awr-begin-snap", "Begin snap", a);
      parts.end = snapInput("awr-end-snap", "End snap", a);
      form.appendChild(a);
      var b = element("fieldset", {});
      var legend = element("legend", {});
      parts.compare = element("input", { id: "awr-compare", type: "checkbox" });
      legend.appendChild(parts.compare);
      legend.appendChild(element("label", { "for": "awr-compare" }, "Compare with"));
      b.appendChild(legend);
      parts.begin2 = snapInput("awr-b-begin-snap", "Begin snap", b);
      parts.end2 = snapInput("awr-b-end-snap", "End snap", b);
      form.appendChild(b);
      form.appendChild(element("label", { "for": "awr-type" }, "As"));
      parts.type = element("select", { id: "awr-type" });
      [["html", "HTML"], ["text", "text"]].forEach(function (t) { parts.type.appendChild(element("option", { value: t[0] }, t[1])); });
      form.appendChild(parts.type);
      form.appendChild(element("button", { type: "submit" }, "Open report"));
      parts.note = element("p", { "class": "note" }, "");
      form.appendChild(parts.note);
      var toggle = function () {
        [parts.begin2, parts.end2].forEach(function (i) { i.disabled = !parts.compare.checked; i.required = parts.compare.checked; });
      };
      parts.compare.addEventListener("change", toggle);
      form.addEventListener("submit", function (e) {
        e.preventDefault();
        if (!form.reportValidity()) { return; }
        var cmp = parts.compare.checked;
        State.set({ begin_snap: parts.begin.value, end_snap: parts.end.value, rtype: parts.type.value === "text" ? "text" : null,
          b_begin_snap: cmp ? parts.begin2.value : null, b_end_snap: cmp ? parts.end2.value : null });
      });
      root.appendChild(form);
      parts.toggle = toggle;
      var grid = element("div", { "class": "grid" });
      root.appendChild(grid);
      parts.stored = Tables.create(grid, { id: "awr-stored", title: "Reports this store keeps", wide: true,
        columns: [TEXT("label", "Report"), TEXT("instances", "Instances"), Tables.id("begin_snap", "Begin snap"),
          Tables.id("end_snap", "End snap"), { key: "b_begin_snap", title: "Compared with, begin", type: "id", optional: true },
          { key: "b_end_snap", title: "end", type: "id", optional: true }, TEXT("types", "As")],
        onRow: function (r) {
          State.set({ begin_snap: String(r.begin_snap), end_snap: String(r.end_snap),
            b_begin_snap: r.b_begin_snap ? String(r.b_begin_snap) : null, b_end_snap: r.b_end_snap ? String(r.b_end_snap) : null,
            inst: r.instances.indexOf(",") > 0 || !ctx.db.rac ? "all" : r.instances });
        } });
      parts.tables.push(parts.stored);
      parts.viewer = viewer(grid, "awr-report", "Report");
      Api.get(Dbs.path(ctx.db, "/awr-report/stored"), {}).then(function (body) {
        if (body.any_range) {
          parts.stored.card.hidden = true;
          parts.note.textContent = "The database renders the report of any range (DBMS_WORKLOAD_REPOSITORY; the " +
            "grant is optional: infra/oracle/create_user.sql). An AWR report cannot span an instance restart.";
          return;
        }
        parts.note.textContent = "The demo keeps Oracle's report for the ranges listed below: pick one.";
        parts.stored.setRows(body.reports.map(function (r) {
          return Object.assign({}, r, { label: KINDS[r.kind] || r.kind, instances: r.instances.join(","), types: r.types.join(", ") });
        }));
      }).catch(function (err) { parts.stored.setState("error", "Could not list the reports: " + err.message); });
    },
    update: function (ctx, parts) {
      if (parts.notKept) { return; }
      var s = ctx.state;
      parts.type.value = s.rtype === "text" ? "text" : "html";
      parts.compare.checked = !!(s.b_begin_snap && s.b_end_snap);
      parts.begin2.value = s.b_begin_snap || "";
      parts.end2.value = s.b_end_snap || "";
      parts.toggle();
      var snaps = ctx.win.snaps ? Promise.resolve(ctx.win.snaps) : Api.get(Dbs.path(ctx.db, "/snapshots"),
        Object.assign({ instance: ctx.db.instances[0].instance_number }, ctx.win.params)).then(function (body) {
        return [body.range.begin_snap, body.range.end_snap];
      });
      snaps.then(function (ids) {
        parts.begin.value = ids[0] === null || ids[0] === undefined ? "" : ids[0];
        parts.end.value = ids[1] === null || ids[1] === undefined ? "" : ids[1];
      }).catch(function () { /* the range shows its own error */ });
      if (!s.begin_snap || !s.end_snap) {
        parts.viewer.clear("Choose the snapshots (the range's are filled in) and open the report.");
        return;
      }
      var compare = !!(s.b_begin_snap && s.b_end_snap), type = s.rtype === "text" ? "text" : "html";
      var params = compare ? { a_begin_snap: s.begin_snap, a_end_snap: s.end_snap, b_begin_snap: s.b_begin_snap,
        b_end_snap: s.b_end_snap } : { begin_snap: s.begin_snap, end_snap: s.end_snap };
      Object.assign(params, { instance: instanceOf(s), type: type });
      var what = (compare ? "AWR compare-periods report " : "AWR report ") + ctx.db.name + " · snapshots " + s.begin_snap +
        "–" + s.end_snap + (compare ? " and " + s.b_begin_snap + "–" + s.b_end_snap : "") +
        (instanceOf(s) === "all" ? "" : " · instance " + instanceOf(s));
      parts.viewer.show(what, Api.fetchDocument(Dbs.path(ctx.db, compare ? "/awr-report/compare" : "/awr-report"), params));
    }
  });

  /** SQL detail: the monitored executions of the statement in the range (SQL monitor reports AWR kept), a click
   * opening one's report below; {update(ctx)} reloads the list for a new range. Where the range holds none, a note
   * says so instead of an empty table (Oracle monitors an execution after 5 s of CPU or I/O, or in parallel). */
  function monitored(ctx, parts, grid) {
    var box = element("div", { "class": "wide sql-monitor" });
    grid.appendChild(box);
    var note = element("p", { "class": "note" }, "");
    box.appendChild(note);
    var holder = element("div", {});
    box.appendChild(holder);
    var t = null, gen = 0;
    var view = viewer(box, "sql-monitor-report", "SQL monitor report");
    view.card.hidden = true;
    var lines = null;  // the execution's ASH samples per plan line, under its report
    var open = function (r) {
      State.set({ mon: String(r.report_id) }, "silent");  // in the link: it reopens this report
      view.card.hidden = false;
      view.show("SQL monitor report of " + ctx.state.sql + " · execution " + r.sql_exec_id + " on instance " + r.instance,
        Api.fetchDocument(Dbs.path(ctx.db, "/sql-monitor/" + encodeURIComponent(r.report_id)),
          { snap_id: r.snap_id, type: ctx.state.rtype === "text" ? "text" : "html" }));
      if (!lines) {
        lines = Tables.create(box, { id: "sql-monitor-lines", wide: true, sortable: false, pageLength: 25,
          title: "Active Session History of this execution's window, per plan line",
          columns: [TEXT("line", "Plan line"), TEXT("object_name", "Object"), NUM("samples", "Samples"),
            NUM("pct_samples", "Of the samples", "%"), NUM("pct_cpu", "CPU", "%"), NUM("pct_wait", "Wait", "%")] });
        parts.tables.push(lines);
      }
      // the statement's samples between the execution's start and end, by sample time (docs/awr-rules.md §22);
      // ASH keeps one sample in ten: a short execution may have few or none
      lines.load(Api.get(Dbs.path(ctx.db, "/sql/" + encodeURIComponent(ctx.state.sql) + "/plans"), {
        from: r.start, to: r.end
      }).then(function (b) {
        var plan = b.plans.find(function (p) { return String(p.plan_hash_value) === String(r.plan_hash_value); });
        return plan ? plan.lines.map(function (l) {  // none where AWR kept no plan (a PL/SQL block has none)
          return Object.assign({}, l, { line: "\u00a0\u00a0".repeat(l.depth || 0) + l.id + " " + l.operation +
            (l.options ? " " + l.options : "") });
        }) : [];
      }));
    };
    var table = function () {
      t = Tables.create(holder, { id: "sql-monitor", title: "Monitored executions (SQL monitor reports)", wide: true,
        zone: function () { return Dbs.zoneOf(ctx.state, ctx.db); }, order: [[0, "asc"]],
        columns: [{ key: "start", title: "Start", type: "time" }, { key: "end", title: "End", type: "time" },
          NUM("duration_s", "Duration", "s"), TEXT("status", "Status"), NUM("instance", "Instance"),
          TEXT("sql_exec_id", "SQL exec ID"), NUM("elapsed_s", "Elapsed", "s"), NUM("cpu_s", "CPU", "s"),
          NUM("buffer_gets", "Buffer gets"), TEXT("plan_hash_value", "Plan hash value"), Tables.id("report_id", "Report ID")],
        onRow: open });
      parts.tables.push(t);
    };
    return {
      update: function (c) {
        var mine = ++gen;
        ctx = c;
        Api.get(Dbs.path(c.db, "/sql/" + encodeURIComponent(c.state.sql) + "/monitor"),
          Object.assign({ instance: instanceOf(c.state), con_dbid: c.state.con }, c.win.params), { silent: true }).then(function (b) {
          if (mine !== gen) { return; }
          var rows = b.rows.map(function (r) {
            return Object.assign({}, r, { sql_exec_id: String(r.sql_exec_id),
              plan_hash_value: r.plan_hash_value === null ? null : String(r.plan_hash_value) });
          });
          note.textContent = rows.length ? "" : "No monitored execution of this statement in this range (SQL monitor " +
            "reports: executions of at least 5 s of CPU or I/O, or parallel; 12c and later).";
          if (rows.length && !t) { table(); }
          if (t) {
            t.card.hidden = !rows.length;
            if (rows.length) { t.setRows(rows); } else { parts.tables.splice(parts.tables.indexOf(t), 1); t.destroy(); t = null; }
          }
          // the report the link names, when this range lists it (else said, as a plan not of the statement is)
          var named = c.state.mon && rows.find(function (r) { return String(r.report_id) === c.state.mon; });
          if (named) {
            open(named);
          } else if (c.state.mon) {
            note.textContent = "The SQL monitor report " + c.state.mon + " in the link is not one of this range's " +
              "monitored executions of the statement." + (rows.length ? "" : " " + note.textContent);
          }
        }).catch(function (err) {
          if (mine === gen) { note.textContent = "Could not list the monitored executions: " + err.message; }
        });
      }
    };
  }

  AWRLens.OracleReports = { monitored: monitored, viewer: viewer };
}(window.AWRLens = window.AWRLens || {}));
