// The benchmark runs' charts (static/js/run-views.js, AWRLens.Runs): each run drawn against its own axis, alone and
// compared, and the change of two series coloured by whether it is good for the measure (Format.betterByUnit, the
// class of Tables.direction, as compare periods colours it).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { load } from "./load.js";

const JS = join(import.meta.dirname, "..", "..", "static", "js");
let A, F;
beforeAll(() => {
  A = load("dom.js", "format.js", "tables.js");
  F = A.Format;
  A.Charts = { PALETTE: ["#111111", "#222222", "#333333"] };
  A.Views = { add() {} };  // what the views need to load; they are not registered here
  (0, eval)(readFileSync(join(JS, "run-views.js"), "utf8"));
});

const run = (slug, kind) => ({ slug, kind });
const row = (slug, series, x, y, unit, extra) => ({ run: slug, series, x, y, unit, extra: extra || {} });
const sweep = (slug, series, sizes) => sizes.map((kb) => row(slug, series, kb, 3000 * 8 / kb, "IO/s"));
const byId = (charts) => Object.fromEntries(charts.map((c) => [c.id, c]));

describe("which way is better, by the unit", () => {
  test("a time taken is better lower, per second or per transaction too", () => {
    for (const unit of ["s", "ms", "µs", "us", "min", "h", "s/s", "ms/txn"]) {
      expect(F.betterByUnit(unit)).toBe("lower");
    }
  });
  test("anything else per second (throughput: TPS, IOPS, KB/s, Gbit/s) is better higher", () => {
    for (const unit of ["1/s", "IO/s", "KB/s", "MB/s", "bytes/s", "Gbit/s"]) {
      expect(F.betterByUnit(unit)).toBe("higher");
    }
  });
  test("any other unit is neutral", () => {
    for (const unit of ["%", "bytes", "MB", "", undefined, null, "sessions", "ms2"]) {
      expect(F.betterByUnit(unit)).toBe(null);
    }
  });
});

describe("each run keeps its own axis when compared", () => {
  test("an I/O sweep beside client hangs: sizes on a log axis titled as alone, the hangs as categories, bars", () => {
    const own = sweep("io", "gp3", [8, 64, 1024]).map((r) => ({ ...r, run: undefined }));  // a run's page: no run
    const alone = A.Runs.charts([run("io", "io_sweep")], own);
    const rows = sweep("io", "gp3", [8, 64, 1024]).concat([row("hang", "defaults", "new connection", 70, "s"),
      row("hang", "bounded", "new connection", 10, "s")]);
    const charts = byId(A.Runs.charts([run("io", "io_sweep"), run("hang", "client_hang")], rows));
    expect(Object.keys(charts)).toEqual(["run-1", "run-2"]);
    expect(charts["run-1"].x).toEqual(alone[0].x);
    expect(charts["run-1"].x).toMatchObject({ type: "logarithmic", title: "I/O size (KB)" });
    expect(charts["run-1"].y.title).toBe(alone[0].y.title);
    expect(charts["run-2"]).toMatchObject({ type: "bar", x: { type: "category", categories: ["new connection"] } });
    expect(charts["run-2"].datasets.map((d) => d.show)).toEqual(["bar", "bar"]);
  });

  test("CPU consistency and client hangs, both in seconds: the sessions chart and the cases apart", () => {
    const rows = [1, 2].flatMap((n) => [row("cpu", "N=" + n, n, 40, "s"), row("cpu", "N=" + n, n, 41, "s")])
      .concat([row("hang", "defaults", "call in flight", 3600, "s", { still_hanging: true })]);
    const charts = byId(A.Runs.charts([run("cpu", "cpu_consistency"), run("hang", "client_hang")], rows));
    expect(Object.keys(charts)).toEqual(["run-cpu", "run-1"]);
    expect(charts["run-cpu"].x).toMatchObject({ type: "linear", title: "parallel sessions (N)" });
    expect(charts["run-cpu"].datasets.map((d) => d.label)).toEqual(["cpu · every session", "cpu · median",
      "cpu · fastest", "cpu · slowest"]);
    expect(charts["run-1"].x).toEqual({ type: "category", categories: ["call in flight"] });
  });

  test("a line joins a sweep's sizes; two sizes are two tests, drawn as points", () => {
    const rows = sweep("a", "sweep", [8, 16, 32]).concat(sweep("b", "burst", [8, 1024]));
    const [chart] = A.Runs.charts([run("a", "io_sweep"), run("b", "io_sweep")], rows);
    expect(chart.datasets.map((d) => [d.label, d.show])).toEqual([["a · sweep", "line"], ["b · burst", "points"]]);
    expect(chart.x.type).toBe("logarithmic");
  });

  test("numbers that are not I/O sizes stay linear, against x", () => {
    const [chart] = A.Runs.charts([run("a", "other")], [1, 2, 3].map((x) => ({ series: "s", x, y: x, unit: "ms" })));
    expect(chart.x).toEqual({ type: "linear", title: "x" });
  });
});

describe("the change of two series, coloured by whether it is good for the measure", () => {
  const pieces = (unit, before, after) => {
    const rows = [{ series: "before", x: "m", y: before, unit }, { series: "after", x: "m", y: after, unit }];
    return A.Runs.charts([run("r", "before_after")], rows)[0].conclusion;
  };
  const change = (p) => p.find((x) => typeof x === "object");
  const text = (p) => p.map((x) => (typeof x === "string" ? x : x.text)).join("");

  test("more transactions per second is better, more milliseconds worse; each says which way is better", () => {
    expect(text(pieces("1/s", 101, 136))).toBe("before → after: m: 101 /s → 136 /s (+34.7 %)");
    expect(change(pieces("1/s", 101, 136))).toEqual({ text: "+34.7 %", tone: "better", better: "higher" });
    expect(change(pieces("1/s", 136, 101))).toMatchObject({ tone: "worse" });
    expect(change(pieces("ms", 90, 70))).toEqual({ text: "-22.2 %", tone: "better", better: "lower" });
    expect(change(pieces("ms", 70, 90))).toMatchObject({ tone: "worse" });
  });
  test("the tone is compare periods' own (Tables.direction), neutral where the unit gives no direction", () => {
    expect(change(pieces("%", 47, 70))).toEqual({ text: "+48.9 %", tone: "", better: null });
    for (const [unit, a, b] of [["1/s", 1, 2], ["ms", 1, 2], ["%", 1, 2]]) {
      expect(change(pieces(unit, a, b)).tone).toBe(A.Tables.direction(100 * (b - a) / a, F.betterByUnit(unit)));
    }
  });
  test("a case that never ended has no change", () => {
    const rows = [{ series: "defaults", x: "call", y: 3600, unit: "s", extra: { still_hanging: true } },
      { series: "bounded", x: "call", y: 45, unit: "s" }];
    const [chart] = A.Runs.charts([run("h", "client_hang")], rows);
    expect(chart.conclusion).toEqual(["defaults → bounded: call: more than 1 h → 45 s"]);
  });
});
