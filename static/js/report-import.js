/* AWRLens.ReportImport: AWR report files (HTML, text, zips of them) dropped on the page, or chosen with "Import
 * reports", sent to the API (POST /api/v1/reports, the API key in its header, all of them or none: docs/awr-rules.md
 * §35); once imported, the page opens the overview of the database they make, over the snapshots they report, in a
 * link that reopens it. */
(function (AWRLens, $) {
  "use strict";
  var SEL = { button: "#import-reports", input: "#import-files", note: "#import-note" };

  function note(text) { $(SEL.note).text(text).prop("hidden", !text); }

  /** The link of what an import made: its first database's overview over the snapshots imported. */
  function linkTo(body) {
    var db = body.databases[0];
    var mine = body.imported.filter(function (f) { return f.dbid === db.dbid; });
    return AWRLens.State.href({
      db: db.id, view: "overview",
      begin_snap: String(Math.min.apply(null, mine.map(function (f) { return f.begin_snap; }))),
      end_snap: String(Math.max.apply(null, mine.map(function (f) { return f.end_snap; })))
    });
  }

  function upload(files) {
    if (!files.length) { return Promise.resolve(); }
    var form = new FormData();
    Array.prototype.forEach.call(files, function (f) { form.append("file", f, f.name); });
    note("Importing " + files.length + (files.length === 1 ? " file…" : " files…"));
    return AWRLens.Api.send("/reports", form).then(function (body) {
      if (!body.imported.length) {
        note("Nothing new to import: " + body.kept_once.join("; "));
        return;
      }
      note("Imported " + body.imported.length + " report(s) of " +
        body.databases.map(function (d) { return d.db_name + " (" + d.dbid + ")"; }).join(", "));
      // the page opened next reads the databases again: the browser's copy of the list may predate the import
      return AWRLens.Api.refresh("/dbs").catch(function () { /* the page opened says what it cannot read */ })
        .then(function () { location.assign(linkTo(body)); });
    }, function (err) {
      note("");
      var problems = err.problems || [];
      AWRLens.Controls.showError(problems.length ? Object.assign(err, { message: err.message.split(":")[0] + ": " +
        problems.join("; ") }) : err);
    });
  }

  function dragged(event) {
    var types = event.originalEvent.dataTransfer && event.originalEvent.dataTransfer.types;
    return !!types && Array.prototype.indexOf.call(types, "Files") >= 0;
  }

  function init() {
    $(SEL.button).on("click", function () { $(SEL.input).trigger("click"); });
    $(SEL.input).on("change", function () { upload(this.files); this.value = ""; });
    var root = document.documentElement;
    $(document).on("dragover", function (event) {
      if (!dragged(event)) { return; }
      event.preventDefault();
      root.setAttribute("data-dropping", "");
    }).on("dragleave", function (event) {
      if (!event.originalEvent.relatedTarget) { root.removeAttribute("data-dropping"); }
    }).on("drop", function (event) {
      if (!dragged(event)) { return; }
      event.preventDefault();
      root.removeAttribute("data-dropping");
      upload(event.originalEvent.dataTransfer.files);
    });
  }

  AWRLens.ReportImport = { init: init, upload: upload, linkTo: linkTo };
  $(init);
}(window.AWRLens = window.AWRLens || {}, window.jQuery));
