/* A phone on a talk's code (/p/<talk code>): asks every few seconds which poll the presenter has open
 * (GET /api/talks/<code>) and loads that poll's page when it changes. */
(function () {
  "use strict";

  var marker = document.querySelector("[data-talk-follow]");
  if (!marker) return;

  var EVERY_MS = 2000;
  var showing = marker.getAttribute("data-talk-poll") || "";
  var url = marker.getAttribute("data-talk-follow");

  function ask() {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (body) {
        var open = body && body.poll ? body.poll.id : "";
        if (body && open !== showing) {
          window.location.reload();
          return;
        }
        window.setTimeout(ask, EVERY_MS);
      })
      .catch(function () { window.setTimeout(ask, EVERY_MS); });
  }

  window.setTimeout(ask, EVERY_MS);
})();
