/* AWRLens.Format: every value, time and file the page shows or writes goes through here. */
(function (AWRLens) {
  "use strict";
  var DateTime = window.luxon.DateTime;
  var BYTE_UNITS = ["bytes", "KB", "MB", "GB", "TB", "PB"];

  function digits(x) {
    var a = Math.abs(x);
    if (a === 0 || a >= 100) { return 0; }
    if (a >= 10) { return 1; }
    if (a >= 1) { return 2; }
    return a >= 0.01 ? 3 : 4;
  }

  var formats = [];  // Intl.NumberFormat per number of decimals: toLocaleString builds one per call, 50x slower
  function number(x, places) {
    var p = places === undefined ? digits(x) : places;
    if (!formats[p]) { formats[p] = new Intl.NumberFormat("en-US", { maximumFractionDigits: p }); }
    return formats[p].format(x);
  }

  var DURATION_UNITS = { "µs": 1e-6, us: 1e-6, ms: 1e-3, s: 1 };  // seconds in one of the unit
  var DURATION_STEPS = [[3600, "h"], [60, "min"], [1, "s"], [1e-3, "ms"], [1e-6, "µs"]];

  /** A time in the largest unit that shows it as 1 or more (1,232,084 ms is 20.5 min), never finer than its own. */
  function duration(value, unit) {
    var own = DURATION_UNITS[unit], seconds = Math.abs(value) * own;
    var step = DURATION_STEPS.find(function (s) { return seconds >= s[0] * 0.99995 || s[0] <= own; });
    return number(value * own / step[0]) + " " + (step[0] === own ? unit : step[1]);
  }

  /** One value with its unit, for tables, tooltips and labels: bytes and MB scaled, times in the largest unit that
   * shows them as 1 or more, % with one decimal. */
  function fmtValue(value, unit) {
    if (value === null || value === undefined || (typeof value === "number" && isNaN(value))) { return "—"; }
    if (typeof value !== "number") { return String(value); }
    unit = unit || "";
    var bytes = /^(bytes|MB)(\/s|\/txn)?$/.exec(unit);
    if (bytes) {
      var i = bytes[1] === "MB" ? 2 : 0, x = value;
      // 1,024 of a unit is one of the next: a value that would show as 1,024 once rounded (1,023.6) reads 1 GB too
      while (Math.round(Math.abs(x)) >= 1024 && i < BYTE_UNITS.length - 1) { x /= 1024; i += 1; }
      return number(x) + " " + BYTE_UNITS[i] + (bytes[2] || "");
    }
    if (DURATION_UNITS[unit]) { return duration(value, unit); }
    if (unit === "%") { return number(value, 1) + " %"; }
    if (/^1\//.test(unit)) { return number(value) + " /" + unit.slice(2); }  // "101 /s", not "101 1/s"
    return number(value) + (unit ? " " + unit : "");
  }

  /** A unit as an axis or a title names it: "1/s" is "per second". */
  function unitTitle(unit) {
    var per = { "1/s": "per second", "1/min": "per minute", "1/h": "per hour" };
    return per[unit] || unit;
  }

  /** Axis ticks: short (1.2k, 3.4M). */
  function fmtCompact(value) {
    var a = Math.abs(value);
    var steps = [[1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];
    for (var k = 0; k < steps.length; k++) {
      // from 999.5 of the unit below on (shown as 1,000 there), one of this unit: 999,960 is 1.0M, not 1,000k
      if (a >= steps[k][0] * (k < steps.length - 1 ? 0.9995 : 1)) {
        return number(value / steps[k][0], a / steps[k][0] >= 99.95 ? 0 : 1) + steps[k][1];
      }
    }
    return number(value);
  }

  /** A change in percent: +12.5 % / -3.0 %. */
  function fmtChange(pct) {
    if (pct === null || pct === undefined) { return "—"; }
    return (pct > 0 ? "+" : "") + number(pct, 1) + " %";
  }

  // Which way is better for a benchmark's measure, from its unit: runs carry no direction, and a change is coloured
  // only where its direction is good or bad by nature (as compare periods does, docs/awr-rules.md §29). The first
  // match wins: a time taken (latency, elapsed, a hang; per second or per transaction too) is better lower; anything
  // else per second (TPS 1/s, IOPS IO/s, KB/s, MB/s, Gbit/s: throughput) higher; any other unit (%, bytes) neutral.
  var BETTER_BY_UNIT = [[/^(µs|us|ms|s|min|h)(\/.+)?$/, "lower"], [/\/s$/, "higher"]];

  /** "lower", "higher" or null (neutral) for a measure in this unit (BETTER_BY_UNIT), as an answer's `better`. */
  function betterByUnit(unit) {
    var row = BETTER_BY_UNIT.find(function (r) { return r[0].test(unit || ""); });
    return row ? row[1] : null;
  }

  /** The luxon zone name of a UTC offset in minutes (the database's; "UTC+01:00"), or the browser's ("local").
   * A name, not a Zone object: Chart.js copies its options, and a copied Zone is no longer one. */
  function zone(offsetMinutes) {
    if (offsetMinutes === null || offsetMinutes === undefined) { return "local"; }
    if (!offsetMinutes) { return "UTC"; }
    var a = Math.abs(offsetMinutes), hh = String(Math.floor(a / 60)).padStart(2, "0"), mm = String(a % 60).padStart(2, "0");
    return "UTC" + (offsetMinutes < 0 ? "-" : "+") + hh + ":" + mm;
  }

  /** Minutes east of UTC in an ISO 8601 time with offset ("...+01:00" -> 60, "Z" -> 0). */
  function offsetOf(iso) {
    var m = /([+-])(\d{2}):?(\d{2})$/.exec(iso || "");
    return m ? (m[1] === "-" ? -1 : 1) * (60 * Number(m[2]) + Number(m[3])) : 0;
  }

  function dt(ms, z) { return DateTime.fromMillis(ms, { zone: z }); }

  /** A moment for people: 2026-11-13 14:00 (with " +01:00" when withOffset). */
  function fmtTime(ms, z, withOffset) {
    if (ms === null || ms === undefined || isNaN(ms)) { return "—"; }
    var d = dt(ms, z);
    return d.toFormat(d.second ? "yyyy-LL-dd HH:mm:ss" : "yyyy-LL-dd HH:mm") + (withOffset ? " " + d.toFormat("ZZ") : "");
  }

  /** A moment for URLs and the API: ISO 8601 with the zone's offset, seconds only when needed. */
  function isoTime(ms, z) {
    var d = dt(ms, z);
    return d.toFormat(d.second ? "yyyy-LL-dd'T'HH:mm:ssZZ" : "yyyy-LL-dd'T'HH:mmZZ");
  }

  /** A moment in a file name: 20261113T0700 (the zone's local time, as the range shown). */
  function fileStamp(ms, z) { return dt(ms, z).toFormat("yyyyLLdd'T'HHmm"); }

  /** The value of an <input type="datetime-local"> for a moment, and back. */
  function inputTime(ms, z) { return dt(ms, z).toFormat("yyyy-LL-dd'T'HH:mm"); }
  function parseInputTime(value, z) {
    var d = DateTime.fromISO(value, { zone: z });
    return d.isValid ? d.toMillis() : NaN;
  }

  /** HTML-escaped text, for the few places a library takes HTML (DataTables cells). */
  function esc(value) {
    return String(value === null || value === undefined ? "" : value)
      .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }

  /** A value as every CSV and copy the page writes holds it: text that a spreadsheet would run as a formula (its
   * first character = + - @, a tab or a carriage return) gets a leading apostrophe. The rule of the API's CSV
   * (app/api/respond.py); numbers and everything not text are left as they are. */
  function formulaSafe(value) {
    return typeof value === "string" && /^[=+\-@\t\r]/.test(value) ? "'" + value : value;
  }

  /** RFC 4180 CSV from a header and rows of values, every text made formula-safe (names become headers too). */
  function csv(header, rows) {
    function cell(v) {
      if (v === null || v === undefined) { return ""; }
      var s = String(v);
      return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
    }
    function safe(v) { return cell(formulaSafe(v)); }
    return [header.map(safe)].concat(rows.map(function (r) { return r.map(safe); }))
      .map(function (r) { return r.join(","); }).join("\r\n") + "\r\n";
  }

  /** Save a Blob or a data: URL as a file. */
  function download(filename, data) {
    var url = typeof data === "string" ? data : URL.createObjectURL(data);
    var a = document.createElement("a");
    a.href = url;
    a.download = filename;
    document.body.appendChild(a);
    a.click();
    a.remove();
    if (typeof data !== "string") { setTimeout(function () { URL.revokeObjectURL(url); }, 10000); }
  }

  AWRLens.Format = {
    fmtValue: fmtValue, fileStamp: fileStamp, unitTitle: unitTitle, fmtCompact: fmtCompact, fmtChange: fmtChange,
    betterByUnit: betterByUnit, fmtTime: fmtTime, isoTime: isoTime,
    inputTime: inputTime, parseInputTime: parseInputTime, zone: zone, offsetOf: offsetOf, esc: esc,
    formulaSafe: formulaSafe, csv: csv, download: download
  };
}(window.AWRLens = window.AWRLens || {}));
