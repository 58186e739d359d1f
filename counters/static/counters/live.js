/* Live counters in the browser: the one owner of "show only a newer version" on the page.
 * - One websocket to /ws/counters/ per page. The server sends {"type":"snapshot"} on connect, then
 *   {"type":"update"} at most ~10 times a second.
 * - The highest version per counter is kept here, and a state is applied only if its version is newer,
 *   so late or reordered frames (several workers, a reconnect, a slow API answer) never bring back an
 *   old total. Other scripts never compare versions: they offer states and subscribe to what applied.
 * - Every [data-counter] element with an older data-version gets the new value and a short highlight.
 * - #connection shows "connecting", "live" or "reconnecting"; a lost socket is reopened with
 *   exponential backoff and full jitter, and the fresh snapshot resyncs the page.
 * API (window.LiveCounters):
 * - subscribe(fn) -> unsubscribe; fn({type, counters}) gets each applied batch, only the counters that
 *   were newer, each as {name, value, version, previous} (previous: the {value, version} held before, or null);
 * - offer(states) feeds states from elsewhere (e.g. a vote's HTTP answer: one state, a list, or
 *   {counters}) through the same rule and returns those applied; apply is the same function;
 * - get(name) -> {value, version} or null; state() -> the connection state.
 * Viewing now: the socket names the page it shows (<meta name="counters-page">, set on counted pages);
 * snapshots carry {"viewing": {page: n}} and {"type":"presence","viewing":{...}} frames the pages whose
 * number changed. Every [data-viewing="<page>"] element shows it: "3 viewing", or with
 * data-viewing-form="long" "1 person viewing" / "3 people viewing"; viewing(name) -> the number. */
