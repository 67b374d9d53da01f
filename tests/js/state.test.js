// AWRLens.State (static/js/state.js) and the query strings of AWRLens.Api: the link is the whole view state.
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
