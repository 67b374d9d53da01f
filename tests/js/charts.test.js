// The time charts' windows (static/js/chart-windows.js) and the chart that moves through them (static/js/charts.js):
// the tool buttons' arithmetic, which windows are prefetched, and what the loaded segments cover.
import { beforeEach, describe, expect, test } from "vitest";
import jQuery from "jquery";
import { load } from "./load.js";

const MIN = 60 * 1000, HOUR = 60 * MIN, DAY = 24 * HOUR;
const LIMITS = { min: Date.UTC(2026, 10, 1), max: Date.UTC(2026, 10, 11) };  // ten days of history
const QUARTER = 15 * MIN;  // the narrowest window (chart-windows.js MIN_WINDOW)

let A, W;
beforeEach(() => {
  window.jQuery = jQuery;
  window.matchMedia = () => ({ matches: false, addEventListener() {} });  // theme.js; jsdom has no media queries
  // the defaults chart-card.js colours; no chart is drawn here (jsdom has no canvas): the loads never answer
  window.Chart = { defaults: { plugins: { tooltip: {} } } };
  window.AWRLens = {};
  A = load("theme.js", "dom.js", "format.js", "api.js", "state.js", "databases.js", "chart-card.js", "changes.js",
    "chart-windows.js", "chart-config.js", "charts.js");
  W = A.ChartWindows;
});

/** A window of `hours` starting `at` ms after the first snapshot. */
function win(at, hours) {
  return { from: LIMITS.min + at, to: LIMITS.min + at + hours * HOUR, zone: "UTC", limits: LIMITS };
}
const width = (w) => w.to - w.from;
const middle = (w) => (w.from + w.to) / 2;

describe("the tool buttons' windows", () => {
  const six = win(3 * DAY, 6);
  test("earlier and later move by half the width, zoom in halves it and zoom out doubles it, around the middle", () => {
    expect(W.step(six, "earlier")).toEqual({ from: six.from - 3 * HOUR, to: six.to - 3 * HOUR });
    expect(W.step(six, "later")).toEqual({ from: six.from + 3 * HOUR, to: six.to + 3 * HOUR });
    const zin = W.step(six, "zoomin"), zout = W.step(six, "zoomout");
    expect([width(zin), middle(zin)]).toEqual([3 * HOUR, middle(six)]);
    expect([width(zout), middle(zout)]).toEqual([12 * HOUR, middle(six)]);
  });
  test("a move past the history's first or last snapshot stops at it and keeps the width", () => {
    expect(W.step(win(HOUR, 6), "earlier")).toEqual({ from: LIMITS.min, to: LIMITS.min + 6 * HOUR });
    const last = win(10 * DAY - 7 * HOUR, 6);
    expect(W.step(last, "later")).toEqual({ from: LIMITS.max - 6 * HOUR, to: LIMITS.max });
    expect(W.step(win(HOUR, 6), "zoomout")).toEqual({ from: LIMITS.min, to: LIMITS.min + 12 * HOUR });
  });
  test("zoom out never leaves the history: the whole of it at most", () => {
    expect(W.step(win(DAY, 8 * 24), "zoomout")).toEqual({ from: LIMITS.min, to: LIMITS.max });
  });
  test("zoom in stops at 15 minutes, as the drag and wheel zoom do", () => {
    const twenty = win(DAY, 20 / 60), zin = W.step(twenty, "zoomin");
    expect([width(zin), middle(zin)]).toEqual([QUARTER, middle(twenty)]);
    expect(W.step(win(DAY, 0.25), "zoomin")).toBeNull();
    expect(width(W.step(win(DAY, 0.5), "zoomin"))).toBe(QUARTER);
  });
  test("a window narrower than 15 minutes (from a link) is not moved", () => {
    expect(W.step(win(DAY, 0.1), "earlier")).toBeNull();
    expect(W.step(win(DAY, 0.1), "zoomin")).toBeNull();
  });
  test("windows are whole milliseconds", () => {
    const odd = { from: LIMITS.min + DAY, to: LIMITS.min + DAY + HOUR + 3, zone: "UTC", limits: LIMITS };
    for (const what of ["earlier", "later", "zoomin", "zoomout"]) {
      const w = W.step(odd, what);
      expect(Number.isInteger(w.from) && Number.isInteger(w.to)).toBe(true);
    }
  });
});

describe("the windows prefetched", () => {
  test("as wide as the window either side of it", () => {
    const six = win(3 * DAY, 6);
    expect(W.neighbours(six)).toEqual([{ from: six.from - 6 * HOUR, to: six.from }, { from: six.to, to: six.to + 6 * HOUR }]);
  });
  test("clipped to the history; none past its edge, nor a sliver of under a minute", () => {
    expect(W.neighbours(win(2 * HOUR, 6))[0]).toEqual({ from: LIMITS.min, to: LIMITS.min + 2 * HOUR });
    expect(W.neighbours(win(0, 6))).toEqual([{ from: LIMITS.min + 6 * HOUR, to: LIMITS.min + 12 * HOUR }]);
    expect(W.neighbours(win(30 * 1000, 6))).toHaveLength(1);
    expect(W.neighbours(win(MIN, 6))[0]).toEqual({ from: LIMITS.min, to: LIMITS.min + MIN });
  });
});

