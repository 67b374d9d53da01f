/* The benchmark views, registered with the router (AWRLens.Views.add): the list of runs, one run, and runs
 * compared. They stand alone: no database, range or key needed for a public run, so its link can be sent to
 * anyone. Each run's measurements are drawn with the chart that fits its kind (runCharts, also AWRLens.Runs), the
 * same alone and compared, and listed raw. */
(function (AWRLens) {
  "use strict";
  var F = AWRLens.Format, Api = AWRLens.Api, State = AWRLens.State, Charts = AWRLens.Charts, Tables = AWRLens.Tables;
  var Controls = AWRLens.Controls, Views = AWRLens.Views;
  var element = AWRLens.Dom.element, NUM = Tables.num, TEXT = Tables.text;
  var cfg = window.AWRLENS_CONFIG || {};
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

  /** A row's note for tooltips: what the hang lab recorded about it (hang outcomes), or its extra attributes. */
  function note(row) {
    var e = row.extra || {};
    if (e.outcome) { return e.outcome; }
    if (e.still_hanging) { return "still hanging" + (e.note ? ": " + e.note : ""); }
    return e.note || e.setting || e.error || "";
  }

  /** What a run chart shows, for its PNG: each run's title, slug and when it ran. */
  function aboutRuns(runs) {
    return function () {
      return runs.map(function (r) { return r.title + " (" + r.slug + ")" + (r.started ? " · started " + r.started : ""); });
    };
  }

  var DASHES = [[], [6, 3], [2, 2], [8, 3, 2, 3], [12, 4]];
  var MARKERS = ["circle", "rect", "triangle", "rectRot", "crossRot", "star"];
  var SWEEP = 3;  // the fewest x values a line joins: a series of two sizes (8 KB and 1 MB) is two tests, two points

  /** What two series (before and after, A and B, defaults and settings) show, with the numbers: for each case, the
   * second against the first ("transactions/s: 101 /s → 136 /s (+34.7 %)"); a case that never ended says so. The
   * change is coloured by whether it is good for the measure, as compare periods colours one: its unit's direction
   * (Format.betterByUnit), its class Tables.direction's. The pieces of the chart's conclusion (charts-xy.js). */
  function conclusion(sets, cases) {
    if (sets.length !== 2) { return []; }
    var better = F.betterByUnit(sets[0].unit), pieces = [];
    cases.forEach(function (c) {
      var v = sets.map(function (d) {
        var k = d.points.findIndex(function (p) { return p[0] === c; });
        return k < 0 ? null : { y: d.points[k][1], open: d.open[k] };
      });
      if (!v[0] || !v[1]) { return; }
      var show = function (x) { return (x.open ? "more than " : "") + F.fmtValue(x.y, sets[0].unit); };
      pieces.push((pieces.length ? " · " : sets[0].label + " → " + sets[1].label + ": ") + c + ": " + show(v[0]) +
        " → " + show(v[1]));
      if (v[0].open || v[1].open) { return; }
      var pct = 100 * (v[1].y - v[0].y) / v[0].y;
      pieces.push(" (", { text: F.fmtChange(pct), tone: Tables.direction(pct, better), better: better }, ")");
    });
    return pieces;
  }

  /** The x axis of one run's rows in one unit, the same alone and compared: "sessions" (CPU consistency: parallel
   * sessions, a chart of its own), "sizes" (an I/O sweep's sizes in KB, logarithmic), "numbers" (linear) or
   * "categories" (a category axis, bars). */
  function axisOf(kind, rows) {
    if (!rows.every(function (r) { return typeof r.x === "number"; })) { return "categories"; }
    if (kind === "cpu_consistency") { return "sessions"; }
    return kind === "io_sweep" && rows.every(function (r) { return r.x > 0; }) ? "sizes" : "numbers";
  }

  /** CPU consistency: elapsed per session against N, every session as a point, the median as a line and the
   * fastest-to-slowest range shaded; one run: a colour per role, several: a colour per run. */
  function sessionsChart(id, rows, multi, color, slugOf) {
    var datasets = [], most = 1;
    unique(rows.map(slugOf)).forEach(function (slug, k) {
      var mine = rows.filter(function (r) { return slugOf(r) === slug; });
      var byN = {};
      mine.forEach(function (r) { (byN[r.x] = byN[r.x] || []).push(r.y); most = Math.max(most, r.x); });
      var ns = Object.keys(byN).map(Number).sort(function (a, b) { return a - b; });
      var sorted = ns.map(function (n) { return byN[n].slice().sort(function (a, b) { return a - b; }); });
      var tag = multi ? slug + " · " : "";
      // one run: a colour per role; several: a colour per run, the role told by the line's style
      var role = function (r) { return multi ? color(k) : color(r); };
      datasets.push({ label: tag + "every session", unit: mine[0].unit, show: "points", color: role(0),
        points: mine.map(function (r) { return [r.x, r.y]; }), fields: mine.map(function (r) { return r.extra || {}; }),
        notes: mine.map(function (r) { return r.extra && r.extra.session ? "session " + r.extra.session : ""; }) });
      datasets.push({ label: tag + "median", unit: mine[0].unit, show: "line", color: multi ? color(k) : "--ink",
        points: ns.map(function (n, i) { return [n, median(sorted[i])]; }) });
      datasets.push({ label: tag + "fastest", unit: mine[0].unit, show: "line", dash: [2, 2], color: role(2),
        points: ns.map(function (n, i) { return [n, sorted[i][0]]; }) });
      datasets.push({ label: tag + "slowest", unit: mine[0].unit, show: "line", dash: [6, 3], color: role(1), fill: "-1",
        points: ns.map(function (n, i) { return [n, sorted[i][sorted[i].length - 1]]; }) });
    });
    return { id: id, title: "Elapsed time per session against parallel sessions: every session, the median " +
      "and the fastest-to-slowest range", type: "scatter", wide: true, height: 380, datasets: datasets,
      x: { type: "linear", title: "parallel sessions (N)", min: 0, max: most + 1, step: 1 },
      y: { title: "elapsed per session (" + (rows[0].unit || "s") + ")" } };
  }

  /** One unit against one axis of axisOf but sessions: on numbers (I/O sizes...), one line per series (volume
   * type), points where a series has fewer than SWEEP x values; on categories (before/after, A/B, hang cases), one
   * bar per series, and what the two series show (conclusion). */
  function unitChart(id, unit, axis, kind, these, label, color) {
    var numeric = axis !== "categories", sizes = axis === "sizes";
    var names = unique(these.map(function (r) { return label(r, r.series); }));
    var sets = names.map(function (name, i) {
      var mine = these.filter(function (r) { return label(r, r.series) === name; });
      var line = numeric && unique(mine.map(function (r) { return r.x; })).length >= SWEEP;
      // lines told apart by colour, dash and marker, so that series drawn on top of each other still show
      return { label: name, unit: unit, color: color(i), show: !numeric ? "bar" : line ? "line" : "points",
        dash: line ? DASHES[i % DASHES.length] : undefined, pointStyle: MARKERS[i % MARKERS.length],
        radius: numeric && !line ? 5 : undefined,
        points: mine.map(function (r) { return [r.x, r.y]; }), notes: mine.map(note),
        open: mine.map(function (r) { return !!(r.extra && r.extra.still_hanging); }),
        fields: mine.map(function (r) { return r.extra || {}; }) };
    });
    var positive = these.every(function (r) { return r.y > 0; });
    var spread = positive && Math.max.apply(null, these.map(function (r) { return r.y; })) /
      Math.min.apply(null, these.map(function (r) { return r.y; })) > 50;
    var log = spread && (kind === "client_hang" || !numeric);
    var spec = { id: id, wide: true, height: 320, datasets: sets,
      conclusion: numeric ? [] : conclusion(sets, unique(these.map(function (r) { return r.x; }))),
      y: { title: F.unitTitle(unit) || "value", type: log ? "logarithmic" : "linear" } };
    if (numeric) {
      var lines = sets.every(function (d) { return d.show === "line"; });
      return Object.assign(spec, { type: "scatter", title: (F.unitTitle(unit) || "Value") + " against " +
        (sizes ? "I/O size" : "x") + (lines ? ", one line per series" : ""),
        x: { type: sizes ? "logarithmic" : "linear", title: sizes ? "I/O size (KB)" : "x" } });
    }
    return Object.assign(spec, { type: "bar", title: (BARS[kind] || "Values") + (unit ? " · " + F.unitTitle(unit) : ""),
      x: { type: "category", categories: unique(these.map(function (r) { return r.x; })) } });
  }

  /** The charts of a run, or of runs compared: each run's rows drawn against the axis its own chart has (axisOf),
   * one chart per axis and unit, so a comparison keeps each run's axis and never puts two units on one. */
  function runCharts(runs, rows) {
    var multi = runs.length > 1, kindOf = {}, axes = {};
    runs.forEach(function (r) { kindOf[r.slug] = r.kind; });
    var slugOf = function (r) { return r.run || runs[0].slug; };
    var unitOf = function (r) { return r.unit || ""; };
    var mineOf = function (r) { return slugOf(r) + "\n" + unitOf(r); };
    unique(rows.map(mineOf)).forEach(function (key) {
      var mine = rows.filter(function (r) { return mineOf(r) === key; });
      axes[key] = axisOf(kindOf[slugOf(mine[0])], mine);
    });
    var groupOf = function (r) { return axes[mineOf(r)] + "\n" + unitOf(r); };
    var label = function (row, name) { return multi ? row.run + " · " + name : name; };
    var color = function (i) { return Charts.PALETTE[i % Charts.PALETTE.length]; };
    var numbered = 0, sessions = 0;
    return unique(rows.map(groupOf)).map(function (group) {
      var these = rows.filter(function (r) { return groupOf(r) === group; }), axis = axes[mineOf(these[0])];
      if (axis === "sessions") {
        sessions += 1;
        return sessionsChart(sessions > 1 ? "run-cpu-" + sessions : "run-cpu", these, multi, color, slugOf);
      }
      numbered += 1;
      var kinds = unique(these.map(function (r) { return kindOf[slugOf(r)]; }));
      return unitChart("run-" + numbered, unitOf(these[0]), axis, kinds.length === 1 ? kinds[0] : "other", these,
        label, color);
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
      AWRLens.Dom.copyText(link, function () { button.textContent = "Link copied"; },
        function () { button.textContent = "Copy the link beside"; });
    });
    container.appendChild(button);
    container.appendChild(box);
  }

  /** Where a run or comparison could not be loaded: the API's message, and a key form when a key may open it (a
   * private run answers as an unknown one, 404, to a caller without the key). */
  function loadFailed(card, err) {
    var keyMayHelp = err.status === 401 || (err.status === 404 && !Api.hasKey());
    card.appendChild(element("p", { "class": "is-error" }, err.status === 401
      ? "This needs the API key: " + err.message
      : "Could not load this: " + err.message + (keyMayHelp ? ". A private run opens with the API key." : "")));
    if (keyMayHelp) { Controls.keyForm(card); }
    card.setAttribute("data-state", "error");
  }

  /** A form to compare `current` with one run more, while the API allows one more (maxCompareRuns). */
  function compareForm(container, current, label) {
    if (current.length >= cfg.maxCompareRuns) { return; }
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

  Views.add("benchmarks", {
    title: "Benchmarks",
    standalone: true,
    build: function (ctx, parts, root) {
      var intro = element("section", { "class": "card runs-intro" });
      intro.appendChild(element("h2", {}, "Benchmark runs"));
      intro.appendChild(element("p", { "class": "note" }, "Results recorded with `flask runs import`, `flask runs cpu`, " +
        "`flask runs hang` or POST /api/v1/benchmarks. Open a run for its chart and measurements, or tick several " +
        "and compare them on one chart."));
      var compare = element("button", { type: "button", id: "compare-selected", disabled: "" }, "Compare the selected runs");
      intro.appendChild(compare);
      root.appendChild(intro);
      var grid = element("div", { "class": "grid" });
      root.appendChild(grid);
      var chosen = [], picks = [];
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
            picks.forEach(function (other) {  // no more than the API compares at once
              other.disabled = !other.checked && chosen.length >= cfg.maxCompareRuns;
            });
          });
          picks.push(box);
          label.appendChild(box);
          label.appendChild(document.createTextNode(" " + r.slug));
          boxes.appendChild(label);
        });
        return body.rows.map(function (r) { return Object.assign({}, r, { kind: KINDS[r.kind] || r.kind }); });
      }));
      compare.addEventListener("click", function () { if (chosen.length) { State.set({ view: "runs", runs: chosen }); } });
    }
  });

  Views.add("run", {
    title: "Benchmark run",
    standalone: true,
    key: function (state) { return [state.run || ""]; },
    build: function (ctx, parts, root) {
      var slug = ctx.state.run;
      var head = element("section", { "class": "card run-head", "data-run": slug || "", "data-state": "loading",
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
        runCharts([run], body.rows).forEach(function (spec) {
          parts.charts.push(Charts.createXY(grid, Object.assign(spec, { about: aboutRuns([run]) })));
        });
        measurementsTable(parts, grid, body, false);
        head.setAttribute("data-state", "ready");
      }).catch(function (err) {
        loadFailed(head, err);
      });
    }
  });

  Views.add("runs", {
    title: "Compare benchmark runs",
    standalone: true,
    key: function (state) { return [(state.runs || []).join("\n")]; },
    build: function (ctx, parts, root) {
      var slugs = ctx.state.runs || [];
      var head = element("section", { "class": "card run-head", "data-state": "loading", "aria-labelledby": "h-runs" });
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
        var kinds = unique(body.runs.map(function (r) { return KINDS[r.kind] || r.kind; }));
        if (kinds.length > 1) {  // never two units on one axis
          head.appendChild(element("p", { "class": "note kinds" }, "Runs of different kinds (" + kinds.join(", ") +
            "): each run against its own x axis, a chart per axis and unit (" +
            unique(body.rows.map(function (r) { return F.unitTitle(r.unit) || "no unit"; })).join(", ") +
            "), never two units on one axis."));
        }
        var actions = element("div", { "class": "actions" });
        permalink(actions, { view: "runs", runs: slugs });
        head.appendChild(actions);
        compareForm(head, slugs, "Add a run");
        runCharts(body.runs, body.rows).forEach(function (spec) {
          parts.charts.push(Charts.createXY(grid, Object.assign(spec, { about: aboutRuns(body.runs) })));
        });
        measurementsTable(parts, grid, body, true);
        head.setAttribute("data-state", "ready");
      }).catch(function (err) {
        loadFailed(head, err);
      });
    }
  });

  /** The charts of runs (for the unit tests, tests/js/runs.test.js). */
  AWRLens.Runs = { charts: runCharts };
}(window.AWRLens = window.AWRLens || {}));
