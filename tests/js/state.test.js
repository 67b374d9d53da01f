// AWRLens.State (static/js/state.js), the query strings of AWRLens.Api, and the repairs the router (router.js) makes
// to a link: the link is the whole view state.
import { beforeEach, describe, expect, test } from "vitest";
import jQuery from "jquery";
import { load } from "./load.js";

let A;
beforeEach(() => {
  history.replaceState(null, "", "/");
  window.jQuery = jQuery;
  A = load("format.js", "api.js", "state.js");
});

/** A value of each state key, two for the keys that repeat. */
function example(key) {
  return A.State.MULTI[key] ? [`${key}-1`, `${key} 2:x/y`] : `${key}:v 1`;
}

describe("the link", () => {
  test("every key survives serialize and parse, in the fixed order, whatever order it was set in", () => {
    const state = {};
    for (const key of [...A.State.KEYS].reverse()) { state[key] = example(key); }
    const qs = A.State.serialize(state);
    expect(A.State.parse(qs)).toEqual(state);
    const order = [...new URLSearchParams(qs).keys()].filter((k, i, all) => all.indexOf(k) === i);
    expect(order).toEqual(A.State.KEYS);
  });
  test("unknown keys and empty values are not part of the state", () => {
    expect(A.State.parse("?view=sql&bogus=1&sql=&series=a&series=")).toEqual({ view: "sql", series: ["a"] });
  });
  test("a query keeps ':' ',' '/' readable, repeats a list's key and leaves out empty values", () => {
    expect(A.Api.query({ series: ["sysstat:redo size", "a/b,c"], to: null, q: "", n: 0 }))
      .toBe("series=sysstat:redo+size&series=a/b,c&n=0");
  });
});

describe("changes", () => {
  test("a new range replaces the other kinds of range; null removes a key", () => {
    const base = { view: "overview", range: "7d", sql: "abc" };
    expect(A.State.merge(base, { begin_snap: "1", end_snap: "9", sql: null }))
      .toEqual({ view: "overview", begin_snap: "1", end_snap: "9" });
    expect(A.State.merge({ from: "a", to: "b", view: "x" }, { range: "1d" })).toEqual({ view: "x", range: "1d" });
  });
  test("each push is one Back step, a replace none, and Back restores the state before it", async () => {
    A.State.init();
    const seen = [];
    A.State.onChange((now, prev, how) => seen.push([how, now.view]));
    const start = history.length;
    A.State.set({ view: "overview" });
    A.State.set({ view: "sql", sql: "0s4ruwf8v2hxq" });
    A.State.set({ order: "cpu" }, "replace");
    A.State.set({ range: "1d" }, "silent");
    expect(history.length - start).toBe(2);
    expect(location.search).toBe("?view=sql&range=1d&sql=0s4ruwf8v2hxq&order=cpu");
    const popped = new Promise((resolve) => window.addEventListener("popstate", resolve, { once: true }));
    history.back();
    await popped;
    expect(A.State.get()).toEqual({ view: "overview" });
    expect(seen).toEqual([["push", "overview"], ["push", "sql"], ["replace", "sql"], ["pop", "overview"]]);
  });
});

describe("one kind of range in the link", () => {
  const DB = { id: "demo.1", db_name: "ORCL", dbid: 1, rac: false, instances: [{ instance_number: 1 }],
    snapshots: { from: "2026-11-01T00:00+01:00", to: "2026-11-11T00:00+01:00", first_snap: 1, last_snap: 480,
      interval_minutes: 30 } };
  const BASE = { db: "demo.1", inst: "all", view: "overview", tz: "db" };
  let Views;
  beforeEach(() => {
    A = load("dom.js", "format.js", "api.js", "state.js", "databases.js", "controls.js", "router.js");
    A.Databases.set([DB]);
    Views = A.Views;
    Views.add("overview", { title: "Overview", build() {}, update() {} });
  });
  test("a named range replaces a snapshot range: neither begin_snap nor end_snap stays in the link", () => {
    const next = A.State.merge({ ...BASE, begin_snap: "1", end_snap: "9" }, { range: "1d" });
    expect(A.State.serialize(next)).toBe("?db=demo.1&inst=all&view=overview&range=1d&tz=db");
  });
  test("a link's stale end_snap beside a named range leaves it; the range stays", () => {
    expect(Views.normalize({ ...BASE, range: "1d", end_snap: "9" })).toEqual({ end_snap: null });
    expect(Views.normalize({ ...BASE, range: "7d", begin_snap: "5" })).toEqual({ begin_snap: null });
    expect(Views.normalize({ ...BASE, range: "7d", from: "2026-11-02T00:00" })).toEqual({ from: null });
  });
  test("a complete snapshot range is the one shown (Databases.resolveWindow reads it first): the others leave", () => {
    expect(Views.normalize({ ...BASE, begin_snap: "1", end_snap: "9", range: "1d" })).toEqual({ range: null });
    expect(Views.normalize({ ...BASE, from: "2026-11-02T00:00", to: "2026-11-03T00:00", end_snap: "9" }))
      .toEqual({ end_snap: null });
  });
  test("a link with one complete range needs no repair", () => {
    expect(Views.normalize({ ...BASE, range: "1d" })).toBeNull();
    expect(Views.normalize({ ...BASE, begin_snap: "1", end_snap: "9" })).toBeNull();
  });
});