describe("what the loaded segments cover", () => {
  const seg = (lo, hi, full, detail = false) => ({ lo, hi, full, detail, res: { datasets: [] } });
  test("the window of a segment, downsampled or not", () => {
    expect(W.covers([seg(0, 10, false)], 0, 10, false)).toBe(true);
  });
  test("a narrower window only from full-resolution segments, and only of its own resolution", () => {
    expect(W.covers([seg(0, 10, false)], 2, 8, false)).toBe(false);
    expect(W.covers([seg(0, 10, true)], 2, 8, false)).toBe(true);
    expect(W.covers([seg(0, 10, true)], 2, 8, true)).toBe(false);
  });
  test("segments that meet cover across their seam; a gap between them does not", () => {
    expect(W.covers([seg(5, 10, true), seg(0, 5, true)], 2, 8, false)).toBe(true);
    expect(W.covers([seg(0, 4, true), seg(5, 10, true)], 2, 8, false)).toBe(false);
    expect(W.covers([seg(0, 5, true)], 2, 8, false)).toBe(false);
  });
  test("merged: each time once, in order, and a gap in each missing snapshot of the series' instance", () => {
    const t = (h) => LIMITS.min + h * HOUR, iso = (h) => new Date(t(h)).toISOString();
    const res = (points, missing = []) => ({ datasets: [{ key: "k", instance: 2, points }], markers: { missing } });
    const merged = W.merge([
      { lo: t(0), hi: t(4), detail: false, full: true, res: res([[t(3), 3], [t(1), 1], [t(2), 2]]) },
      { lo: t(3), hi: t(6), detail: false, full: true, res: res([[t(3), 3], [t(5), 5]], [{ instance: 2, from: iso(3), to: iso(5) }]) },
      { lo: t(0), hi: t(6), detail: true, full: true, res: res([[t(0), 9]]) },
    ], false, false);
    expect(merged.datasets[0].points).toEqual([[t(1), 1], [t(2), 2], [t(3), 3], [t(4), null], [t(5), 5]]);
    expect(merged.markers.missing).toHaveLength(1);
  });
});

describe("a time chart (charts.js)", () => {
  /** A chart whose loads never answer: what it asks for is in `asked`. */
  function chart(spec = {}) {
    const asked = [], moved = [];
    const c = A.Charts.create(document.createElement("div"), {
      id: "t", title: "T", load: (w, detail) => { asked.push([w, detail]); return new Promise(() => {}); },
      onWindow: (from, to) => moved.push({ from, to }), ...spec,
    });
    return { c, asked, moved };
  }
  test("a tool button hands the view the tool's window; zoom in from 15 minutes hands none", () => {
    const { c, moved } = chart(), six = win(3 * DAY, 6);
    c.setWindow(six);
    c.act("earlier");
    c.act("zoomin");
    expect(moved).toEqual([W.step(six, "earlier"), W.step(six, "zoomin")]);
    c.setWindow(win(DAY, 0.25));
    c.act("zoomin");
    expect(moved).toHaveLength(2);
  });
  test("the window is fetched, then the windows either side that its segments do not hold", () => {
    const { c, asked } = chart({ detail: true }), six = win(3 * DAY, 6);
    c.setWindow(six);
    expect(asked).toEqual([[{ from: six.from, to: six.to }, true]]);  // six hours: per-minute detail
    c.segments = [{ lo: six.from - 6 * HOUR, hi: six.from, detail: true, full: true, res: { datasets: [] } }];
    c.prefetchNow();
    expect(asked.slice(1)).toEqual([[{ from: six.to, to: six.to + 6 * HOUR }, true]]);
  });
});

describe("the time axis (chart-config.js)", () => {
  test("a tick at midnight names the date, any other the time of day: a week's ticks every 12 hours alternate", () => {
    const week = { from: Date.UTC(2026, 10, 13, 6), to: Date.UTC(2026, 10, 20, 6), zone: "UTC+01:00" };
    const ticks = A.ChartConfig.roundTicks(week.from, week.to, week.zone, 14);
    const labels = ticks.map((t) => A.ChartConfig.tickLabel(t.value, week));
    expect(labels.slice(0, 4)).toEqual(["12:00", "14 Nov", "12:00", "15 Nov"]);  // 07:00 +01:00 is the first instant
    expect(new Set(labels.filter((l) => l !== "12:00")).size).toBe(labels.filter((l) => l !== "12:00").length);
  });
  test("ticks fall on round hours of the zone shown", () => {
    const day = { from: Date.UTC(2026, 10, 13, 6, 17), to: Date.UTC(2026, 10, 14, 6, 17), zone: "UTC+01:00" };
    const ticks = A.ChartConfig.roundTicks(day.from, day.to, day.zone, 12);
    const labels = ticks.map((t) => A.ChartConfig.tickLabel(t.value, day));
    expect(labels[0]).toBe("08:00");  // 07:17 there; 12 ticks a day: every 2 hours, on even hours
    expect(labels).toContain("14 Nov");
    for (const l of labels) { expect(l === "14 Nov" || /^(0|1|2)\d:00$/.test(l)).toBe(true); }
  });
});
