/* The SQL detail's drill-down (issue 13): the statement's execution plans as indented plan tables with the time
 * of its ASH samples by plan line beside each line, two plans side by side with the lines that differ marked, and
 * its captured bind values. The plan shown (`plan`) and the one compared with it (`plan_b`) are in the link. Plan
 * text, predicates and bind values are database text: shown as text (Tables renders every text cell as text).
 * The answers come from GET /sql/{sql_id}/plans, /plans/diff, /plans/xplan and /binds (docs/awr-rules.md §26, §34). */
(function (AWRLens) {
  "use strict";
  var Api = AWRLens.Api, State = AWRLens.State, Tables = AWRLens.Tables, Dbs = AWRLens.Databases;
  var element = AWRLens.Dom.element, NUM = Tables.num, TEXT = Tables.text;
  /** A predicate column: long predicates wrap in the cell, anywhere (they often hold no space). */
  function WRAP(key, title) { return Object.assign(TEXT(key, title), { wrap: true }); }

  /** The diff's title: both plans by their hash values. */
  function diffTitle(a, b) { return "Plan " + (a || "(the busiest)") + " (A) and plan " + b + " (B), line by line"; }
  var INDENT = "\u00a0\u00a0";  // per plan depth, as DBMS_XPLAN indents
  var CHANGES = AWRLens.Dom.table({ same: "same", moved: "moved", changed: "changed", only_a: "only in A",
    only_b: "only in B" });

  /** A line's operation as a plan shows it: indented by its depth, with its options. */
  function step(line) {
    if (!line) { return null; }
    return new Array((line.depth || 0) + 1).join(INDENT) + [line.operation, line.options].filter(Boolean).join(" ");
  }

  function object(line) {
    return line && line.object_name ? [line.object_owner, line.object_name].filter(Boolean).join(".") : null;
  }

  function path(ctx, tail) {
    return Dbs.path(ctx.db, "/sql/" + encodeURIComponent(ctx.state.sql) + tail);
  }

  function table(ctx, parts, root, spec) {
    var t = Tables.create(root, Object.assign({ zone: function () { return Dbs.zoneOf(ctx.state, ctx.db); } }, spec));
    parts.tables.push(t);
    return t;
  }

  function picker(id, label, onChange) {
    var wrap = element("span", { "class": "plan-pick" });
    wrap.appendChild(element("label", { "for": id }, label));
    var select = element("select", { id: id });
    select.addEventListener("change", function () { onChange(select.value); });
    wrap.appendChild(select);
    return { wrap: wrap, select: select };
  }

  function options(select, values, chosen, none) {
    select.textContent = "";
    if (none) { select.appendChild(element("option", { value: "" }, none)); }
    values.forEach(function (v) { select.appendChild(element("option", { value: String(v) }, String(v))); });
    select.value = chosen === null || chosen === undefined ? "" : String(chosen);
  }

  function build(ctx, parts, grid) {
    var p = parts.planView = {};
    var form = element("form", { "class": "card wide plan-form", "aria-label": "Plans of this statement" });
    form.appendChild(element("h2", { id: "h-plan-choice" }, "Execution plans"));
    var row = element("div", { "class": "row" });
    p.pick = picker("plan-pick", "Plan ", function (v) { State.set({ plan: v || null }); });
    p.pickB = picker("plan-pick-b", "compared with ", function (v) { State.set({ plan_b: v || null }); });
    row.appendChild(p.pick.wrap);
    row.appendChild(p.pickB.wrap);
    form.appendChild(row);
    p.note = element("p", { "class": "note", role: "status", "aria-live": "polite" }, "Loading the plans…");
    form.appendChild(p.note);
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    grid.appendChild(form);
    // a plan's lines keep their tree order: a sort by a column would scramble the tree (sortable: false)
    p.lines = table(ctx, parts, grid, { id: "plan-lines", title: "Plan lines, with the statement's ASH samples on each in this window", wide: true, pageLength: 100, order: [], sortable: false,
      columns: [NUM("id", "Id"), TEXT("step", "Operation"), TEXT("object", "Object"), NUM("samples", "ASH samples"),
        NUM("pct_samples", "% of the statement's samples", "%"), NUM("pct_cpu", "On CPU", "%"), NUM("pct_wait", "Waiting", "%"),
        NUM("cost", "Cost"), NUM("cardinality", "Rows (est.)"), NUM("bytes", "Bytes (est.)", "bytes"),
        WRAP("access_predicates", "Access predicates"), WRAP("filter_predicates", "Filter predicates")],
      rowMark: function (r) { return r.samples ? "sampled" : null; } });
    // the plan shown as DBMS_XPLAN.DISPLAY_AWR prints it, to copy into a ticket (docs/awr-rules.md §34)
    var card = element("section", { "class": "card wide", "aria-labelledby": "h-plan-xplan" });
    var head = element("div", { "class": "row" });
    head.appendChild(element("h2", { id: "h-plan-xplan" }, "As DBMS_XPLAN.DISPLAY_AWR prints it"));
    p.copy = element("button", { type: "button", id: "plan-xplan-copy", disabled: "" }, "Copy");
    head.appendChild(p.copy);
    card.appendChild(head);
    p.xplan = element("pre", { "class": "report-text", id: "plan-xplan", tabindex: "0", "aria-label": "The plan as text" });
    card.appendChild(p.xplan);
    grid.appendChild(card);
    p.copy.addEventListener("click", function () {
      AWRLens.Dom.copyText(p.xplan.textContent, function () { p.copy.textContent = "Copied"; }, function () {
        window.getSelection().selectAllChildren(p.xplan);  // no clipboard here: selected, for Ctrl+C
        p.copy.textContent = "Selected: press Ctrl+C";
      });
    });
    if (ctx.state.plan_b) {
      p.diff = table(ctx, parts, grid, { id: "plan-diff", wide: true, pageLength: 100, order: [], sortable: false,
        title: diffTitle(ctx.state.plan, ctx.state.plan_b),  // A named once the plan shown is known (update)
        columns: [TEXT("change_label", "Change"), NUM("a_id", "A id"), TEXT("a_step", "A operation"),
          TEXT("a_object", "A object"), NUM("a_cost", "A cost"), WRAP("a_access", "A access predicates"),
          WRAP("a_filter", "A filter predicates"), NUM("b_id", "B id"), TEXT("b_step", "B operation"),
          TEXT("b_object", "B object"), NUM("b_cost", "B cost"), WRAP("b_access", "B access predicates"),
          WRAP("b_filter", "B filter predicates")],
        rowMark: function (r) { return r.change; } });
    }
    if (ctx.db.source === "statspack") { return; }  // Statspack keeps no bind values
    p.binds = table(ctx, parts, grid, { id: "sql-binds", title: "Captured bind values in this range", wide: true,
      order: [], columns: [{ key: "time", title: "Snapshot", type: "time" }, NUM("instance_number", "Instance"),
        NUM("position", "Position"), TEXT("name", "Name"), TEXT("datatype", "Data type"), TEXT("value", "Value"),
        TEXT("last_captured", "Captured at (database time)")] });
  }

  /** The plan with the most samples in the window. */
  function busiest(body) { return body.plans.slice().sort(function (x, y) { return y.samples - x.samples; })[0]; }

  /** The plan shown: the one in the link, else the busiest; none where the link names a plan the history lacks. */
  function shownPlan(body, chosen) {
    return body.plans.filter(function (x) { return String(x.plan_hash_value) === chosen; })[0] ||
      (chosen ? null : busiest(body));
  }

  function update(ctx, parts) {
    var p = parts.planView, chosen = ctx.state.plan, other = ctx.state.plan_b;
    var answer = Api.get(path(ctx, "/plans"), Object.assign({}, ctx.win.params));
    var shown = answer.then(function (body) {
      var hashes = body.plans.map(function (x) { return x.plan_hash_value; });
      var plan = shownPlan(body, chosen);
      options(p.pick.select, hashes, plan ? plan.plan_hash_value : chosen);
      options(p.pickB.select, hashes.filter(function (h) { return !plan || h !== plan.plan_hash_value; }), other,
        "(no other plan)");
      if (!body.plans.length) {
        p.note.textContent = body.reason || "No plan of this statement in AWR.";
      } else if (!plan) {
        p.note.textContent = "Plan " + chosen + " is not a plan of this statement; its plans: " + hashes.join(", ") + ".";
      } else {
        p.note.textContent = body.plans.length + " plan(s) in AWR; " + body.total_samples + " ASH sample(s) of this " +
          "statement in the window, " + plan.samples + " on plan " + plan.plan_hash_value + "." +
          (body.plans.length > 1 && !other ? " Pick a plan to compare it with, line by line." : "");
      }
      return plan ? plan.lines.map(function (line) {
        return Object.assign({ step: step(line), object: object(line) }, line);
      }) : [];
    });
    p.lines.load(shown);
    answer.then(function (body) {
      var plan = shownPlan(body, chosen);
      p.copy.textContent = "Copy";
      if (!plan) {
        p.xplan.textContent = "No plan to print.";
        p.copy.setAttribute("disabled", "");
        return;
      }
      Api.get(path(ctx, "/plans/xplan"), { plan_hash_value: plan.plan_hash_value }, { silent: true }).then(function (x) {
        p.xplan.textContent = x.text;  // database text: as text
        p.copy.removeAttribute("disabled");
      }, function (err) {
        p.xplan.textContent = "Could not print the plan: " + ((err && err.message) || "the request failed");
      });
    });
    if (p.diff) {
      p.diff.load(answer.then(function (body) {
        var a = shownPlan(body, chosen) || busiest(body);
        if (!a) { return []; }
        p.diff.setTitle(diffTitle(a.plan_hash_value, other));
        return Api.get(path(ctx, "/plans/diff"), { a: a.plan_hash_value, b: other }).then(function (d) {
          return d.rows.map(function (r) {
            return { change: r.change, change_label: CHANGES[r.change] || r.change, a_id: r.a && r.a.id,
              a_step: step(r.a), a_object: object(r.a), a_cost: r.a && r.a.cost, a_access: r.a && r.a.access_predicates,
              a_filter: r.a && r.a.filter_predicates, b_id: r.b && r.b.id, b_step: step(r.b),
              b_object: object(r.b), b_cost: r.b && r.b.cost, b_access: r.b && r.b.access_predicates,
              b_filter: r.b && r.b.filter_predicates };
          });
        });
      }));
    }
    if (p.binds) {
      p.binds.load(Api.get(path(ctx, "/binds"), Object.assign({}, ctx.win.params)).then(function (b) { return b.rows; }));
    }
  }

  AWRLens.PlanViews = { build: build, update: update, step: step };
}(window.AWRLens = window.AWRLens || {}));
