/* AWRLens.Databases: the databases the API lists, as the views use them (zone, first and last snapshot,
 * instances), and the time window a state asks for: a preset ending at the newest snapshot, absolute times in the
 * database's zone, or a snapshot range. */
(function (AWRLens) {
  "use strict";
  var F = AWRLens.Format, Api = AWRLens.Api;
  var DAY = 86400000;
  var PRESETS = AWRLens.Dom.table({ "1d": 1, "7d": 7, "45d": 45 });
  var list = [], byId = AWRLens.Dom.table();

  function describe(d) {
    return {
      id: d.id, name: d.db_name, dbid: d.dbid, rac: d.rac, instances: d.instances, source: d.source, imported: !!d.imported,
      offset: F.offsetOf(d.snapshots.to), first: Date.parse(d.snapshots.from), last: Date.parse(d.snapshots.to),
      firstSnap: d.snapshots.first_snap, lastSnap: d.snapshots.last_snap, step: d.snapshots.interval_minutes
    };
  }

  /** The API path of a question about db, e.g. path(db, "/series"). */
  function path(db, p) { return "/dbs/" + encodeURIComponent(db.id) + p; }

  function zone(db) { return F.zone(db.offset); }

  /** The zone times are shown in: the database's, or the browser's. */
  function zoneOf(state, db) { return state.tz === "browser" ? "local" : zone(db); }

  /** A time from a link (ISO 8601, the database's zone when it has no offset) in ms, or NaN. */
  function parseTime(value, db) {
    return value ? window.luxon.DateTime.fromISO(value, { zone: zone(db) }).toMillis() : NaN;
  }

  /** The window of a state: {from, to (ms), params (for the API's tables), zone, limits}. */
  function resolveWindow(state, db) {
    var base = { zone: zoneOf(state, db), limits: { min: db.first, max: db.last } };
    var iso = function (ms) { return F.isoTime(ms, zone(db)); };
    if (state.begin_snap) {
      return Api.get(path(db, "/snapshots"), { begin_snap: state.begin_snap, end_snap: state.end_snap,
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

  AWRLens.Databases = {
    DAY: DAY,
    PRESETS: PRESETS,
    /** Keep the API's list of databases (GET /dbs); returns them as described here. */
    set: function (databases) {
      list = databases.map(describe);
      byId = AWRLens.Dom.table();
      list.forEach(function (d) { byId[d.id] = d; });
      return list;
    },
    list: function () { return list; },
    get: function (id) { return byId[id]; },
    path: path,
    zone: zone,
    zoneOf: zoneOf,
    parseTime: parseTime,
    resolveWindow: resolveWindow
  };
}(window.AWRLens = window.AWRLens || {}));
