// A time chart's CSV (static/js/charts.js, TimeChart.toCSV): compare's period B, drawn shifted onto A's axis, is saved
// at B's own times (docs/awr-rules.md §29: "the tooltip of a B point and the chart's CSV give B's own time").
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, test } from "vitest";
import { load } from "./load.js";

let A;
beforeAll(() => {
  A = load("dom.js", "format.js");
  A.Tables = { num() {}, text() {} };
  // the card (its DOM, legend, PNG) and the colours are not what is tested: a card with a canvas and no tools
  A.ChartCard = { PALETTE: [], LOG_TOOL: [], methods: {}, build(chart) {
    chart.card = document.createElement("div");
    chart.canvas = document.createElement("canvas");
  } };
  A.Theme = { color() { return "#000"; } };
  A.Changes = {};
  for (const name of ["chart-windows.js", "chart-config.js", "charts.js", "compare-views.js"]) {
    (0, eval)(readFileSync(join(import.meta.dirname, "..", "..", "static", "js", name), "utf8"));
  }
});

const STEP = 30 * 60 * 1000, ZONE = "UTC+01:00";
const a = { from: Date.UTC(2026, 10, 17, 2, 0), to: Date.UTC(2026, 10, 17, 4, 0) };
const b = { from: Date.UTC(2026, 10, 18, 9, 0), to: Date.UTC(2026, 10, 18, 10, 0) };
const series = (w, v) => ({ key: "derived:aas|all", label: "AAS", unit: "sessions", color: "#123456", partial: {},
  points: [1, 2, 3, 4].map((i) => [w.from + i * STEP, v + i]) });

test("B's rows carry B's own times, A's rows A's, each with its value", () => {
  const [da, db] = A.Compare.overlaid([series(a, 0)], [series(b, 100)], a, b, STEP);
  const chart = A.Charts.create(document.createElement("div"), { id: "compare-aas", title: "AAS", database: "ORCL" });
  chart.win = { from: a.from, to: a.to, zone: ZONE };
  chart.chart = { data: { datasets: [da, db] } };
  const rows = chart.toCSV().trim().split(/\r?\n/).map((line) => line.split(","));
  expect(rows[0]).toEqual(["database", "series", "instance", "unit", "time", "value", "missing_instances"]);
  expect(new Set(rows.slice(1).map((r) => r[0]))).toEqual(new Set(["ORCL"]));  // every row names its database
  // +01:00: 02:30 UTC is 03:30 there; B's points 09:30..10:00 UTC are 10:30..11:00 there
  expect(rows.slice(1).map((r) => [r[1], r[4], r[5]])).toEqual([
    ["A · AAS", "2026-11-17T03:30+01:00", "1"],
    ["A · AAS", "2026-11-17T04:00+01:00", "2"],
    ["A · AAS", "2026-11-17T04:30+01:00", "3"],
    ["A · AAS", "2026-11-17T05:00+01:00", "4"],
    ["B · AAS", "2026-11-18T10:30+01:00", "101"],
    ["B · AAS", "2026-11-18T11:00+01:00", "102"],
  ]);
});
