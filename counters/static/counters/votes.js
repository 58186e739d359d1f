/* Polls as cards (`{% poll %}`): each option is one button holding its label, result bar, percentage and
 * count. A click POSTs /api/polls/<poll>/vote (DELETE withdraws) with a fresh Idempotency-Key per click,
 * resent unchanged on a network failure or 503, so a retry counts once. The answer's totals are offered to
 * window.LiveCounters (live.js, loaded first), which shows them unless the push brought newer ones; other
 * visitors' votes arrive the same way, and every applied total redraws its poll's bars, shares and total.
 * A catalog frame (poll closed, reopened or added, option added) updates the cards in place or adds one;
 * one that carries a poll's `choice` (a dashboard catching up after a gap) marks it.
 * Focus stays where the visitor put it: buttons are never replaced, and while a vote is in flight they are
 * marked aria-disabled rather than disabled (a disabled button drops focus). In a multiple-choice card
 * (data-kind="multi") a click adds or removes that one pick ({"option", "picked"}). No inline code. */
(function () {
  "use strict";

  var ATTEMPTS = 3;

  function live() {
    return window.LiveCounters || null;
  }

  function format(n) {
    return live() ? live().format(n) : String(n);
  }

  function newKey() {
    if (window.crypto && typeof window.crypto.randomUUID === "function") return window.crypto.randomUUID();
    return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2);
  }

  function cookie(name) {
    var found = document.cookie.split("; ").filter(function (part) { return part.indexOf(name + "=") === 0; })[0];
    return found ? decodeURIComponent(found.slice(name.length + 1)) : "";
  }

  function setStatus(poll, text, kind) {
    var status = poll.querySelector("[data-vote-status]");
    if (!status) return;
    status.textContent = text;
    if (kind) status.setAttribute("data-kind", kind);
    else status.removeAttribute("data-kind");
  }

  function labelOf(poll, option) {
    var label = poll.querySelector('li[data-option="' + option + '"] [data-label]');
    return label ? label.textContent : option;
  }

  function optionButton(poll, option) {
    return poll.querySelector('li[data-option="' + option + '"] button[data-vote]');
  }

  function isMulti(poll) {
    return poll.getAttribute("data-kind") === "multi";
  }

  /* A multiple-choice card: one pick marked or unmarked; the others stay as they are. */
  function markPick(poll, option, on) {
    var li = poll.querySelector('li[data-option="' + option + '"]');
    if (!li) return;
    li.classList.toggle("chosen", on);
    var button = li.querySelector("button[data-vote]");
    if (button) button.setAttribute("aria-pressed", on ? "true" : "false");
  }

  function markChoice(poll, choice) {
    if (isMulti(poll)) return; // picks are marked one by one (markPick)
    poll.setAttribute("data-choice", choice || "");
    poll.querySelectorAll("li[data-option]").forEach(function (li) {
      var mine = li.getAttribute("data-option") === choice;
      li.classList.toggle("chosen", mine);
      var button = li.querySelector("button[data-vote]");
      if (button) button.setAttribute("aria-pressed", mine ? "true" : "false");
    });
    var retract = poll.querySelector("[data-retract]");
    if (retract) retract.hidden = !choice || poll.hasAttribute("data-closed");
  }

  function setBusy(poll, busy) {
    poll.setAttribute("aria-busy", busy ? "true" : "false");
    poll.querySelectorAll("button[data-vote], button[data-retract]").forEach(function (button) {
      if (busy) button.setAttribute("aria-disabled", "true");
      else button.removeAttribute("aria-disabled");
    });
  }

  /* Open or closed, as the server says: closed buttons are disabled (nothing can be sent). */
  function setClosed(poll, closed) {
    if (closed) poll.setAttribute("data-closed", "true");
    else poll.removeAttribute("data-closed");
    poll.classList.toggle("closed", closed);
    poll.querySelectorAll("button[data-vote]").forEach(function (button) { button.disabled = closed; });
    var state = poll.querySelector("[data-poll-state]");
    if (state) state.textContent = closed ? "Closed" : "Open";
    var note = poll.querySelector("[data-closed-note]");
    if (note) note.hidden = !closed;
    markChoice(poll, poll.getAttribute("data-choice"));
  }

  /* Bars, percentages and the total of one poll, from the counts it shows (none while they are hidden). */
  function drawResults(poll) {
    if (poll.hasAttribute("data-results-hidden")) return;
    var counts = Array.prototype.slice.call(poll.querySelectorAll("li[data-option] .count[data-counter]"));
    var votes = counts.map(function (node) { return Number(node.getAttribute("data-value")) || 0; });
    var total = votes.reduce(function (a, b) { return a + b; }, 0);
    counts.forEach(function (node, i) {
      var li = node.closest("li[data-option]");
      var share = total ? votes[i] / total : 0;
      var bar = li.querySelector("rect[data-bar]");
      if (bar) bar.setAttribute("width", (100 * share).toFixed(2) + "%");
      var text = li.querySelector("[data-share]");
      if (text) text.textContent = Math.round(100 * share) + "%";
    });
    var shown = poll.querySelector("[data-poll-total]");
    if (shown) {
      shown.setAttribute("data-value", String(total));
      shown.textContent = format(total);
    }
    var unit = poll.querySelector("[data-poll-total-unit]");
    if (unit) unit.textContent = total === 1 ? "vote" : "votes";
  }

  /* Results hidden by the poll's rule: the server sends no counts, so the card shows none. */
  function setHidden(poll, hidden) {
    if (hidden) poll.setAttribute("data-results-hidden", "");
    else poll.removeAttribute("data-results-hidden");
  }

  function apply(poll, body) {
    var options = ((body.poll && body.poll.options) || []).filter(function (o) { return o.votes !== undefined; });
    if (body.poll) setHidden(poll, !body.poll.results_visible);
    if (live()) live().offer(options.map(function (o) { return { name: o.counter, value: o.votes, version: o.version }; }));
    if (isMulti(poll)) {
      if (body.choice) markPick(poll, body.choice, true);
      if (body.previous) markPick(poll, body.previous, false);
      var picked = body.choice || body.previous;
      if (picked) setStatus(poll, (body.choice ? "Picked: " : "Removed: ") + labelOf(poll, picked) + ".", "ok");
      else setStatus(poll, "Nothing changed.", "ok");
      return;
    }
    markChoice(poll, body.choice);
    if (body.choice) setStatus(poll, "Your vote: " + labelOf(poll, body.choice) + ".", "ok");
    else setStatus(poll, body.counted ? "Your vote was withdrawn." : "You have not voted in this poll.", "ok");
  }

  function wait(ms) {
    return new Promise(function (resolve) { window.setTimeout(resolve, ms); });
  }

  /* One logical click: the same key on every attempt, so the server counts it at most once. */
  function send(poll, method, option, picked) {
    var key = newKey();
    var headers = {
      Accept: "application/json",
      "X-CSRFToken": poll.getAttribute("data-csrf") || cookie("csrftoken"),
      "Idempotency-Key": key,
    };
    var init = { method: method, headers: headers, credentials: "same-origin" };
    if (method === "POST") {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(picked === undefined ? { option: option } : { option: option, picked: picked });
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
    var before = poll.getAttribute("data-choice");
    var retract = poll.querySelector("[data-retract]");
    var fromRetract = false;
    setBusy(poll, true);
    setStatus(poll, method === "POST" ? "Sending your vote…" : "Withdrawing your vote…", "busy");
    return attempt(0)
      .then(function (result) {
        fromRetract = document.activeElement === retract; // hiding it below would drop the focus
        if (result.ok) {
          apply(poll, result.body);
          return;
        }
        if (result.body && result.body.error === "poll_closed") setClosed(poll, true);
        setStatus(poll, (result.body && result.body.detail) || "The vote was not counted; try again.", "error");
      })
      .catch(function () {
        setStatus(poll, "The site cannot be reached; your vote was not sent.", "error");
      })
      .then(function () {
        setBusy(poll, false);
        // The withdraw button hides once there is no vote: focus goes back to the option it was for.
        if (fromRetract && retract && retract.hidden) {
          var target = optionButton(poll, before) || poll.querySelector("button[data-vote]");
          if (target) target.focus();
        }
      });
  }

  function onClick(event) {
    var button = event.target.closest("button[data-vote], button[data-retract]");
    if (!button) return;
    var poll = button.closest("[data-poll][data-vote-url]");
    if (!poll || poll.getAttribute("aria-busy") === "true" || button.disabled) return;
    if (button.hasAttribute("data-retract")) send(poll, "DELETE", null);
    else if (isMulti(poll)) send(poll, "POST", button.getAttribute("data-vote"), !button.closest("li").classList.contains("chosen"));
    else send(poll, "POST", button.getAttribute("data-vote"));
  }

  /* ---- cards made or changed by a catalog frame (same markup as counters/_poll.html) ---- */
  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function optionRow(option, closed) {
    var votes = option.votes === undefined ? 0 : option.votes; // hidden results carry no count
    var li = el("li", { "data-option": option.id });
    var button = el("button", { type: "button", class: "vote", "data-vote": option.id, "aria-pressed": "false" });
    button.disabled = closed;
    var svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("class", "bar");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    var rect = document.createElementNS("http://www.w3.org/2000/svg", "rect");
    [["data-bar", option.counter], ["x", "0"], ["y", "0"], ["height", "100%"], ["width", "0%"]].forEach(function (pair) {
      rect.setAttribute(pair[0], pair[1]);
    });
    svg.appendChild(rect);
    button.appendChild(svg);
    button.appendChild(el("span", { class: "mark", "aria-hidden": "true" }));
    button.appendChild(el("span", { class: "label", "data-label": "" }, option.label));
    var result = el("span", { class: "result" });
    result.appendChild(el("span", { class: "share", "data-share": option.counter }, "0%"));
    result.appendChild(el("span", { class: "sep", "aria-hidden": "true" }, " · "));
    result.appendChild(el("span", {
      class: "count", "data-counter": option.counter, "data-version": "-1", "data-value": String(votes)
    }, option.votes === undefined ? "–" : format(votes)));
    result.appendChild(document.createTextNode(" "));
    result.appendChild(el("span", {
      class: "unit", "data-plural-for": option.counter, "data-one": "vote", "data-other": "votes"
    }, votes === 1 ? "vote" : "votes"));
    button.appendChild(result);
    li.appendChild(button);
    return li;
  }

  function newCard(grid, data) {
    var template = grid.getAttribute("data-vote-url-template");
    if (!template) return null;
    var other = document.querySelector("[data-poll][data-csrf]");
    var card = el("article", {
      class: "poll", "data-poll": data.id, "data-vote-url": template.replace("__poll__", encodeURIComponent(data.id)),
      "data-csrf": other ? other.getAttribute("data-csrf") : "", "data-choice": "", "data-kind": data.kind || "single",
      "aria-labelledby": "poll-" + data.id + "-question", "data-ready": "true"
    });
    var head = el("div", { class: "poll-head" });
    head.appendChild(el("h3", { id: "poll-" + data.id + "-question", "data-question": "" }, data.question));
    head.appendChild(el("span", { class: "poll-state", "data-poll-state": "" }, "Open"));
    card.appendChild(head);
    card.appendChild(el("ul", { class: "options" }));
    var foot = el("div", { class: "poll-foot" });
    var total = el("p", { class: "poll-total" });
    total.appendChild(el("span", { "data-poll-total": "", "data-value": "0" }, "0"));
    total.appendChild(document.createTextNode(" "));
    total.appendChild(el("span", { "data-poll-total-unit": "" }, "votes"));
    total.appendChild(document.createTextNode(" in all"));
    var note = el("span", { class: "closed-note", "data-closed-note": "" }, "; this poll takes no more votes");
    note.hidden = true;
    total.appendChild(note);
    foot.appendChild(total);
    var retract = el("button", { type: "button", class: "retract", "data-retract": "" }, "Withdraw my vote");
    retract.hidden = true;
    foot.appendChild(retract);
    var results = grid.getAttribute("data-results-url-template");
    if (results) {
      var csv = el("a", { class: "csv-link", href: results.replace("__poll__", encodeURIComponent(data.id)), download: "" }, "Results");
      csv.appendChild(el("span", { class: "visually-hidden" }, " of \u201c" + data.question + "\u201d"));
      csv.appendChild(document.createTextNode(" (CSV)"));
      foot.appendChild(csv);
    }
    card.appendChild(foot);
    card.appendChild(el("p", { class: "vote-status", "data-vote-status": "", role: "status", "aria-live": "polite" }));
    var empty = grid.querySelector("[data-no-polls]");
    if (empty) empty.remove();
    grid.appendChild(card);
    return card;
  }

  function onCatalog(polls) {
    var grid = document.querySelector("[data-poll-grid]");
    polls.forEach(function (data) {
      var card = document.querySelector('[data-poll="' + data.id + '"][data-vote-url]');
      // A poll kept off the dashboard (a talk's) has no card here; one taken off since loses its card.
      if (grid && data.dashboard === false) {
        if (card) card.remove();
        return;
      }
      if (!card && grid) card = newCard(grid, data);
      if (!card) return;
      var question = card.querySelector("[data-question]");
      if (question && question.textContent !== data.question) question.textContent = data.question;
      var list = card.querySelector("ul.options");
      data.options.forEach(function (option) {
        if (!card.querySelector('li[data-option="' + option.id + '"]')) list.appendChild(optionRow(option, data.closed));
      });
      if (card.hasAttribute("data-closed") !== Boolean(data.closed)) setClosed(card, Boolean(data.closed));
      if (data.results_visible !== undefined) setHidden(card, !data.results_visible);
      // A page catching up after a gap also learns the visitor's own choice, as a fresh load shows it.
      if (Object.prototype.hasOwnProperty.call(data, "choice")) markChoice(card, data.choice);
    });
  }

  function onLive(message) {
    if (message.type === "catalog" && message.catalog) {
      onCatalog(message.catalog.polls || []);
      if (live()) live().refresh();
    }
    var touched = new Set();
    message.counters.forEach(function (update) {
      document.querySelectorAll('[data-poll] .count[data-counter="' + update.name + '"]').forEach(function (node) {
        touched.add(node.closest("[data-poll]"));
      });
    });
    if (message.type === "catalog") document.querySelectorAll("[data-poll]").forEach(function (p) { touched.add(p); });
    touched.forEach(drawResults);
  }

  function start() {
    document.addEventListener("click", onClick);
    document.querySelectorAll("[data-poll][data-vote-url]").forEach(function (poll) {
      poll.setAttribute("data-ready", "true");
    });
    if (live()) live().subscribe(onLive);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
