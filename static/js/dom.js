/* AWRLens.Dom: the page's one way to make an element, and to put a link on the clipboard.
 * Text goes in as text (textContent), never as HTML: database strings are data. */
(function (AWRLens) {
  "use strict";

  /** An element with attributes and, when given, its text. */
  function element(tag, attrs, text) {
    var el = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { el.setAttribute(k, attrs[k]); });
    if (text !== undefined) { el.textContent = text; }
    return el;
  }

  /** Copy text to the clipboard: done() once copied; failed() when the browser will not (no clipboard outside a
   * secure context, or permission refused), for the caller to show the text to copy by hand. */
  function copyText(text, done, failed) {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, failed);
    } else {
      failed();
    }
  }

  /** A lookup table without Object's prototype: a key from a link or from the database ("constructor",
   * "__proto__", "toString") finds nothing instead of one of Object's own members. */
  function table(entries) {
    return Object.assign(Object.create(null), entries || {});
  }

  AWRLens.Dom = { element: element, copyText: copyText, table: table };
}(window.AWRLens = window.AWRLens || {}));
