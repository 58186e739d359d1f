/* Vote buttons of polls (`{% poll %}`): POST/DELETE /api/polls/<poll>/vote with a fresh
 * Idempotency-Key per click (resent unchanged on a network failure or 503, so a retry counts once),
 * mark the visitor's choice, and offer the answer's totals to window.LiveCounters (live.js, loaded
 * before this script), which shows them unless the live push already brought newer ones; other
 * visitors' votes arrive through the same object. No inline code: everything hangs off data attributes. */
(function () {
  "use strict";

  var ATTEMPTS = 3;

  function newKey() {
    if (window.crypto && typeof window.crypto.randomUUID === "function") return window.crypto.randomUUID();
    return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2);
  }

  function cookie(name) {
    var found = document.cookie.split("; ").filter(function (part) { return part.indexOf(name + "=") === 0; })[0];
    return found ? decodeURIComponent(found.slice(name.length + 1)) : "";
  }

  /* Hand the answer's totals to the page's one keeper of versions: it decides what is newer. */
  function offer(states) {
    if (window.LiveCounters) window.LiveCounters.offer(states);
  }

  function setStatus(poll, text, kind) {
    var status = poll.querySelector("[data-vote-status]");
    if (!status) return;
    status.textContent = text;
    if (kind) status.setAttribute("data-kind", kind);
    else status.removeAttribute("data-kind");
  }

  function labelOf(poll, option) {
    var button = poll.querySelector('button[data-vote="' + option + '"]');
    return button ? button.textContent : option;
  }

  function markChoice(poll, choice) {
    poll.setAttribute("data-choice", choice || "");
    poll.querySelectorAll("li[data-option]").forEach(function (li) {
      var mine = li.getAttribute("data-option") === choice;
      li.classList.toggle("chosen", mine);
      var button = li.querySelector("button[data-vote]");
      if (button) button.setAttribute("aria-pressed", mine ? "true" : "false");
      var badge = li.querySelector("[data-mine]");
      if (badge) badge.hidden = !mine;
    });
    var retract = poll.querySelector("[data-retract]");
    if (retract) retract.hidden = !choice || poll.hasAttribute("data-closed");
  }

  function setBusy(poll, busy) {
    poll.setAttribute("aria-busy", busy ? "true" : "false");
    var closed = poll.hasAttribute("data-closed");
    poll.querySelectorAll("button[data-vote], button[data-retract]").forEach(function (button) {
      button.disabled = busy || closed;
    });
  }

  function apply(poll, body) {
    var options = (body.poll && body.poll.options) || [];
    offer(options.map(function (o) { return { name: o.counter, value: o.votes, version: o.version }; }));
    markChoice(poll, body.choice);
    if (body.choice) setStatus(poll, "Your vote: " + labelOf(poll, body.choice) + ".", "ok");
    else setStatus(poll, body.counted ? "Your vote was withdrawn." : "You have not voted in this poll.", "ok");
  }

  function wait(ms) {
    return new Promise(function (resolve) { window.setTimeout(resolve, ms); });
  }

  /* One logical click: the same key on every attempt, so the server counts it at most once. */
  function send(poll, method, option) {
    var key = newKey();
    var headers = {
      Accept: "application/json",
      "X-CSRFToken": poll.getAttribute("data-csrf") || cookie("csrftoken"),
      "Idempotency-Key": key,
    };
    var init = { method: method, headers: headers, credentials: "same-origin" };
    if (method === "POST") {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify({ option: option });
    }
    var attempt = function (n) {
      return fetch(poll.getAttribute("data-vote-url"), init).then(
        function (response) {
          if (response.status === 503 && n + 1 < ATTEMPTS) {
            var after = Number(response.headers.get("Retry-After")) || 1;
            return wait(Math.min(after, 3) * 1000).then(function () { return attempt(n + 1); });
          }
          return response.json().then(function (body) { return { ok: response.ok, status: response.status, body: body }; });
        },
        function (error) {
          if (n + 1 >= ATTEMPTS) throw error;
          return wait(300 * Math.pow(2, n)).then(function () { return attempt(n + 1); });
        }
      );
    };
    setBusy(poll, true);
    setStatus(poll, "Sending your vote…", "busy");
    return attempt(0)
      .then(function (result) {
        if (result.ok) {
          apply(poll, result.body);
          return;
        }
        if (result.body && result.body.error === "poll_closed") {
          poll.setAttribute("data-closed", "true");
          markChoice(poll, poll.getAttribute("data-choice"));
        }
        setStatus(poll, (result.body && result.body.detail) || "The vote was not counted; try again.", "error");
      })
      .catch(function () {
        setStatus(poll, "The site cannot be reached; your vote was not sent.", "error");
      })
      .then(function () { setBusy(poll, false); });
  }

  function onClick(event) {
    var button = event.target.closest("button[data-vote], button[data-retract]");
    if (!button) return;
    var poll = button.closest("[data-poll][data-vote-url]");
    if (!poll || poll.getAttribute("aria-busy") === "true") return;
    if (button.hasAttribute("data-retract")) send(poll, "DELETE", null);
    else send(poll, "POST", button.getAttribute("data-vote"));
  }

  function start() {
    document.addEventListener("click", onClick);
    document.querySelectorAll("[data-poll][data-vote-url]").forEach(function (poll) {
      poll.setAttribute("data-ready", "true");
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
