/* AWRLens.Tables: DataTables, sortable and searchable, with CSV and copy buttons.
 * Database text (SQL text, module, event and tablespace names) is data: every cell is rendered as text
 * (DataTable.render.text() or escaped), never as HTML, and so is every column title (DataTables takes a title as
 * HTML; a benchmark's extra attribute names become titles). CSV and copy export the raw values, not the display. */
(function (AWRLens, $) {
  "use strict";
  var F = AWRLens.Format;
  var DataTable = window.DataTable;
  var live = new Set();

  var element = AWRLens.Dom.element;

  /** Export (CSV and Copy): the raw value, a list joined by spaces, text made formula-safe (Format.formulaSafe). */
  function exported(value) {
    if (value === null || value === undefined) { return ""; }
    return F.formulaSafe(Array.isArray(value) ? value.join(" ") : value);
  }

  /** A column's title in CSV and copy, where the values are raw numbers: with its unit when it has one ("Elapsed (s)"). */
  function exportTitle(col) {
    return col.title + (typeof col.unit === "string" && col.unit ? " (" + F.unitTitle(col.unit) + ")" : "");
  }

  /** The DataTables renderer of one column: display escaped and formatted, sort by value, export raw. */
  /** The class of a change: "worse" or "better" only where the answer says which way is better by nature
   * ("lower" or "higher", docs/awr-rules.md §29); otherwise neutral (""), whichever way it goes. */
  function direction(pct, better) {
    if (!pct || (better !== "lower" && better !== "higher")) { return ""; }
    return (pct > 0) === (better === "higher") ? "better" : "worse";
  }

  function renderer(col, zone) {
    if (col.type === "text") {
      var text = DataTable.render.text();
      return function (data, type) {
        if (type === "export") { return exported(data); }
        if (type === "display" || type === "filter") { return text.display(data === null || data === undefined ? "" : data); }
        return data === null || data === undefined ? "" : data;
      };
    }
    return function (data, type, row) {
      if (type === "export") { return exported(data); }
      if (type === "sort" || type === "type") {
        if (col.type === "time") { return data ? Date.parse(data) : 0; }
        if (col.type === "plans") { return (data || []).join(" "); }
        return data === null || data === undefined ? -Infinity : data;
      }
      var shown;
      if (col.type === "time") {
        shown = data ? F.fmtTime(Date.parse(data), zone()) : "—";
      } else if (col.type === "change") {
        if (type !== "display") { return F.fmtChange(data); }
        var better = col.better ? row[col.better] : null;
        return '<span class="' + direction(data, better) + '" data-better="' + F.esc(better || "") + '">' +
          F.esc(F.fmtChange(data)) + "</span>";
      } else if (col.type === "plans") {
        shown = (data || []).join(", ");
      } else if (col.type === "param") {  // a parameter's value: a size (row.unit bytes) in binary units
        var size = row.unit === "bytes" && /^\d+$/.test(String(data)) && Number(data) > 0;
        shown = size ? F.fmtValue(Number(data), "bytes") : data === null || data === undefined ? "—" : String(data);
      } else if (col.type === "id") {
        shown = data === null || data === undefined ? "—" : String(data);
      } else if (col.type === "link") {
        if (type !== "display" || data === null || data === undefined) { return data === undefined ? null : data; }
        // a link of its own (`follow`) goes where it says; any other is the row's, whose click is onRow's
        return '<a class="row-link" href="' + F.esc(col.href(row)) + '"' + (col.follow ? " data-follow" : "") + ">" +
          F.esc(data) + "</a>";
      } else {
        shown = F.fmtValue(data, typeof col.unit === "function" ? col.unit(row) : col.unit);
      }
      return type === "display" ? F.esc(shown) : shown;
    };
  }

  /**
   * spec: {id, title, columns: [{key, title, type: text|num|id|param|change|time|plans|link, unit, href, follow, optional, wrap,
   *        better (change: the row's key that says which way is better)}], order,
   *        onRow(row) (a click or Enter on a row), rowMark(row) (a word set as the row's data-mark, or none),
   *        zone() (the time zone of time columns), pageLength, wide}
   * An optional column is shown, and exported, only when a row has a value in it (a CDB's containers).
   */
  function Table(container, spec) {
    this.spec = spec;
    this.gen = 0;
    this.card = element("section", { "class": "card table-card" + (spec.wide ? " wide" : ""), "data-table": spec.id,
      "data-state": "loading", "aria-labelledby": "h-" + spec.id });
    var head = element("header", { "class": "card-head" });
    head.appendChild(element("h3", { id: "h-" + spec.id }, spec.title));
    if (spec.tools) { head.appendChild(spec.tools); }
    this.card.appendChild(head);
    this.status = element("p", { "class": "status", role: "status", "aria-live": "polite" }, "Loading…");
    this.card.appendChild(this.status);
    this.table = element("table", { "class": "display compact", id: "t-" + spec.id, style: "width:100%" });
    this.table.appendChild(element("caption", { "class": "sr-only" }, spec.title));
    this.card.appendChild(this.table);
    container.appendChild(this.card);
    live.add(this);
  }

  /** The DataTable itself, built when the first rows arrive: the page asks for its data first. */
  Table.prototype.create = function () {
    var self = this, spec = this.spec;
    var exportOptions = { orthogonal: "export", columns: ":visible", format: {
      // the title as text, not HTML; by the header cell's own column (idx may count the exported columns only)
      header: function (_, idx, th) { return F.formulaSafe(exportTitle(spec.columns[th ? self.dt.column(th).index() : idx])); },
      body: function (d) { return d === null || d === undefined ? "" : d; } } };
    this.dt = new DataTable(this.table, {
      data: [],
      columns: spec.columns.map(function (c) {
        return { data: c.key, title: F.esc(c.title), defaultContent: "", render: renderer(c, spec.zone || function () { return "local"; }),
          type: c.type === "text" || c.type === "link" || c.type === "plans" || c.type === "param" ? "string" : "num",
          // a clipped cell's whole text, or another field of the row (`hover`: an id beside its name), on hover
          createdCell: c.clip || c.hover ? function (td, data, row) {
            var shown = c.hover ? row[c.hover] : data;
            td.title = shown === null || shown === undefined ? "" : String(shown);
          } : null,
          className: (c.type === "text" || c.type === "link" || c.type === "plans" || c.type === "param" ? "" : "dt-right") + (c.clip ? " clip" : "") +
            (c.wrap ? " wrap" : "") };
      }),
      order: spec.order || [],
      ordering: spec.sortable !== false,  // a tree's rows keep their order
      pageLength: spec.pageLength || 10,
      lengthMenu: [10, 25, 50, 100],
      autoWidth: false,
      layout: { topStart: "buttons", topEnd: "search", bottomStart: "info", bottomEnd: "paging" },
      buttons: [
        { extend: "copyHtml5", text: "Copy", exportOptions: exportOptions, title: null, footer: false },
        { extend: "csvHtml5", text: "CSV", exportOptions: exportOptions, title: null, footer: false,
          // the database and the range shown name the file (Views.fileName); Buttons adds the extension
          filename: function () { return AWRLens.Views.fileName(spec.id, "csv").replace(/\.csv$/, ""); } }
      ],
      language: { emptyTable: "No data in this range.", zeroRecords: "No matching rows.", search: "Search:" },
      createdRow: function (tr, row) {
        if (spec.onRow) { tr.classList.add("clickable"); }
        var mark = spec.rowMark && spec.rowMark(row);  // a row's kind, as data-mark (the plan diff's changes)
        if (mark) { tr.setAttribute("data-mark", mark); }
      }
    });
    if (spec.onRow) {
      $(this.table).on("click", "tbody tr", function (e) {
        var row = self.dt.row(this).data();
        if (!row) { return; }
        if (e.target.closest("a") && (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0)) { return; }
        if (e.target.closest("a[data-follow]")) { return; }  // the link's own destination, not the row's
        e.preventDefault();
        spec.onRow(row);
      });
    }
  };

  Table.prototype.setState = function (state, message) {
    this.card.setAttribute("data-state", state);
    this.status.textContent = message || "";
    this.status.classList.toggle("is-error", state === "error");
  };

  Table.prototype.setRows = function (rows) {
    if (!this.dt) { this.create(); }
    this.dt.clear();
    this.dt.rows.add(rows || []);
    var dt = this.dt;
    this.spec.columns.forEach(function (c, idx) {
      if (c.optional) {
        dt.column(idx).visible((rows || []).some(function (r) { return r[c.key] !== null && r[c.key] !== undefined; }), false);
      }
    });
    this.dt.draw(false);
    this.setState(rows && rows.length ? "ready" : "empty", rows && rows.length ? "" : "No data in this range.");
  };

  /** Fill from a Promise of rows, ignoring answers that arrive after a newer request. */
  Table.prototype.load = function (promise) {
    var self = this, gen = ++this.gen;
    if (this.card.getAttribute("data-state") !== "loading") { this.setState("refreshing", "Loading…"); }
    promise.then(function (rows) {
      if (gen === self.gen) { self.setRows(rows); }
    }).catch(function (err) {
      if (gen !== self.gen) { return; }
      self.setRows([]);
      self.setState("error", "Could not load this table: " + err.message);
    });
  };

  /** Redraw cells (e.g. after a time zone switch). */
  /** A new title, for a table whose subject is known only once its data is (the plan diff's plan A). */
  Table.prototype.setTitle = function (title) {
    this.card.querySelector("h3").textContent = title;
    this.table.querySelector("caption").textContent = title;
  };

  Table.prototype.redraw = function () { if (this.dt) { this.dt.rows().invalidate("data").draw(false); } };

  Table.prototype.destroy = function () {
    this.gen += 1;
    if (this.dt) { this.dt.destroy(); }
    this.card.remove();
    live.delete(this);
  };

  AWRLens.Tables = {
    create: function (container, spec) { return new Table(container, spec); },
    /** Column specs: a number shown with its unit, an identifier (a snapshot id: its digits, no separators), and text. */
    num: function (key, title, unit) { return { key: key, title: title, type: "num", unit: unit }; },
    id: function (key, title) { return { key: key, title: title, type: "id" }; },
    text: function (key, title) { return { key: key, title: title, type: "text" }; },
    /** The container of a row in a CDB root (shown only there). */
    container: { key: "container", title: "Container", type: "text", optional: true },
    direction: direction,
    settled: function () {
      return Array.from(live).every(function (t) {
        var s = t.card.getAttribute("data-state");
        return s !== "loading" && s !== "refreshing";
      });
    }
  };
}(window.AWRLens = window.AWRLens || {}, window.jQuery));
