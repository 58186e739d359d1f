/* The audience's page of one poll (/p/<code>): tap an option to vote (single, a 1-5 rating) or to add or take
 * back a pick (multiple choice, at most data-max-picks). Each tap is one POST /api/polls/<poll>/vote with its
 * own Idempotency-Key; "Withdraw my vote" DELETEs. Totals appear only when the server sends them (a vote's
 * answer, a pushed update or catalog frame, or the poll read again when its countdown ends); when it says
 * they are hidden, every number leaves the page. Buttons keep focus: while a vote is in flight they are
 * aria-disabled, not disabled. Frames shared by every socket carry no totals that only voters may see, so
 * a voter shown the results of an "after voting" poll reads them again every few seconds while the page is
 * in view. Needs live.js and room_common.js (loaded first, deferred). */
(function () {
  "use strict";

  var room = document.querySelector('[data-room="audience"]');
  var R = window.RoomPoll;
  if (!room || !R) return;

  var kind = room.getAttribute("data-kind");
  var maxPicks = Number(room.getAttribute("data-max-picks")) || 1;
  var busy = false;

  function picks() {
    return (room.getAttribute("data-picks") || "").split(" ").filter(Boolean);
  }

  function labelOf(option) {
    var label = room.querySelector('li[data-option="' + option + '"] [data-label]');
    return label ? label.textContent : option;
  }

  function showPicks(list) {
    room.setAttribute("data-picks", list.join(" "));
    room.querySelectorAll("li[data-option]").forEach(function (li) {
      var mine = list.indexOf(li.getAttribute("data-option")) !== -1;
      li.classList.toggle("chosen", mine);
      li.querySelector("button[data-vote]").setAttribute("aria-pressed", mine ? "true" : "false");
    });
    var retract = room.querySelector("[data-retract]");
    if (retract) retract.hidden = !list.length || room.getAttribute("data-closed") === "true";
  }

  function setClosed(closed) {
    room.setAttribute("data-closed", closed ? "true" : "false");
    room.querySelectorAll("button[data-vote]").forEach(function (button) { button.disabled = closed; });
    room.querySelector("[data-closed-note]").hidden = !closed;
    room.querySelector("#room-hint").hidden = closed; // how to vote, or change a vote: not while closed
    showPicks(picks());
  }

  /* The poll's state as the server sent it (an API answer or a catalog frame). */
  function applyPoll(poll) {
    if (!poll) return;
    if (typeof poll.closed === "boolean") setClosed(poll.closed);
    if ("closes_at" in poll) room.setAttribute("data-closes-at", poll.closes_at || "");
    if (typeof poll.results_visible === "boolean") {
      R.offerTotals(poll);
      R.setVisible(room, poll.results_visible);
    }
    tick();
  }

  function setBusy(on) {
    busy = on;
    room.setAttribute("aria-busy", on ? "true" : "false");
    room.querySelectorAll("button[data-vote], button[data-retract]").forEach(function (button) {
      if (on) button.setAttribute("aria-disabled", "true");
      else button.removeAttribute("aria-disabled");
    });
  }

  /* The voter's picks after an answer: the list if the server sent one; a multiple-choice answer names the
   * one pick it added or removed, so the page's own list follows it. */
  function picksFrom(body, sent) {
    if (Array.isArray(body.picks)) return body.picks;
    if (kind !== "multi" || !sent) return body.choice ? [body.choice] : [];
    var held = picks().filter(function (option) { return option !== sent.option; });
    return sent.picked ? held.concat([sent.option]) : held;
  }

  function said(list) {
    if (!list.length) return kind === "multi" ? "You have no picks." : "You have not voted.";
    if (kind === "multi") return "Your picks: " + list.map(labelOf).join(", ") + ".";
    return kind === "rating" ? "Your rating: " + list[0] + " of 5." : "Your vote: " + labelOf(list[0]) + ".";
  }

  function refused(result) {
    var body = result.body || {};
    if (body.error === "poll_closed" || result.status === 409 && /closed/i.test(body.detail || "")) setClosed(true);
    R.setStatus(room, body.detail || "Your vote could not be sent. Try again.", "error");
  }

  function vote(method, body) {
    if (busy) return;
    setBusy(true);
    R.setStatus(room, method === "DELETE" ? "Withdrawing your vote…" : "Sending…", "busy");
    R.send(room, room.getAttribute("data-vote-url"), method, body)
      .then(function (result) {
        if (!result.ok) return refused(result);
        var list = picksFrom(result.body, body);
        showPicks(list);
        applyPoll(result.body.poll);
        R.setStatus(room, said(list), "ok");
      })
      .catch(function () {
        R.setStatus(room, "No connection: your vote was not sent. Try again.", "error");
      })
      .then(function () { setBusy(false); });
  }

  function tapped(option) {
    var held = picks();
    if (kind !== "multi") {
      if (held[0] !== option) vote("POST", { option: option });
      return;
    }
    var picked = held.indexOf(option) === -1;
    if (picked && held.length >= maxPicks) {
      R.setStatus(room, "You can pick at most " + maxPicks + ". Tap a pick to take it back first.", "error");
      return;
    }
    vote("POST", { option: option, picked: picked });
  }

  room.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-vote], button[data-retract]");
    if (!button || button.disabled || busy) return;
    if (button.hasAttribute("data-retract")) vote("DELETE", null);
    else tapped(button.getAttribute("data-vote"));
  });

  /* The countdown ran out: closed here at once, then the server's word (results may now be visible). */
  function timeUp() {
    setClosed(true);
    [400, 2000].forEach(function (ms) {
      R.wait(ms).then(function () { return R.fetchPoll(room); }).then(applyPoll).catch(function () {});
    });
  }

  var tick = R.countdown(room, timeUp);

  // Jittered, so a room's phones that voted together do not ask together.
  var REREAD_MS = 5000;
  function reread() {
    window.setTimeout(function () {
      var shown = room.getAttribute("data-visible") === "true" && room.getAttribute("data-closed") !== "true";
      var wanted = shown && room.getAttribute("data-results") === "voted" && document.visibilityState === "visible";
      (wanted ? R.fetchPoll(room).then(applyPoll).catch(function () {}) : Promise.resolve()).then(reread);
    }, REREAD_MS * (0.75 + Math.random() / 2));
  }
  reread();

  if (window.LiveCounters) {
    window.LiveCounters.subscribe(function (message) {
      if (message.type === "catalog") {
        var poll = R.fromCatalog(room, message);
        // A catalog is written for one who has not voted: a voter of an "after voting" poll asks for theirs.
        if (poll && poll.results === "voted" && !poll.results_visible && picks().length) {
          R.fetchPoll(room).then(applyPoll).catch(function () {});
        } else {
          applyPoll(poll);
        }
      } else if (R.touches(room, message)) {
        // The server sends this poll's totals only to those who may see them.
        if (room.getAttribute("data-visible") !== "true") R.setVisible(room, true);
        R.draw(room);
      }
    });
  }
  if (room.getAttribute("data-visible") === "true") R.draw(room);
})();
