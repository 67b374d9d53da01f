// AWRLens.Compare (static/js/compare-views.js): period B drawn on period A's time axis (docs/awr-rules.md §29).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { load } from "./load.js";

let C;
beforeAll(() => {
  const A = load("dom.js", "format.js");
  A.Tables = { num() {}, text() {} };  // what the view needs to load; the views themselves are not registered
  (0, eval)(readFileSync(join(import.meta.dirname, "..", "..", "static", "js", "compare-views.js"), "utf8"));
  C = A.Compare;
});

const H = 3600 * 1000, STEP = 30 * 60 * 1000;
const a = { from: Date.UTC(2026, 10, 17, 2, 0), to: Date.UTC(2026, 10, 17, 8, 0) };
const b = { from: Date.UTC(2026, 10, 18, 9, 0), to: Date.UTC(2026, 10, 18, 12, 0) };
const every = (w, v) => Array.from({ length: 40 }, (_, i) => [w.from - 2 * STEP + i * STEP, v + i]);
const set = (w, v) => ({ key: "derived:aas|all", label: "AAS", unit: "sessions", color: "#123456", points: every(w, v),
  partial: { [w.from + STEP]: { instances: 1, missing: [2] } } });

describe("B shifted onto A", () => {
  const shift = a.from - b.from;
  let da, db;
  beforeAll(() => { [da, db] = C.overlaid([set(a, 0)], [set(b, 100)], a, b, STEP); });

  test("B's points move by A.from - B.from and keep their values; its shift gives them back their own time", () => {
    expect(shift).toBe(-(24 + 7) * H);
    expect(db.shift).toBe(-shift);
    const own = set(b, 100).points.filter((p) => p[0] - STEP >= b.from && p[0] <= b.to);
    expect(db.points).toEqual(own.map((p) => [p[0] + shift, p[1]]));
    expect(db.points.map((p) => p[0] + db.shift)).toEqual(own.map((p) => p[0]));
    expect(db.points[0]).toEqual([a.from + STEP, 103]);
  });

  test("each period keeps the intervals that lie within it: from one step after its start to its end", () => {
    expect(da.points[0][0]).toBe(a.from + STEP);
    expect(da.points.at(-1)[0]).toBe(a.to);
    expect(da.points).toHaveLength(12);
    expect(db.points).toHaveLength(6);
    expect(da.shift).toBeUndefined();
  });

  test("A solid, B dashed in A's colour, labelled by period; B's partial points move with it", () => {
    expect([da.label, db.label]).toEqual(["A · AAS", "B · AAS"]);
    expect([da.key, db.key]).toEqual(["A|derived:aas|all", "B|derived:aas|all"]);
    expect(da.dash).toBeUndefined();
    expect(db.dash).toEqual([6, 4]);
    expect(db.color).toBe("#123456");
    expect(Object.keys(db.partial).map(Number)).toEqual([a.from + STEP]);
  });

  test("the shared axis runs from A's start for the longer period", () => {
    expect(C.sharedWindow(a, b)).toEqual({ from: a.from, to: a.to });
    expect(C.sharedWindow(b, a)).toEqual({ from: b.from, to: b.from + 6 * H });
  });
});