(function () {
  "use strict";

  // Loaded twice (a page's own tag and an embedded poll's): one socket and one version map.
  if (window.LiveCounters) return;

  var PATH = "/ws/counters/";
  var CLOSE_UNKNOWN_PAGE = 4404; // the page is no counter here: reconnect without naming it
  var FIRST_DELAY_MS = 500;
  var MAX_DELAY_MS = 8000;
  var HIGHLIGHT_MS = 700;
  var LABELS = { connecting: "connecting…", live: "live", reconnecting: "reconnecting…" };

  var known = {}; // name -> {value, version}: the newest state this page holds
  var subscribers = [];
  var socket = null;
  var attempt = 0;
  var timer = null;
  var everLive = false;
  var page = null; // the page this document shows, named to the server so it counts as viewed now
  var viewing = {}; // page -> browsers that have it open now, as the server last said

  function setState(state) {
    var node = document.getElementById("connection");
    if (!node) return;
    node.setAttribute("data-state", state);
    node.textContent = LABELS[state] || state;
  }

  function rememberRendered() {
    document.querySelectorAll("[data-counter][data-version]").forEach(function (node) {
      var name = node.getAttribute("data-counter");
      var version = Number(node.getAttribute("data-version"));
      var value = Number((node.textContent || "").replace(/[^0-9-]/g, ""));
      if (version >= 0 && (!known[name] || version > known[name].version)) {
        known[name] = { value: value, version: version };
      }
    });
  }

  function highlight(node) {
    node.classList.remove("changed");
    void node.offsetWidth; // restart the highlight if it is still showing
    node.classList.add("changed");
    window.clearTimeout(node.liveCountersTimer);
    node.liveCountersTimer = window.setTimeout(function () { node.classList.remove("changed"); }, HIGHLIGHT_MS);
  }

  function render(counter) {
    document.querySelectorAll("[data-counter]").forEach(function (node) {
      if (node.getAttribute("data-counter") !== counter.name) return;
      var shown = Number(node.getAttribute("data-version"));
      if (node.hasAttribute("data-version") && shown >= counter.version) return;
      var changed = node.textContent !== String(counter.value);
      node.textContent = String(counter.value);
      node.setAttribute("data-version", String(counter.version));
      if (changed) highlight(node);
    });
  }

  /* Apply the counters that are newer than what the page holds; tell subscribers about those. */
  function apply(counters, type) {
    var applied = [];
    (counters || []).forEach(function (counter) {
      if (!counter || typeof counter.name !== "string" || typeof counter.version !== "number") return;
      var previous = known[counter.name] || null;
      if (previous && counter.version <= previous.version) return;
      known[counter.name] = { value: counter.value, version: counter.version };
      render(counter);
      applied.push({ name: counter.name, value: counter.value, version: counter.version, previous: previous });
    });
    if (applied.length) {
      var message = { type: type || "update", counters: applied };
      subscribers.slice().forEach(function (fn) {
        try {
          fn(message);
        } catch (error) {
          window.console && console.error("LiveCounters subscriber failed", error);
        }
      });
    }
    return applied;
  }

  function viewingText(count, node) {
    if (node.getAttribute("data-viewing-form") !== "long") return count + " viewing";
    return count === 1 ? "1 person viewing" : count + " people viewing";
  }

  /* Show the viewing-now numbers; a short one is hidden while nobody views its page. */
  function renderViewing() {
    document.querySelectorAll("[data-viewing]").forEach(function (node) {
      var count = viewing[node.getAttribute("data-viewing")] || 0;
      node.textContent = viewingText(count, node);
      node.setAttribute("data-count", String(count));
      node.hidden = count === 0 && node.getAttribute("data-viewing-form") !== "long";
    });
  }

  function applyViewing(message) {
    if (message.type === "snapshot") viewing = {};
    Object.keys(message.viewing || {}).forEach(function (name) {
      viewing[name] = message.viewing[name];
    });
    renderViewing();
  }

  /* States from outside the socket, in any of the shapes the site's answers carry. */
  function offer(states) {
    if (!states) return [];
    if (Array.isArray(states)) return apply(states, "update");
    if (Array.isArray(states.counters)) return apply(states.counters, "update");
    return apply([states], "update");
  }

  function socketUrl() {
    var query = page ? "?page=" + encodeURIComponent(page) : "";
    return (window.location.protocol === "https:" ? "wss://" : "ws://") + window.location.host + PATH + query;
  }

  function scheduleReconnect() {
    if (timer !== null) return;
    setState(everLive ? "reconnecting" : "connecting");
    // Full jitter: pages that lost the same server do not all come back at the same moment.
    var ceiling = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * Math.pow(2, attempt));
    attempt += 1;
    timer = window.setTimeout(function () {
      timer = null;
      open();
    }, Math.round(ceiling / 2 + Math.random() * (ceiling / 2)));
  }

  function open() {
    if (socket) return;
    var ws;
    try {
      ws = new WebSocket(socketUrl());
    } catch (error) {
      scheduleReconnect();
      return;
    }
    socket = ws;
    ws.onmessage = function (event) {
      var message;
      try {
        message = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      if (message.type === "snapshot") {
        attempt = 0;
        everLive = true;
        setState("live");
      }
      if (message.type === "snapshot" || message.type === "update") apply(message.counters, message.type);
      if (message.type === "snapshot" || message.type === "presence") applyViewing(message);
    };
    ws.onclose = function (event) {
      if (socket === ws) socket = null;
      if (event.code === CLOSE_UNKNOWN_PAGE) page = null;
      scheduleReconnect();
    };
    ws.onerror = function () {
      ws.close();
    };
  }

  function reconnectNow() {
    if (socket || timer === null) return;
    window.clearTimeout(timer);
    timer = null;
    open();
  }

  window.LiveCounters = {
    subscribe: function (fn) {
      subscribers.push(fn);
      return function () {
        subscribers = subscribers.filter(function (other) { return other !== fn; });
      };
    },
    offer: offer,
    apply: offer, // the earlier name, kept for pages written against it
    get: function (name) {
      return known[name] ? { value: known[name].value, version: known[name].version } : null;
    },
    viewing: function (name) {
      return viewing[name] || 0;
    },
    state: function () {
      var node = document.getElementById("connection");
      return node ? node.getAttribute("data-state") : null;
    }
  };

  function start() {
    var meta = document.querySelector('meta[name="counters-page"]');
    page = meta ? meta.getAttribute("content") : null;
    rememberRendered();
    setState("connecting");
    // Back online or back to the tab: no need to sit out the backoff.
    window.addEventListener("online", reconnectNow);
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") reconnectNow();
    });
    open();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
