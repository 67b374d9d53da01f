/* AWRLens.Controls: the page's fixed controls (database and instance pickers, view tabs, range presets, the
 * absolute and snapshot range forms, time zone, Copy link), the error display and the API key form.
 * A control only changes the state (AWRLens.State, the URL); sync() shows the state the router drew. */
(function (AWRLens, $) {
  "use strict";
  var F = AWRLens.Format, Api = AWRLens.Api, State = AWRLens.State, Dbs = AWRLens.Databases;
  var element = AWRLens.Dom.element;
  var cfg = window.AWRLENS_CONFIG || {};
  var SEL = {  // every fixed element of the page
    db: "#db", inst: "#instance", tabs: "#tabs button[data-view]", viewMenu: "#view-menu", theme: "#theme", presets: "button[data-range]",
    absForm: "#abs-range", from: "#from", to: "#to", snapForm: "#snap-range", beginSnap: "#begin-snap",
    endSnap: "#end-snap", tz: "#tz", copy: "#copy-link", link: "#link", rangeLabel: "#range-label",
    report: "#report", reportDownload: "#report-download",
    error: "#error", errorText: "#error-text", errorClose: "#error-close", main: "#view"
  };
  var shownWindow = function () { return null; };  // the window the view shows (the router's)

  // -- the error display ------------------------------------------------------------------------------------

  function showError(err) {
    var text = "The API answered" + (err.status ? " " + err.status : "") + (err.code ? " (" + err.code + ")" : "") +
      ": " + err.message + (err.parameter ? " [parameter: " + err.parameter + "]" : "");
    if (!err.status && !err.code) { text = "Error: " + err.message; }
    $(SEL.errorText).text(text);
    $(SEL.error).prop("hidden", false);
  }

  function clearError() { $(SEL.error).prop("hidden", true); $(SEL.errorText).text(""); }

  // -- the controls, from the state -------------------------------------------------------------------------

  function fillDatabases(dbs) {
    var sel = $(SEL.db).empty();
    dbs.forEach(function (d) {
      sel.append($("<option>").val(d.id).text(d.name + " (" + d.dbid + ")" + (d.rac ? " · RAC, " + d.instances.length +
        (d.instances.length === 1 ? " instance" : " instances") : "") +
        (d.source === "statspack" ? " · Statspack" : d.source === "awr" ? "" : " · no history source") +
        (d.imported ? " · imported reports" : "")));
    });
  }

  function fillInstances(db) {
    var sel = $(SEL.inst).empty();
    sel.append($("<option>").val("all").text(db.rac ? "All instances, combined" : "The instance"));
    sel.append($("<option>").val("each").text("Each instance"));
    db.instances.forEach(function (i) {
      sel.append($("<option>").val(String(i.instance_number))
        .text(i.instance_number + ": " + i.instance_name + " on " + i.host_name));
    });
  }

  /** The view tabs as a menu too (a phone shows the menu instead of the tabs: app.css). */
  function fillViewMenu() {
    var menu = $(SEL.viewMenu);
    $(SEL.tabs).each(function () { menu.append($("<option>").val(this.getAttribute("data-view")).text(this.textContent)); });
  }

  function pressTab(name) {
    $(SEL.viewMenu).val(name);
    $(SEL.tabs).each(function () {
      var on = this.getAttribute("data-view") === name;
      this.setAttribute("aria-pressed", String(on));
      if (on) { this.setAttribute("aria-current", "page"); } else { this.removeAttribute("aria-current"); }
    });
  }

  /** Show the state drawn: database, instances, view, range (the window resolved), time zone. */
  function sync(state, db, win) {
    $(SEL.db).val(db.id);
    if ($(SEL.inst).data("db") !== db.id) { fillInstances(db); $(SEL.inst).data("db", db.id); }
    $(SEL.inst).val(state.inst);
    pressTab(state.view);
    $(SEL.presets).each(function () { this.setAttribute("aria-pressed", String(this.getAttribute("data-range") === state.range)); });
    var dbOffset = F.fmtTime(db.last, Dbs.zone(db), true).slice(-6);
    var local = F.fmtTime(Date.now(), "local", true).slice(-6);
    $(SEL.tz).find("option[value=db]").text("database time (UTC" + dbOffset + ")");
    $(SEL.tz).find("option[value=browser]").text("browser time (UTC" + local + ")");
    $(SEL.tz).val(state.tz);
    $(SEL.from).val(F.inputTime(win.from, win.zone));
    $(SEL.to).val(F.inputTime(win.to, win.zone));
    $(SEL.beginSnap).attr({ min: db.firstSnap, max: db.lastSnap }).val(win.snaps ? win.snaps[0] : "")
      .attr("placeholder", db.firstSnap);
    $(SEL.endSnap).attr({ min: db.firstSnap, max: db.lastSnap }).val(win.snaps ? win.snaps[1] : "")
      .attr("placeholder", db.lastSnap);
    var days = (win.to - win.from) / Dbs.DAY;
    var span = days >= 1 ? F.fmtValue(Math.round(days * 10) / 10) + " days" : F.fmtValue(Math.round(days * 240) / 10) + " hours";
    var label = db.name + " · " + F.fmtTime(win.from, win.zone) + " → " + F.fmtTime(win.to, win.zone) +
      " (" + (state.tz === "browser" ? "browser" : "database") + " time, UTC" + F.fmtTime(win.to, win.zone, true).slice(-6) +
      ") · " + span + (state.range ? ", ending at the newest snapshot" : "");
    var shown = $(SEL.rangeLabel).text(label + (win.snaps ? " · snapshots " + win.snaps[0] + "–" + win.snaps[1] : ""))
      .data("win", win);
    if (!win.snaps) {  // a time range: its snapshot ids, so a DBA can run Oracle's own scripts on the same range
      Api.get(Dbs.path(db, "/range"), win.params, { silent: true }).then(function (body) {
        if (shown.data("win") === win && body.range.begin_snap !== null) {
          shown.text(label + " · snapshots " + body.range.begin_snap + "–" + body.range.end_snap);
          // the snapshot boxes show the range shown, not the whole history (their placeholders)
          $(SEL.beginSnap).val(body.range.begin_snap);
          $(SEL.endSnap).val(body.range.end_snap);
        }
      }, function () { /* the label without them */ });
    }
    $(SEL.link).prop("hidden", true).val("");
    $(SEL.copy).text("Copy link");
  }

  // -- the controls, to the state ---------------------------------------------------------------------------

  function bind() {
    $(SEL.db).on("change", function () { State.set({ db: this.value, inst: "all", sql: null, ts: null, a_from: null, a_to: null, b_from: null, b_to: null,
      filter: null }); });
    $(SEL.inst).on("change", function () { State.set({ inst: this.value }); });
    $(SEL.tabs).on("click", function () { State.set({ view: this.getAttribute("data-view") }); });
    $(SEL.viewMenu).on("change", function () { State.set({ view: this.value }); });
    $(SEL.theme).val(AWRLens.Theme.chosen()).on("change", function () { AWRLens.Theme.choose(this.value); });
    $(SEL.presets).on("click", function () { State.set({ range: this.getAttribute("data-range") }); });
    $(SEL.tz).on("change", function () { State.set({ tz: this.value }); });
    $(SEL.absForm).on("submit", function (e) {
      e.preventDefault();
      var db = Dbs.get(State.get().db), zone = Dbs.zoneOf(State.get(), db);
      var from = F.parseInputTime($(SEL.from).val(), zone), to = F.parseInputTime($(SEL.to).val(), zone);
      if (!(from < to)) { showError(new Error("the range needs a start before its end")); return; }
      if (to - from > cfg.maxRangeDays * Dbs.DAY) {
        showError(new Error("the range is longer than the " + F.fmtValue(cfg.maxRangeDays) + " days the API allows"));
        return;
      }
      setWindow(from, to);
    });
    $(SEL.snapForm).on("submit", function (e) {
      e.preventDefault();
      var a = parseInt($(SEL.beginSnap).val(), 10), b = parseInt($(SEL.endSnap).val(), 10);
      if (!(a < b)) { showError(new Error("the first snapshot must come before the last")); return; }
      State.set({ begin_snap: String(a), end_snap: String(b) });
    });
    $(SEL.copy).on("click", copyLink);
    $(SEL.report).on("click", function () { report(false); });
    $(SEL.reportDownload).on("click", function () { report(true); });
    $(SEL.errorClose).on("click", clearError);
  }

  /** A new absolute window (from a zoom, a pan, the buttons or the form), to the minute, in the database's zone:
   * a new history entry, or (how: "replace") a step of the gesture that made the last one. */
  function setWindow(from, to, how) {
    var db = Dbs.get(State.get().db), minute = 60000;
    from = Math.round(from / minute) * minute;
    to = Math.round(to / minute) * minute;
    if (to <= from) { to = from + minute; }
    State.set({ from: F.isoTime(from, Dbs.zone(db)), to: F.isoTime(to, Dbs.zone(db)) }, how);
  }

  /** The link to this view with a relative range made absolute, so the recipient sees the same data. */
  function absoluteLink() {
    var state = State.get(), db = Dbs.get(state.db), win = shownWindow();
    if (state.range && win) {
      state = State.merge(state, { from: F.isoTime(win.from, Dbs.zone(db)), to: F.isoTime(win.to, Dbs.zone(db)) });
    }
    if (/^[0-9]+$/.test(state.live || "") && win && win.live) {  // the live view's last minutes: the window shown
      state = Object.assign({}, state, { live: win.live });
    }
    return State.href(state);
  }

  function copyLink() {
    var link = absoluteLink();
    var box = $(SEL.link).val(link).prop("hidden", false);
    box.trigger("select");
    AWRLens.Dom.copyText(link, function () { $(SEL.copy).text("Link copied"); },
      function () { $(SEL.copy).text("Copy the link below"); });
  }

  /** The report of the range shown (GET .../report): in a new tab, or downloaded. It is fetched with the key header and
   * opened from a Blob URL, since a new tab opened on the API's URL could not send the key (and no key goes in a URL).
   * The tab is opened at the click, before the answer, so no popup blocker stops it; the report forbids scripts
   * itself (its Content-Security-Policy meta tag), as the Blob URL's document does not get the answer's headers. */
  function report(download) {
    var state = State.get(), db = Dbs.get(state.db), win = shownWindow();
    if (!db || !win) { return; }
    var params = Object.assign({}, win.params, { instance: state.inst === "each" ? "all" : state.inst },
      download ? { download: 1 } : {});
    var tab = download ? null : window.open("", "_blank");
    if (tab) { tab.opener = null; tab.document.title = "awrlens report…"; }
    Api.file(Dbs.path(db, "/report"), params).then(function (got) {
      var href = URL.createObjectURL(got.blob);
      if (download) {
        var link = element("a", { href: href, download: got.filename, hidden: "" });
        document.body.appendChild(link);
        link.click();
        link.remove();
        setTimeout(function () { URL.revokeObjectURL(href); }, 60000);
      } else if (tab) {  // the tab's Blob URL is kept while this page lives: a reload or "Save as" there reads it again
        tab.location.href = href;
      } else {
        URL.revokeObjectURL(href);
        showError(new Error("the browser blocked the report's new tab: allow pop-ups for this page, or use Download report"));
      }
    }).catch(function (err) {
      if (tab) { tab.close(); }
      showError(err);
    });
  }

  /** A form for the API key: kept for this tab's session, then the page starts again with it. */
  function keyForm(container) {
    var form = element("form", { "class": "key-form", "aria-label": "Give the API key" });
    form.appendChild(element("label", { "for": "api-key" }, "API key"));
    var input = element("input", { id: "api-key", type: "password", autocomplete: "off", required: "", size: "28" });
    form.appendChild(input);
    form.appendChild(element("button", { type: "submit" }, "Use this key"));
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      Api.setKey(input.value.trim());
      location.reload();
    });
    container.appendChild(form);
    return form;
  }

  AWRLens.Controls = {
    SEL: SEL,
    /** Fill the database picker and follow the controls; windowShown() gives the window the view shows. */
    init: function (dbs, windowShown) {
      shownWindow = windowShown;
      fillDatabases(dbs);
      fillViewMenu();
      bind();
    },
    sync: sync,
    pressTab: pressTab,
    showError: showError,
    clearError: clearError,
    setWindow: setWindow,
    absoluteLink: absoluteLink,
    keyForm: keyForm
  };
}(window.AWRLens = window.AWRLens || {}, window.jQuery));
