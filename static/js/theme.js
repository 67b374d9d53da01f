/* AWRLens.Theme: light or dark. The system's setting (prefers-color-scheme) unless the header's choice says
 * otherwise; that choice is kept in this browser (localStorage), not in the link: a link shows the same data, in
 * the recipient's theme. Loaded in the page's head, so the first paint is in the theme. The colours are app.css's
 * (its custom properties); charts read them through color(). */
(function (AWRLens) {
  "use strict";
  var KEY = "awrlens.theme";
  var media = window.matchMedia("(prefers-color-scheme: dark)");
  var listeners = [];

  /** "system", "light" or "dark": what this browser chose. */
  function chosen() {
    try { return localStorage.getItem(KEY) || "system"; } catch (e) { return "system"; }
  }

  /** "light" or "dark": the theme shown. */
  function current() {
    var c = chosen();
    return c === "light" || c === "dark" ? c : media.matches ? "dark" : "light";
  }

  function apply() {
    var root = document.documentElement, theme = current();
    root.setAttribute("data-theme", theme);
    root.classList.toggle("dark", theme === "dark");  // DataTables' own dark styles
    listeners.forEach(function (fn) { fn(theme); });
  }

  function choose(value) {
    try {
      if (value === "light" || value === "dark") { localStorage.setItem(KEY, value); } else { localStorage.removeItem(KEY); }
    } catch (e) { /* no storage: the choice lasts as long as the page */ }
    apply();
  }

  /** A colour of the theme shown, by app.css's name for it ("ink", "panel"...), or a colour as given. */
  function color(name) {
    if (!/^--/.test(name || "")) { return name; }
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  }

  media.addEventListener("change", apply);
  apply();

  AWRLens.Theme = {
    chosen: chosen,
    current: current,
    choose: choose,
    color: color,
    onChange: function (fn) { listeners.push(fn); }
  };
}(window.AWRLens = window.AWRLens || {}));
