/* Present mode of a poll of a talk: showing it here opens it on the phones that joined with the talk's code
 * (POST /api/talks/<talk>/open with the CSRF token), so N and P move the whole room along. Only rendered
 * for whoever may change polls. */
(function () {
  "use strict";

  var marker = document.querySelector("[data-talk-open]");
  var room = document.querySelector('[data-room="present"]');
  if (!marker || !room) return;

  fetch(marker.getAttribute("data-talk-open"), {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": room.getAttribute("data-csrf") },
    body: JSON.stringify({ poll: marker.getAttribute("data-talk-poll") })
  }).then(function (response) {
    room.setAttribute("data-talk-opened", response.ok ? "true" : "false");
  }).catch(function () {
    room.setAttribute("data-talk-opened", "false");
  });
})();
