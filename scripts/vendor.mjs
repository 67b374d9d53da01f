// Copies exactly the browser files the page loads from node_modules/ into static/vendor/ (`npm run vendor`).
// Versions come from package-lock.json; nothing is fetched from a CDN. The page (templates/index.html) loads these
// names in this order; vendor/manifest.json records the version of each package for the curious.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "static", "vendor");

// [package, file inside the package, name in static/vendor/] -- the order the page loads them. Buttons 4 holds
// the CSV and copy buttons itself, and the -dt packages' scripts are empty shims for the default style: only
// their CSS is needed.
export const FILES = [
  ["jquery", "dist/jquery.min.js", "jquery.min.js"],
  ["chart.js", "dist/chart.umd.min.js", "chart.umd.min.js"],
  ["luxon", "build/global/luxon.min.js", "luxon.min.js"],
  ["chartjs-adapter-luxon", "dist/chartjs-adapter-luxon.umd.min.js", "chartjs-adapter-luxon.umd.min.js"],
  ["hammerjs", "hammer.min.js", "hammer.min.js"],
  ["chartjs-plugin-zoom", "dist/chartjs-plugin-zoom.min.js", "chartjs-plugin-zoom.min.js"],
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
const manifest = {};
for (const [pkg, file, name] of FILES) {
  const src = join(root, "node_modules", pkg, file);
  const text = readFileSync(src, "utf8");
  // the source maps are not shipped: drop the reference so a browser's developer tools never ask for them
  const stripped = text.replace(/\n?\/[/*][#@] sourceMappingURL=[^\n]*$/m, "");
  if (stripped === text) {
    copyFileSync(src, join(out, name));
  } else {
    writeFileSync(join(out, name), stripped);
  }
  manifest[name] = `${pkg}@${version(pkg)}`;
}
writeFileSync(join(out, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
console.log(`static/vendor: ${FILES.length} files`);
