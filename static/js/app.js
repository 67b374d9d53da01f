/* AWRLens.App: the one boot call. Reads the databases, then draws the state in the URL and follows it. */
(function (AWRLens, $) {
  "use strict";
  var booted = false;

  function start() {
    performance.mark("awrlens:boot");
    AWRLens.Api.onError(AWRLens.Views.showError);
    // a benchmark link opens without the databases (a public run needs no key, the database list does)
    var standalone = AWRLens.Views.standalone(AWRLens.State.init().view);
    AWRLens.Api.get("/dbs", null, { silent: standalone }).then(function (body) {
      if (!body.databases.length && !standalone) {
        AWRLens.Views.fail("The store holds no database yet. Run `make demo`, or configure AWRLENS_TARGETS.");
        return;
      }
      go(body.databases);
    }).catch(function (err) {
      if (standalone || err.status === 401) { go([]); return; }  // the history views then ask for the key
      AWRLens.Views.fail("Cannot load the list of databases: " + err.message + ". Reload the page to try again.");
    });
  }

  function go(databases) {
    AWRLens.Views.init(databases);
    AWRLens.State.onChange(AWRLens.Views.render);
    AWRLens.Views.render(AWRLens.State.init(), {}, "init");
    booted = true;
  }

  AWRLens.App = {
    start: start,
    /** True when the page has drawn the state in the URL and waits for nothing (for tests and benchmarks). */
    settled: function () {
      return booted && AWRLens.Api.pending() === 0 && AWRLens.Charts.settled() && AWRLens.Tables.settled();
    }
  };

  $(start);
}(window.AWRLens = window.AWRLens || {}, window.jQuery));
