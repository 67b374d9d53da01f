// Loads the page's own scripts (static/js) into the test's DOM (jsdom) the way index.html does: as classic scripts
// in the window's global scope, in the page's order; luxon, from npm as the page's vendored copy is.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as luxon from "luxon";

const JS = join(import.meta.dirname, "..", "..", "static", "js");

export function load(...names) {
  window.luxon = luxon;
  window.AWRLens = {};
  for (const name of names) {
    (0, eval)(readFileSync(join(JS, name), "utf8"));  // indirect eval: the global scope, as a <script> runs
  }
  return window.AWRLens;
}
