/* AWRLens.Api: the one AJAX wrapper. Adds the base URL and the API key, keeps answers for a while, and routes
 * every failure to one error display (set with onError) as an Error with the API's status, code and message. */
(function (AWRLens, $) {
  "use strict";
  var cfg = window.AWRLENS_CONFIG || {};
  var cache = new Map();  // url -> {at, promise}: same URL, same answer (and one request for concurrent callers)
  var pending = 0;
  var display = function () {};
  var idle = [];  // callbacks waiting for every request to be answered

  /** A query string: arrays repeat the key, empty values are left out, ':' ',' '/' stay readable. */
  function query(params) {
    var parts = [];
    Object.keys(params || {}).forEach(function (key) {
      [].concat(params[key]).forEach(function (v) {
        if (v === null || v === undefined || v === "") { return; }
        parts.push(encodeURIComponent(key) + "=" + encodeURIComponent(v)
          .replace(/%3A/g, ":").replace(/%2C/g, ",").replace(/%2F/g, "/").replace(/%20/g, "+"));
      });
    });
    return parts.join("&");
  }

  function url(path, params) {
    var q = query(params);
    return (cfg.apiBase || "") + "/api/v1" + path + (q ? "?" + q : "");
  }

  /** An Error from a failed request: the API's own message when it sent its JSON error body. */
  function failure(xhr, status, address) {
    var body = xhr.responseJSON && xhr.responseJSON.error;
    var err;
    if (body && body.message) {
      err = new Error(body.message);
      err.code = body.code;
      err.parameter = body.parameter;
      err.status = body.status || xhr.status;
    } else if (status === "timeout") {
      err = new Error("the API did not answer within " + Math.round((cfg.timeoutMs || 30000) / 1000) + " s");
      err.status = 0;
    } else if (!xhr.status) {
      err = new Error("cannot reach the API at " + ((cfg.apiBase || location.origin) + "/api/v1"));
      err.status = 0;
    } else {
      err = new Error("the API answered " + xhr.status + " " + (xhr.statusText || "") + " without an explanation");
      err.status = xhr.status;
    }
    err.url = address;
    return err;
  }

  function setBusy() { document.documentElement.setAttribute("data-pending", String(pending)); }

  // a key typed into the page (private benchmark runs) lasts for the browser tab's session
  try { cfg.apiKey = cfg.apiKey || sessionStorage.getItem("awrlens.apiKey") || ""; } catch { /* storage off */ }

  /** GET path with params: a Promise of the JSON answer. Failures also go to the error display, unless
   * opts.silent (the caller shows them in its own place); opts.fresh asks again whatever was asked before (the live
   * buffer's last minutes move with its now). */
  function get(path, params, opts) {
    var address = url(path, params);
    var hit = cache.get(address);
    if (hit && !(opts && opts.fresh) && Date.now() - hit.at < (cfg.cacheSeconds || 0) * 1000) { return hit.promise; }
    pending += 1;
    setBusy();
    var promise = new Promise(function (resolve, reject) {
      $.ajax({
        url: address, dataType: "json", cache: true, timeout: cfg.timeoutMs || 30000,
        headers: cfg.apiKey ? { "x-api-key": cfg.apiKey } : {}
      }).done(function (body) {
        resolve(body);
      }).fail(function (xhr, status) {
        cache.delete(address);
        var err = failure(xhr, status, address);
        if (!(opts && opts.silent)) { display(err); }
        reject(err);
      }).always(function () {
        pending -= 1;
        setBusy();
        if (!pending) { idle.splice(0).forEach(function (fn) { setTimeout(fn, 0); }); }
      });
    });
    cache.set(address, { at: Date.now(), promise: promise });
    if (cache.size > 300) { cache.delete(cache.keys().next().value); }
    return promise;
  }

  /** GET path as a document or a file, fetched with the API key in its header as every request (a link or a frame's
   * src cannot carry it, and the key never goes in a URL): a Promise of {text, type (html or text), filename} or, with
   * `asBlob`, of {blob, filename}; the name is the API's, from Content-Disposition. Not kept (read once): Oracle's own
   * reports (awr-report-views.js) and the app's report of a range (controls.js). */
  function fetchDocument(path, params, asBlob) {
    var address = url(path, params);
    pending += 1;
    setBusy();
    var done = function () {
      pending -= 1;
      setBusy();
      if (!pending) { idle.splice(0).forEach(function (fn) { setTimeout(fn, 0); }); }
    };
    return fetch(address, { headers: cfg.apiKey ? { "x-api-key": cfg.apiKey } : {}, credentials: "omit",
      referrerPolicy: "no-referrer" }).then(function (resp) {
      if (!resp.ok) {
        return resp.json().catch(function () { return {}; }).then(function (body) {
          throw failure({ status: resp.status, statusText: resp.statusText, responseJSON: body }, "error", address);
        });
      }
      var named = /filename="([^"]+)"/.exec(resp.headers.get("Content-Disposition") || "");
      var filename = named ? named[1] : null;
      if (asBlob) { return resp.blob().then(function (blob) { return { blob: blob, filename: filename }; }); }
      var html = /^text\/html/.test(resp.headers.get("Content-Type") || "");
      return resp.text().then(function (text) { return { text: text, type: html ? "html" : "text", filename: filename }; });
    }, function () {
      throw failure({ status: 0 }, "error", address);
    }).finally(done);
  }

  /** POST `body` (a FormData) to path, the API key in its header: a Promise of the JSON answer, or of the API's
   * failure as get()'s (with the error's `problems`, where it lists them). Never kept. */
  function send(path, body) {
    var address = url(path);
    pending += 1;
    setBusy();
    return fetch(address, { method: "POST", body: body, headers: cfg.apiKey ? { "x-api-key": cfg.apiKey } : {},
      credentials: "omit", referrerPolicy: "no-referrer" }).then(function (resp) {
      return resp.json().catch(function () { return {}; }).then(function (json) {
        if (resp.ok) { cache.clear(); return json; }
        var err = failure({ status: resp.status, statusText: resp.statusText, responseJSON: json }, "error", address);
        err.problems = json.error && json.error.problems;
        throw err;
      });
    }, function () {
      throw failure({ status: 0 }, "error", address);
    }).finally(function () {
      pending -= 1;
      setBusy();
      if (!pending) { idle.splice(0).forEach(function (fn) { setTimeout(fn, 0); }); }
    });
  }

  /** GET path again from the API, past the page's answers and the browser's copy (fetch's cache "reload" stores the
   * new answer in its place): a page loaded next finds the new answer, not one kept from before (the list of
   * databases after an import, report-import.js). A Promise of the JSON answer. */
  function refresh(path, params) {
    var address = url(path, params);
    cache.delete(address);
    return fetch(address, { cache: "reload", headers: cfg.apiKey ? { "x-api-key": cfg.apiKey } : {} })
      .then(function (resp) { return resp.json(); });
  }

  /** The app's report (or any document) as a file: fetchDocument's {blob, filename}. */
  function file(path, params) {
    return fetchDocument(path, params, true).then(function (got) {
      return { blob: got.blob, filename: got.filename || "awrlens-report.html" };
    });
  }

  AWRLens.Api = {
    get: get,
    fetchDocument: fetchDocument,
    file: file,
    send: send,
    refresh: refresh,
    url: url,
    query: query,
    onError: function (fn) { display = fn; },
    /** Use `key` as the API key from now on (and for this tab's session); answers kept so far are forgotten. */
    setKey: function (key) {
      cfg.apiKey = key || "";
      cache.clear();
      try { sessionStorage.setItem("awrlens.apiKey", cfg.apiKey); } catch { /* storage off */ }
    },
    hasKey: function () { return !!cfg.apiKey; },
    pending: function () { return pending; },
    /** Run fn once no request is waiting (for prefetches, so they never delay what is shown). */
    whenIdle: function (fn) {
      idle.push(fn);
      if (!pending) { idle.splice(0).forEach(function (f) { setTimeout(f, 0); }); }
    }
  };
}(window.AWRLens = window.AWRLens || {}, window.jQuery));
