// ESLint for the page's own scripts (static/js: classic scripts sharing window.AWRLens), the build script and the JS
// unit tests (`make lint`; `make test` runs it first). The vendored libraries are npm's, not ours.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["static/vendor/**", "node_modules/**", ".venv*/**", "mutants/**", "dist/**", "build/**", "var/**"] },
  js.configs.recommended,
  {
    files: ["static/js/**/*.js"],
    languageOptions: {
      sourceType: "script",
      globals: { ...globals.browser, Chart: "readonly", DataTable: "readonly", luxon: "readonly", jQuery: "readonly", $: "readonly" },
    },
  },
  {
    files: ["scripts/**/*.mjs", "tests/js/**/*.js", "eslint.config.mjs"],
    languageOptions: { sourceType: "module", globals: { ...globals.node, ...globals.browser } },
  },
];
