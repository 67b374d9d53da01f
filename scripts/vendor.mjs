// Puts exactly the browser files the page loads from node_modules/ into static/vendor/ (`npm run vendor`), as one
// script and one style sheet: vendor.min.js (the scripts below, in this order) and vendor.min.css, two requests
// instead of ten (a browser asks at most six files of one server at a time; BENCHMARKS.md, "the page").
// Versions come from package-lock.json; nothing is fetched from a CDN. vendor/manifest.json records each file's
// package and version for the curious.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "static", "vendor");

// [package, file inside the package, its name in the manifest] -- the order the page runs them. Buttons 4 holds
// the CSV and copy buttons itself, and the -dt packages' scripts are empty shims for the default style: only
// their CSS is needed.
export const FILES = [
  ["jquery", "dist/jquery.min.js", "jquery.min.js"],
  ["chart.js", "dist/chart.umd.min.js", "chart.umd.min.js"],
  ["luxon", "build/global/luxon.min.js", "luxon.min.js"],
  ["chartjs-adapter-luxon", "dist/chartjs-adapter-luxon.umd.min.js", "chartjs-adapter-luxon.umd.min.js"],
  ["hammerjs", "hammer.min.js", "hammer.min.js"],
  ["chartjs-plugin-zoom", "dist/chartjs-plugin-zoom.min.js", "chartjs-plugin-zoom.min.js"],
  // registers its treemap chart type with Chart.js when loaded (Top activity's Load Map, loadmap.js)
  ["chartjs-chart-treemap", "dist/chartjs-chart-treemap.min.js", "chartjs-chart-treemap.min.js"],
  ["datatables.net", "js/dataTables.min.js", "dataTables.min.js"],
  ["datatables.net-buttons", "js/dataTables.buttons.min.js", "dataTables.buttons.min.js"],
  ["datatables.net-dt", "css/dataTables.dataTables.min.css", "dataTables.dataTables.min.css"],
  ["datatables.net-buttons-dt", "css/buttons.dataTables.min.css", "buttons.dataTables.min.css"],
];

function version(pkg) {
  return JSON.parse(readFileSync(join(root, "node_modules", pkg, "package.json"), "utf8")).version;
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const bundles = { js: [], css: [] };
const manifest = {};
for (const [pkg, file, name] of FILES) {
  const text = readFileSync(join(root, "node_modules", pkg, file), "utf8");
  // the source maps are not shipped: drop the reference so a browser's developer tools never ask for them
  const stripped = text.replace(/\n?\/[/*][#@] sourceMappingURL=[^\n]*$/m, "");
  const css = name.endsWith(".css");
  // a script ends its statement: a file without a final semicolon or newline cannot run into the next one
  bundles[css ? "css" : "js"].push(`/* ${pkg}@${version(pkg)}: ${file} */\n${stripped}\n${css ? "" : ";\n"}`);
  manifest[name] = `${pkg}@${version(pkg)}`;
}
writeFileSync(join(out, "vendor.min.js"), bundles.js.join(""));
writeFileSync(join(out, "vendor.min.css"), bundles.css.join(""));
writeFileSync(join(out, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
console.log(`static/vendor: ${FILES.length} files in vendor.min.js and vendor.min.css`);
