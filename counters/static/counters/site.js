/* Count the views of a page that Django does not serve (a static docs site, a blog, a single-page app).
 * Paste one tag into every page, on an origin listed in COUNTERS_SITE_ORIGINS:
 *   <script src="https://counters.example.com/static/counters/site.js" defer></script>
 * On load, and on each history change to a new path (history.pushState / replaceState, the back and
 * forward buttons: popstate), it sends {"path", "title", "referrer", "utm_source"} to /api/hit on the
 * site that served this script (or to data-endpoint="..."), with navigator.sendBeacon (fetch with
 * keepalive where there is none). It sets and reads no cookie and sends none (fetch: credentials
 * "omit"); the referrer goes as its origin only (the site keeps its domain), and only for the first view
 * (later views are moves within the site). The query is never sent, only its utm_source. */
(function () {
  "use strict";

  var script = document.currentScript;
  if (!script || window.CountersSite) return;
  var endpoint = script.getAttribute("data-endpoint") || new URL("/api/hit", script.src).href;
  var UTM = /^[\w.\-+ ]{1,64}$/;
  var counted = null; // the path last counted: a history change to the same path is no new view

  function referrer(first) {
    if (!first || !/^https?:\/\//i.test(document.referrer)) return "";
    try {
      return new URL(document.referrer).origin + "/";
    } catch (error) {
      return "";
    }
  }

  function utmSource() {
    var value = new URLSearchParams(window.location.search).get("utm_source") || "";
    return UTM.test(value) ? value : "";
  }

  function post(body) {
    if (navigator.sendBeacon && navigator.sendBeacon(endpoint, body)) return;
    if (window.fetch) {
      window.fetch(endpoint, {
        method: "POST", body: body, keepalive: true, mode: "cors", credentials: "omit",
        headers: { "Content-Type": "text/plain" }
      }).catch(function () { /* a lost view is not worth an error on the page */ });
    }
  }

  function count() {
    var path = window.location.pathname;
    if (path === counted || document.visibilityState === "prerender") return;
    var first = counted === null;
    counted = path;
    post(JSON.stringify({
      path: path,
      title: document.title.slice(0, 200),
      referrer: referrer(first),
      utm_source: utmSource()
    }));
  }

  // After the history changes, once the application had a moment to set the new page's title.
  function soon() {
    window.setTimeout(count, 0);
  }

  ["pushState", "replaceState"].forEach(function (name) {
    var original = window.history[name];
    window.history[name] = function () {
      var result = original.apply(this, arguments);
      soon();
      return result;
    };
  });
  window.addEventListener("popstate", soon);
  window.CountersSite = { count: count, endpoint: endpoint };
  count();
})();
