/* What both room pages do with one poll (window.RoomPoll): draw its bars, shares, total and average from
 * the counts live.js keeps on the page; show or hide results as the server says; follow the poll's state
 * (open or closed, revealed, closing time) from catalog frames and API answers; count down to closes_at on
 * the server's clock; send JSON to the API with the CSRF token, retrying a lost answer or a 503 with the
 * same Idempotency-Key so a retry counts once. Numbers are drawn only when the server sent them. */
(function () {
  "use strict";

  if (window.RoomPoll) return;

  var ATTEMPTS = 3;

  function live() {
    return window.LiveCounters || null;
  }

  function cookie(name) {
    var found = document.cookie.split("; ").filter(function (part) { return part.indexOf(name + "=") === 0; })[0];
    return found ? decodeURIComponent(found.slice(name.length + 1)) : "";
  }

  function newKey() {
    if (window.crypto && typeof window.crypto.randomUUID === "function") return window.crypto.randomUUID();
    return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2);
  }

  function format(n) {
    return live() ? live().format(n) : String(n);
  }

  /* The count of each option; only while results show does it carry data-counter, the attribute live.js
   * draws totals into (so a hidden page's counts stay empty whatever live.js redraws). */
  function counts(root) {
    return Array.prototype.slice.call(root.querySelectorAll("li[data-option] .count[data-room-counter]"));
  }

  /* Names of this poll's option counters, as the page lists them. */
  function counterNames(root) {
    return counts(root).map(function (node) { return node.getAttribute("data-room-counter"); });
  }

  /* A unit word for `n`: its data-one for exactly 1, else its data-other (as Django's pluralize). */
  function plural(node, n) {
    if (node && node.hasAttribute("data-one")) node.textContent = node.getAttribute(n === 1 ? "data-one" : "data-other");
  }

  /* Bars, shares, the total and (a rating) the average, from the counts the page shows. */
  function draw(root) {
    var nodes = counts(root);
    var votes = nodes.map(function (node) { return Number(node.getAttribute("data-value")) || 0; });
    var total = votes.reduce(function (a, b) { return a + b; }, 0);
    var weighted = 0;
    nodes.forEach(function (node, i) {
      var li = node.closest("li[data-option]");
      var share = total ? votes[i] / total : 0;
      weighted += (Number(li.getAttribute("data-option")) || 0) * votes[i];
      li.querySelector("rect[data-bar]").setAttribute("width", (100 * share).toFixed(2) + "%");
      li.querySelector("[data-share]").textContent = Math.round(100 * share) + "%";
    });
    var top = Math.max.apply(null, votes.concat([0]));
    nodes.forEach(function (node, i) {
      node.closest("li[data-option]").classList.toggle("leading", top > 0 && votes[i] === top);
    });
    var shown = root.querySelector("[data-total]");
    if (shown) shown.textContent = format(total);
    plural(root.querySelector("[data-total-unit]"), total);
    var average = root.querySelector("[data-average]");
    if (average) average.textContent = total ? (weighted / total).toFixed(1) : "–";
  }

  /* Show the results, or take every number off the page (the presenter hid them again). */
  function setVisible(root, visible) {
    root.setAttribute("data-visible", visible ? "true" : "false");
    root.querySelectorAll("[data-result], [data-total-line]").forEach(function (node) { node.hidden = !visible; });
    root.querySelectorAll("[data-hidden-note]").forEach(function (node) { node.hidden = visible; });
    if (visible) {
      counts(root).forEach(function (node) {
        node.setAttribute("data-counter", node.getAttribute("data-room-counter"));
      });
      if (live()) live().refresh();
      draw(root);
      return;
    }
    counts(root).forEach(function (node) {
      node.textContent = "";
      ["data-counter", "data-value", "data-version"].forEach(function (name) { node.removeAttribute(name); });
    });
    root.querySelectorAll("[data-share], [data-total], [data-average]").forEach(function (node) { node.textContent = ""; });
    root.querySelectorAll("rect[data-bar]").forEach(function (node) { node.setAttribute("width", "0%"); });
    root.querySelectorAll("li.leading").forEach(function (node) { node.classList.remove("leading"); });
  }

  /* The totals an API answer carried (only those the asker may see) go through live.js's versions. */
  function offerTotals(poll) {
    var options = (poll && poll.options) || [];
    var states = options.filter(function (o) { return typeof o.votes === "number"; }).map(function (o) {
      return { name: o.counter, value: o.votes, version: o.version };
    });
    if (states.length && live()) live().offer(states);
  }

  /* Whether a batch from live.js brought totals of this poll's counters. */
  function touches(root, message) {
    var names = counterNames(root);
    return (message.counters || []).some(function (c) {
      return names.indexOf(c.name) !== -1 && typeof c.value === "number";
    });
  }

  /* This poll as a catalog frame lists it, or null. */
  function fromCatalog(root, message) {
    var polls = (message.catalog && message.catalog.polls) || [];
    var id = root.getAttribute("data-poll");
    return polls.filter(function (p) { return p.id === id; })[0] || null;
  }

  function wait(ms) {
    return new Promise(function (resolve) { window.setTimeout(resolve, ms); });
  }

  /* One logical request: the same Idempotency-Key on every attempt. Resolves {ok, status, body}. */
  function send(root, url, method, body) {
    var headers = {
      Accept: "application/json",
      "X-CSRFToken": root.getAttribute("data-csrf") || cookie("csrftoken"),
      "Idempotency-Key": newKey()
    };
    var init = { method: method, headers: headers, credentials: "same-origin" };
    if (body) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    var attempt = function (n) {
      return fetch(url, init).then(
        function (response) {
          if (response.status === 503 && n + 1 < ATTEMPTS) {
            var after = Number(response.headers.get("Retry-After")) || 1;
            return wait(Math.min(after, 3) * 1000).then(function () { return attempt(n + 1); });
          }
          return response.json().catch(function () { return {}; }).then(function (json) {
            return { ok: response.ok, status: response.status, body: json };
          });
        },
        function (error) {
          if (n + 1 >= ATTEMPTS) throw error;
          return wait(300 * Math.pow(2, n)).then(function () { return attempt(n + 1); });
        }
      );
    };
    return attempt(0);
  }

  /* The poll as GET /api/polls/<poll> answers this asker now. */
  function fetchPoll(root) {
    return fetch(root.getAttribute("data-poll-url"), { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (body) { return body && (body.poll || body); });
  }

  function setStatus(root, text, kind) {
    var status = root.querySelector("[data-vote-status]");
    if (!status) return;
    status.textContent = text;
    if (kind) status.setAttribute("data-kind", kind);
    else status.removeAttribute("data-kind");
  }

  function clock(seconds) {
    var h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60), s = seconds % 60;
    var mm = h ? String(m).padStart(2, "0") : String(m);
    return (h ? h + ":" : "") + mm + ":" + String(s).padStart(2, "0");
  }

  /* Milliseconds the server's clock (data-now when the page was made) is ahead of this one. */
  function skewOf(root) {
    return (Date.parse(root.getAttribute("data-now")) || Date.now()) - Date.now();
  }

  /* Whether the poll's closing time has passed on the server's clock (it is closed, and no reopening). */
  function pastClosing(root) {
    var at = Date.parse(root.getAttribute("data-closes-at") || "");
    return Boolean(at) && at <= Date.now() + skewOf(root);
  }

  /* Count down to the poll's closes_at on the server's clock; call onEnd once when it passes. */
  function countdown(root, onEnd) {
    var skew = skewOf(root);
    var ended = false;
    function tick() {
      var node = root.querySelector("[data-countdown]");
      var at = Date.parse(root.getAttribute("data-closes-at") || "");
      var closed = root.getAttribute("data-closed") === "true";
      if (!node) return;
      node.hidden = !at || closed;
      if (!at || closed) return;
      var left = Math.max(0, Math.ceil((at - (Date.now() + skew)) / 1000));
      node.querySelector("[data-countdown-left]").textContent = clock(left);
      if (left === 0 && !ended) {
        ended = true;
        onEnd();
      } else if (left > 0) {
        ended = false;
      }
    }
    tick();
    window.setInterval(tick, 1000);
    return tick;
  }

  window.RoomPoll = {
    draw: draw,
    plural: plural,
    format: format,
    setVisible: setVisible,
    offerTotals: offerTotals,
    touches: touches,
    fromCatalog: fromCatalog,
    send: send,
    fetchPoll: fetchPoll,
    setStatus: setStatus,
    countdown: countdown,
    pastClosing: pastClosing,
    wait: wait
  };
})();
