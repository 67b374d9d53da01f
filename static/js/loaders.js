/* AWRLens.Loaders: the history API's answers as chart data. A loader is what a time chart asks for its window:
 *   load({from, to}, detail) -> Promise of {datasets, markers, downsampled} (see charts.js). */
(function (AWRLens) {
  "use strict";
  var F = AWRLens.Format, Api = AWRLens.Api, Charts = AWRLens.Charts, Dbs = AWRLens.Databases;
  var cfg = window.AWRLENS_CONFIG || {};
  var CLASS_COLORS = AWRLens.Dom.table({  // Enterprise Manager's colours for the wait classes
    "DB CPU": "#2ca02c", "CPU Wait": "#9ee07a", "User I/O": "#1f5fd6", "System I/O": "#3fa7e8", "Concurrency": "#8b1a00",
    "Application": "#c02800", "Commit": "#e46800", "Configuration": "#5c440b", "Administrative": "#717354",
    "Network": "#9f9371", "Cluster": "#c9bfae", "Queueing": "#c2b79b", "Scheduler": "#9fbfa7", "Other": "#f06eaa"
  });
  var TWINS = AWRLens.Dom.table({  // per-minute sysmetric history of the dashboard's series
    "derived:aas": "Average Active Sessions", "derived:host_cpu_pct": "Host CPU Utilization (%)",
    "derived:tps": "User Transaction Per Sec", "derived:executions": "Executions Per Sec",
    "derived:iops": "I/O Requests per Second", "derived:io_mbps": "I/O Megabytes per Second"
  });
  var catalogs = AWRLens.Dom.table();

  /** The answer with every series' points as [ms, value], from either shape the API gives (the page asks for
   * shape=axes: each list of times comes once, and is parsed once). */
  function unpack(body) {
    if (body.$unpacked) { return body; }  // the API module hands a cached answer to every caller
    body.$unpacked = true;
    var parsed = (body.axes || []).map(function (times) { return times.map(Date.parse); });
    (body.series || []).concat(body.cpu_count || []).forEach(function (s) {
      s.points = s.values ? s.values.map(function (v, i) { return [parsed[s.axis][i], v]; })
        : s.points.map(function (p) { return [Date.parse(p[0]), p[1]]; });
    });
    return body;
  }

  /** ms -> {instances, missing} of the combined points that sum fewer instances than the range holds. */
  function partial(s) {
    var out = AWRLens.Dom.table();
    (s.partial || []).forEach(function (p) { out[Date.parse(p.time)] = { instances: p.instances, missing: p.missing }; });
    return out;
  }

  /** The window as the API's from and to, as the tables of the same window ask: a range by time is the intervals
   * that end in (from, to] (docs/awr-rules.md §12), so a chart has the point at the window's first snapshot and
   * windows side by side leave no point out between them. */
  function bounds(db, range) {
    var iso = function (ms) { return F.isoTime(ms, Dbs.zone(db)); };
    return { from: iso(range.from), to: iso(range.to) };
  }

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

  /** The catalog of a database's series, asked for once. */
  function catalog(db) {
    if (!catalogs[db.id]) {
      catalogs[db.id] = Api.get(Dbs.path(db, "/catalog")).catch(function (err) { delete catalogs[db.id]; throw err; });
    }
    return catalogs[db.id];
  }

  function twinOf(name) {
    if (TWINS[name]) { return "sysmetric_history:" + TWINS[name]; }
    return name.indexOf("sysmetric:") === 0 ? "sysmetric_history:" + name.slice(10) : null;
  }

  /** Series of the catalog over a window; with detail, their per-minute twins where the window has them.
   * The names are asked for in requests of at most the API's maxSeries each. */
  function series(ctx, names, opts) {
    opts = opts || {};
    var inst = ctx.state.inst, each = inst === "each";
    return function (range, detail, how) {
      var twins = {}, band = how && how.band ? 1 : null;
      var ready = detail ? catalog(ctx.db).then(function (cat) {
        var known = new Set(cat.rows.map(function (r) { return r.name; }));
        names.forEach(function (n) { var t = twinOf(n); if (t && known.has(t)) { twins[n] = t; } });
      }) : Promise.resolve();
      return ready.then(function () {
        var all = names.concat(Object.keys(twins).map(function (n) { return twins[n]; })), chunks = [];
        for (var i = 0; i < all.length; i += cfg.maxSeries) { chunks.push(all.slice(i, i + cfg.maxSeries)); }
        var win = bounds(ctx.db, range);
        return Promise.all(chunks.map(function (chunk) {
          return Api.get(Dbs.path(ctx.db, "/series"), { name: chunk, from: win.from, to: win.to,
            instance: inst, rate: opts.rate, max_points: cfg.maxPoints, shape: "axes", band: band,
            band_baseline: band && ctx.state.band_ref ? ctx.state.band_ref : null }).then(unpack);
        }));
      }).then(function (answers) {
        var all = [].concat.apply([], answers.map(function (a) { return a.series; }));
        var find = function (name, instance) {
          return all.find(function (s) { return s.name === name && s.instance === instance; });
        };
        var datasets = [], k = 0;
        names.forEach(function (name) {
          all.filter(function (s) { return s.name === name; }).forEach(function (base) {
            var twin = twins[name] && find(twins[name], base.instance);
            var use = twin && twin.points.length ? twin : base;
            datasets.push({ key: name + "|" + base.instance, instance: base.instance,
              label: base.label + (each ? " · inst " + base.instance : "") + (use === twin ? " · per minute" : ""),
              unit: base.unit, points: use.points, partial: partial(use),
              color: Charts.PALETTE[k % Charts.PALETTE.length] });
            if (base.band) { datasets.push.apply(datasets, normalBand(datasets[datasets.length - 1], base.band)); }
            k += 1;
          });
        });
        // per-minute history asked for but not kept this far back: say why there is no detail
        var minute = all.filter(function (s) { return s.name.indexOf("sysmetric_history:") === 0; });
        var notice = minute.length && minute.every(function (s) { return !s.points.length; })
          ? "No per-minute detail in this window: AWR keeps the per-minute history (sysmetric history) for recent " +
            "days only" + (Object.keys(twins).length ? "; the snapshot values are shown." : ".") : "";
        // what the normal band leaves out, and why (docs/awr-rules.md §32)
        var unbanded = all.filter(function (s) { return s.band && s.band.reason; });
        if (unbanded.length) { notice = (notice ? notice + " " : "") + "Normal band: " + unbanded[0].band.reason + "."; }
        return { datasets: datasets, markers: answers[0].markers, notice: notice,
          downsampled: all.some(function (s) { return s.points_total > s.points.length; }) };
      });
    };
  }

  /** A series' normal band (docs/awr-rules.md §32) as datasets drawn with it: p10, p10 to p90 shaded, the median
   * dashed, and the hours whose own value lies outside their band marked at it (an hour stamped at its end). */
  function normalBand(line, band) {
    var times = band.times.map(Date.parse);
    var at = function (q) { return times.map(function (t, i) { return [t, band[q][i]]; }); };
    var outside = at("value").filter(function (p, k) {
      return band.p10[k] !== null && (p[1] < band.p10[k] || p[1] > band.p90[k]);
    });
    var base = { unit: line.unit, instance: line.instance, color: line.color, partial: AWRLens.Dom.table() };
    return [
      Object.assign({}, base, { key: line.key + "|p10", label: line.label + " · normal p10", points: at("p10"), thin: true }),
      Object.assign({}, base, { key: line.key + "|p90", label: line.label + " · normal p90 (p10 to p90 shaded)",
        points: at("p90"), thin: true, fill: "-1", alpha: "33" }),
      Object.assign({}, base, { key: line.key + "|p50", label: line.label + " · normal median", points: at("p50"),
        dash: [4, 4], thin: true }),
      Object.assign({}, base, { key: line.key + "|outside", label: line.label + " · outside its normal band",
        points: outside, marks: true, color: "--worse" })  // the hour's own value, where it is outside
    ];
  }

  /** AAS by wait class, stacked, with DB CPU at the bottom, CPU Wait (the run queue) above it and a line at the CPU
   * count. */
  function waitClasses(ctx, instance) {
    return function (range) {
      var win = bounds(ctx.db, range);
      return Api.get(Dbs.path(ctx.db, "/wait-classes"), { from: win.from, to: win.to, instance: instance,
        max_points: cfg.maxPoints, shape: "axes" }).then(unpack).then(function (body) {  // buckets shared by every class
        var datasets = body.series.map(function (s, i) {
          return { key: s.name + "|" + s.instance, label: s.label, unit: s.unit, instance: s.instance, points: s.points,
            partial: partial(s),
            fill: i ? "-1" : "origin", stack: "aas", color: CLASS_COLORS[s.label] || Charts.PALETTE[i % Charts.PALETTE.length] };
        });
        (body.cpu_count || []).forEach(function (s) {
          datasets.push({ key: "cpus|" + s.instance, label: "CPU count", unit: s.unit, instance: s.instance,
            points: s.points, stack: "cpus", color: "--ink", dash: [6, 4], order: -1 });
        });
        // which AAS this is (issue 31): the snapshots' time model and waits, not ASH's samples
        return { datasets: datasets, markers: body.markers, notice: "From the snapshots: DB time by wait class " +
            "(foreground waits), DB CPU, and CPU Wait (DB time − DB CPU − the waits: sessions queued for a CPU).",
          downsampled: body.series.some(function (s) { return s.points_total > s.points.length; }) };
      });
    };
  }

  /** Seconds as a bucket's width: 10 s, 2 min, 1 h, 1 day. */
  function seconds(n) {
    if (n >= 86400 && n % 86400 === 0) { return n / 86400 + (n === 86400 ? " day" : " days"); }
    if (n >= 3600 && n % 3600 === 0) { return n / 3600 + " h"; }
    if (n >= 60 && n % 60 === 0) { return n / 60 + " min"; }
    return F.fmtValue(n) + " s";
  }

  var OTHERS = "others (beyond the top 10)";  // the API's "other": every group after its top 10

  /** A group of an ASH answer as the page names it (a group without a value, e.g. samples without a SQL ID). */
  function groupLabel(name) { return name === null || name === undefined ? "(none)" : String(name); }

  /** Average active sessions from Active Session History (GET /activity, docs/awr-rules.md §22), stacked by
   * opts.by (the top 10 groups and "other"), narrowed by opts.filters ({dimension: value}), for opts.instance;
   * with the CPU count (derived:num_cpus) when opts.cpu. The API reads a window by sample time, wherever the
   * snapshots fall (docs/awr-rules.md §22). Each window is its own top 10 at its own bucket width, so the answer is
   * marked downsampled: a zoom or a pan asks again. */
  function activity(ctx, opts) {
    var filters = opts.filters || {}, filtered = Object.keys(filters).length > 0;
    return function (range) {
      var db = ctx.db, iso = function (ms) { return F.isoTime(ms, Dbs.zone(db)); }, live = opts.live && opts.live();
      if (live) { return liveActivity(db, opts, range, live, filtered); }
      var win = { from: iso(Math.max(db.first, range.from)), to: iso(Math.min(db.last, range.to)) };
      var ash = Api.get(Dbs.path(db, "/activity"), activityParams(opts, win.from, win.to)).then(unpack);
      var cpus = opts.cpu ? Api.get(Dbs.path(db, "/series"), { name: "derived:num_cpus", from: win.from, to: win.to,
        instance: opts.instance, max_points: cfg.maxPoints, shape: "axes" }, { silent: true }).then(unpack)
        .catch(function () { return null; }) : Promise.resolve(null);  // a line to read against: never an error
      return Promise.all([ash, cpus]).then(function (answers) {
        var body = answers[0], res = { datasets: [], markers: {}, downsampled: true, answer: body };
        if (!body.total_samples) {
          res.notice = body.reason ? "No Active Session History here: " + body.reason + "." : filtered
            ? "No Active Session History sample in this window matches the filters."
            : "No Active Session History in this window: AWR keeps its ASH samples for fewer days than its " +
              "snapshots. Pick a more recent window.";
          return res;
        }
        res.datasets = body.series.map(function (s, i) {
          var rest = i >= 10 && s.name === "other", label = rest ? OTHERS : groupLabel(s.label !== undefined ? s.label : s.name);  // the API's top 10
          return { key: "ash|" + (rest ? "" : "=") + label, label: label, unit: s.unit, instance: opts.instance || "all",
            points: s.points, fill: i ? "-1" : "origin", stack: "aas", color: rest ? "#a8a8a8"
              : (opts.by === "wait_class" && CLASS_COLORS[s.name === "CPU" ? "DB CPU" : s.name]) ||
                Charts.PALETTE[i % Charts.PALETTE.length] };
        });
        var cpu = answers[1] && answers[1].series[0];
        if (cpu && cpu.points.length) {
          res.datasets.push({ key: "cpus|" + cpu.instance, label: "CPU count", unit: cpu.unit, instance: cpu.instance,
            points: cpu.points, stack: "cpus", color: "--ink", dash: [6, 4], order: -1 });  // the theme's ink
        }
        var notes = ["Active Session History: " + seconds(body.bucket_seconds) + " buckets of samples taken every " +
          seconds(body.sample_seconds) + "."];
        // the oldest samples AWR still keeps start inside the window: nothing is drawn before them (docs/awr-rules.md
        // §22: the API gives those buckets no value), and the chart says why
        if (body.ash_from) {
          notes.push("AWR keeps Active Session History from " + F.fmtTime(Date.parse(body.ash_from), Dbs.zoneOf(ctx.state, db)) +
            " only: the chart is empty before it (no samples kept there, which is not no activity).");
        }
        res.notice = notes.join(" ");
        return res;
      });
    };
  }

  /** The params of Top activity's chart (GET /activity) for opts and a window of ISO times. */
  function activityParams(opts, from, to) {
    return Object.assign({ from: from, to: to, group_by: opts.by, instance: opts.instance, shape: "axes" }, opts.filters || {});
  }

  /** Top activity's chart over the live buffer (ash=live, docs/awr-rules.md §30): the window the view resolved with
   * its first answer (live.body, used as it is), or a zoom inside it asked again; no CPU count (the snapshots end
   * before the buffer starts). */
  function liveActivity(db, opts, range, live, filtered) {
    var iso = function (ms) { return F.isoTime(ms, Dbs.zone(db)); };
    var same = live.from === range.from && live.to === range.to;
    var answer = same ? Promise.resolve(live.body) : Api.get(Dbs.path(db, "/activity"),
      Object.assign({ ash: "live" }, activityParams(opts, iso(range.from), iso(range.to)))).then(unpack);
    return answer.then(function (body) {
      var res = { datasets: [], markers: {}, downsampled: true, answer: body };
      if (!body.total_samples) {
        res.notice = filtered ? "No sample of the live buffer in this window matches the filters." :
          "No sample in the live buffer in this window: no session was active.";
        return res;
      }
      res.datasets = body.series.map(function (s, i) {
        var rest = i >= 10 && s.name === "other", label = rest ? OTHERS : groupLabel(s.label);
        return { key: "ash|" + (rest ? "" : "=") + label, label: label, unit: s.unit, instance: opts.instance || "all",
          points: s.points, fill: i ? "-1" : "origin", stack: "aas", color: rest ? "#a8a8a8"
            : (opts.by === "wait_class" && CLASS_COLORS[s.name === "CPU" ? "DB CPU" : s.name]) ||
              Charts.PALETTE[i % Charts.PALETTE.length] };
      });
      res.notice = "Live: GV$ACTIVE_SESSION_HISTORY's one-second samples in " + seconds(body.bucket_seconds) +
        " buckets." + (body.live && body.live.aged_out ? " Note: " + body.live.aged_out + "." : "");
      return res;
    });
  }

  AWRLens.Loaders = {
    activity: activity,
    activityParams: activityParams,
    groupLabel: groupLabel,
    OTHERS: OTHERS,
    seconds: seconds,
    unpack: unpack,
    partial: partial,
    bounds: bounds,
    broken: broken,
    catalog: catalog,
    series: series,
    waitClasses: waitClasses
  };
}(window.AWRLens = window.AWRLens || {}));
