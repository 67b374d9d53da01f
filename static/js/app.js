/* AWRLens.App: the one boot call. Reads the databases, then draws the state in the URL and follows it. */
(function (AWRLens, $) {
  "use strict";
  var booted = false;

  function start() {
    performance.mark("awrlens:boot");
    AWRLens.Api.onError(AWRLens.Views.showError);
    AWRLens.Api.get("/dbs").then(function (body) {
      if (!body.databases.length) {
        AWRLens.Views.fail("The store holds no database yet. Run `make demo`, or configure AWRLENS_TARGETS.");
        return;
      }
      AWRLens.Views.init(body.databases);
      AWRLens.State.onChange(AWRLens.Views.render);
      AWRLens.Views.render(AWRLens.State.init(), {}, "init");
      booted = true;
    }).catch(function (err) {
      AWRLens.Views.fail("Cannot load the list of databases: " + err.message + ". Reload the page to try again.");
    });
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
