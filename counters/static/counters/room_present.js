/* Present mode (/p/<code>/present, staff): live bars, counts and shares of one poll, its voters and the people
 * on its audience page now, and the presenter's controls, by button or key: R reveal or hide results, C close
 * or reopen (POST /api/polls/<poll>/control with the CSRF token), N or → next poll, P or ← previous, F full
 * screen. R and C (and their buttons) are there only for whoever may change polls; for anyone else the keys
 * only say so. Keys typed into a field or with Ctrl, Alt or Meta held are left to the browser. A multiple-choice
 * poll's voter count is read again (at most once a second) after its picks move. Needs live.js and room_common.js. */
(function () {
  "use strict";

  var room = document.querySelector('[data-room="present"]');
  var R = window.RoomPoll;
  if (!room || !R) return;

  var VOTERS_EVERY_MS = 1000;
  var busy = false;
  var voters = Number(room.getAttribute("data-voters-read")) || 0;
  var maxPicks = Number(room.getAttribute("data-max-picks")) || 1;
  var votersDue = null;

  function flag(name) {
    return room.getAttribute(name) === "true";
  }

  function resultsState(poll) {
    var results = room.getAttribute("data-results");
    if (results === "always") return "Results shown";
    if (results === "voted") return "Results after voting";
    if (results === "closed") return poll.closed ? "Results shown (closed)" : "Results when closed";
    return poll.revealed ? "Results revealed" : "Results hidden";
  }

  function button(action) {
    return room.querySelector('button[data-action="' + action + '"]');
  }

  function label(action, text, key) {
    var node = button(action);
    if (!node) return;
    node.textContent = text + " ";
    var kbd = document.createElement("kbd");
    kbd.textContent = key;
    node.appendChild(kbd);
  }

  /* The poll's state as the server sent it: open or closed, revealed, closing time, voters, totals. */
  function applyPoll(poll) {
    if (!poll) return;
    if (typeof poll.version === "number" && poll.version < Number(room.getAttribute("data-version"))) return;
    if (typeof poll.version === "number") room.setAttribute("data-version", String(poll.version));
    room.setAttribute("data-closed", poll.closed ? "true" : "false");
    room.setAttribute("data-revealed", poll.revealed ? "true" : "false");
    if ("closes_at" in poll) room.setAttribute("data-closes-at", poll.closes_at || "");
    room.querySelector("[data-state-open]").textContent = poll.closed ? "Closed" : "Open";
    room.querySelector("[data-state-results]").textContent = resultsState(poll);
    label("visibility", poll.revealed ? "Hide results" : "Reveal results", "R");
    label("open", poll.closed ? "Reopen" : "Close", "C");
    markTimedOut();
    if (typeof poll.voters === "number") voters = poll.voters;
    R.offerTotals(poll);
    redraw();
    tick();
  }

  /* The voters beside the totals they hold. One vote each, except in a multiple-choice poll, whose count is
   * read (at most once a second) after the picks move: shown between the least and the most voters holding
   * these picks, so a stale read never shows fewer voters than a single choice's votes or more than picks. */
  function showVoters() {
    var total = 0;
    room.querySelectorAll(".count[data-room-counter]").forEach(function (node) { total += Number(node.getAttribute("data-value")) || 0; });
    var shown = voters;
    if (room.getAttribute("data-kind") !== "multi") shown = total;
    else if (room.getAttribute("data-visible") === "true") shown = Math.min(total, Math.max(voters, Math.ceil(total / maxPicks)));
    room.querySelector("[data-voters]").textContent = R.format(shown);
    R.plural(room.querySelector("[data-voters-unit]"), shown);
  }

  function redraw() {
    R.draw(room);
    showVoters();
  }

  /* Past its closing time a poll stays closed: C cannot reopen it, and the button says why. */
  function markTimedOut() {
    var node = button("open");
    if (!node) return;
    var timedOut = flag("data-closed") && R.pastClosing(room);
    node.disabled = timedOut;
    if (timedOut) node.title = "Closed at its closing time: it cannot be reopened";
    else node.removeAttribute("title");
  }

  function readVotersSoon() {
    if (votersDue !== null) return;
    votersDue = window.setTimeout(function () {
      R.fetchPoll(room).then(applyPoll).catch(function () {}).then(function () { votersDue = null; });
    }, VOTERS_EVERY_MS);
  }

  var SAID = {
    reveal: "Results revealed to the audience.",
    hide: "Results hidden from the audience.",
    close: "Poll closed.",
    reopen: "Poll reopened."
  };

  function control(action) {
    if (busy) return;
    busy = true;
    R.setStatus(room, "Working…", "busy");
    R.send(room, room.getAttribute("data-control-url"), "POST", { action: action })
      .then(function (result) {
        if (result.ok) {
          applyPoll(result.body.poll || result.body);
          R.setStatus(room, SAID[action], "ok");
          return;
        }
        R.setStatus(room, (result.body && result.body.detail) || "That did not work. Try again.", "error");
        return R.fetchPoll(room).then(applyPoll);
      })
      .catch(function () { R.setStatus(room, "No connection: nothing changed. Try again.", "error"); })
      .then(function () { busy = false; });
  }

  function go(which) {
    var to = room.getAttribute(which === "next" ? "data-next" : "data-previous");
    if (to) window.location.assign(to);
  }

  function fullScreen() {
    if (document.fullscreenElement) document.exitFullscreen();
    else if (document.documentElement.requestFullscreen) document.documentElement.requestFullscreen().catch(function () {});
  }

  var ACTIONS = {
    visibility: function () { control(flag("data-revealed") ? "hide" : "reveal"); },
    open: function () { control(flag("data-closed") ? "reopen" : "close"); },
    next: function () { go("next"); },
    previous: function () { go("previous"); },
    fullscreen: fullScreen
  };
  var CONTROLS = { visibility: true, open: true };
  var NOT_ALLOWED = "You may watch this poll here but not control it: that needs permission to change polls.";
  var KEYS = { r: "visibility", c: "open", n: "next", arrowright: "next", p: "previous", arrowleft: "previous", f: "fullscreen" };

  room.addEventListener("click", function (event) {
    var node = event.target.closest("button[data-action]");
    if (node && !node.disabled) ACTIONS[node.getAttribute("data-action")]();
  });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.altKey || event.metaKey || event.defaultPrevented) return;
    if (event.target.closest && event.target.closest("input, textarea, select, [contenteditable]")) return;
    var action = KEYS[event.key.toLowerCase()];
    if (!action) return;
    event.preventDefault();
    if (CONTROLS[action] && !flag("data-can-control")) {
      R.setStatus(room, NOT_ALLOWED, "error");
      return;
    }
    var node = button(action);
    if (!node || !node.disabled) ACTIONS[action]();
    else if (node.title) R.setStatus(room, node.title + ".", "error"); // say why the key did nothing
  });

  var tick = R.countdown(room, function () {
    [400, 2000].forEach(function (ms) {
      R.wait(ms).then(function () { return R.fetchPoll(room); }).then(applyPoll).catch(function () {});
    });
  });

  if (window.LiveCounters) {
    window.LiveCounters.subscribe(function (message) {
      if (message.type === "catalog") {
        applyPoll(R.fromCatalog(room, message));
      } else if (R.touches(room, message)) {
        redraw();
        if (room.getAttribute("data-kind") === "multi") readVotersSoon();
      }
    });
  }
  markTimedOut();
  redraw();
})();
