/* AWRLens.State: the whole view state, kept in a readable URL query, e.g.
 *   ?db=demo.3120466125&inst=each&view=explorer&from=2026-11-13T07:00+01:00&to=2026-11-14T07:00+01:00&tz=db
 *    &series=derived:aas&series=sysstat:redo+size&rate=per_second
 * Each user action is one history entry (pushState), so Back and Forward walk through views and ranges.
 * A range is one of: `range` (1d, 7d, 45d: relative to the newest snapshot), `from` + `to` (absolute, with the
 * database's offset), or `begin_snap` + `end_snap`.
 * Benchmark views need no database or range: a run is `?view=run&run=<slug>`, a comparison
 * `?view=runs&runs=<slug>&runs=<slug>`.
 * Top activity (ASH): `by` is the dimension the chart is stacked by, each `filter` one dimension's value
 * (`filter=sql_id:5nmsw1pnfy5n5&filter=event:enq: TX - row lock contention`: the name, a colon, the value as the
 * API gives it); `groups` the dimensions of its ashtop table (`groups=module,action`; sql_id,event when absent);
 * `aas=ash` draws the overview's AAS chart from ASH instead of the snapshots.
 * Oracle reports: the range's snapshots are the report's; `b_begin_snap` + `b_end_snap` a second range to compare
 * with, `rtype=text` the text report instead of HTML.
 * SQL detail: `plan` is the plan hash value shown, `plan_b` the one compared with it line by line, `mon` the SQL
 * monitor report open (its report id; set without a history entry of its own, as a table's own choices are not).
 * Event histogram: `event` is the wait event's name. Segments: `stat` is the statistic they are ranked by, `seg` the
 * segment charted (OBJ#.DATAOBJ#). `changes=hide`: what changed (changes.js) hidden on every time chart (the Δ tool).
 * Not in the link, on purpose: the theme (light or dark: the reader's preference, kept in this browser by theme.js;
 * a link shows the same data in the reader's own colours); the API key (a secret: never in a URL, api.js); what one
 * card's own tools change for the moment: a chart's log axis and the series its legend hides, a table's own sort,
 * search and page (they name a card rather than the view, and a view drawn again starts them afresh); and a form's
 * fields until it is submitted (the report form's, the runs ticked to compare). */
(function (AWRLens) {
  "use strict";
  var KEYS = ["db", "inst", "view", "run", "runs", "range", "from", "to", "begin_snap", "end_snap", "tz", "series",
    "rate", "sql", "con", "plan", "plan_b", "order", "ts", "a_from", "a_to", "b_from", "b_to", "by", "filter", "aas",
    "rtype", "b_begin_snap", "b_end_snap", "event", "stat", "seg", "changes", "groups", "live", "mon", "band_ref"];
  var MULTI = { series: true, runs: true, filter: true };
  var RANGE_KEYS = ["range", "from", "to", "begin_snap", "end_snap"];
  var current = {};
  var listeners = [];

  function parse(search) {
    var params = new URLSearchParams(search);
    var state = {};
    KEYS.forEach(function (key) {
      var values = params.getAll(key).filter(function (v) { return v !== ""; });
      if (MULTI[key]) {
        if (values.length) { state[key] = values; }
      } else if (values.length) {
        state[key] = values[0];
      }
    });
    return state;
  }

  /** The query string of a state: keys in a fixed order, values readable. */
  function serialize(state) {
    var ordered = {};
    KEYS.forEach(function (key) { if (state[key] !== undefined) { ordered[key] = state[key]; } });
    var q = AWRLens.Api.query(ordered);
    return q ? "?" + q : "";
  }

  /** The state with patch applied: null or undefined removes a key; a new range removes the other kinds. */
  function merge(base, patch) {
    var next = Object.assign({}, base);
    if (RANGE_KEYS.some(function (k) { return patch[k] !== undefined && patch[k] !== null; })) {
      RANGE_KEYS.forEach(function (k) { delete next[k]; });
    }
    Object.keys(patch).forEach(function (key) {
      var v = patch[key];
      if (v === null || v === undefined || (Array.isArray(v) && !v.length)) { delete next[key]; } else { next[key] = v; }
    });
    return next;
  }

  function emit(prev, how) {
    listeners.forEach(function (fn) { fn(current, prev, how); });
  }

  /** Apply a change: "push" (a new history entry, the default), "replace" (same entry) or "silent" (no event). */
  function set(patch, how) {
    how = how || "push";
    var prev = current;
    current = merge(current, patch);
    var qs = serialize(current);
    if (qs !== location.search) {
      if (how === "push") { history.pushState(null, "", location.pathname + qs); } else { history.replaceState(null, "", location.pathname + qs); }
    }
    if (how !== "silent") { emit(prev, how); }
  }

  /** The full URL of a state (defaults to the current one). */
  function href(state) {
    return location.origin + location.pathname + serialize(state || current);
  }

  window.addEventListener("popstate", function () {
    var prev = current;
    current = parse(location.search);
    emit(prev, "pop");
  });

  AWRLens.State = {
    init: function () { current = parse(location.search); return current; },
    get: function () { return current; },
    set: set,
    merge: merge,
    href: href,
    parse: parse,
    serialize: serialize,
    onChange: function (fn) { listeners.push(fn); },
    RANGE_KEYS: RANGE_KEYS,
    KEYS: KEYS,
    MULTI: MULTI
  };
}(window.AWRLens = window.AWRLens || {}));
