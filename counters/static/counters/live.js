/* Live counters in the browser: the one owner of "show only a newer version" on the page.
 * - One websocket to /ws/counters/ per page. The server sends {"type":"snapshot"} on connect, then
 *   {"type":"update"} at most ~10 times a second.
 * - The highest version per counter is kept here, and a state is applied only if its version is newer,
 *   so late or reordered frames (several workers, a reconnect, a slow API answer) never bring back an
 *   old total. Other scripts never compare versions: they offer states and subscribe to what applied.
 *   A change another service made through the table's stream keeps its version and carries `seq`
 *   (isNewer orders those).
 * - Every [data-counter] element with an older data-version gets the new value (data-value, and its text
 *   through Intl.NumberFormat) and a short highlight; [data-plural-for] words next to it follow the number.
 * - #connection shows "connecting", "live", "reconnecting" or "counts unavailable" (the server closed with
 *   4013 because it could not read the store, or sent {"type":"status","counts":"unavailable"}); a lost
 *   socket is reopened with exponential backoff and full jitter, and the fresh snapshot resyncs the page.
 * - The server sends {"type":"heartbeat"} every few seconds (the snapshot says how often); a socket silent
 *   for three of them shows "reconnecting" and is replaced, so stale totals never pass for live.
 * - {"type":"catalog","counters":[...],"polls":[...]} (a poll closed, reopened or added, an option or a
 *   counter added) goes to subscribers whole, then known states are drawn on whatever nodes they added.
 * API (window.LiveCounters):
 * - subscribe(fn) -> unsubscribe; fn({type, counters}) gets each applied batch, only the counters that
 *   were newer, each as {name, value, version, previous} (previous: the {value, version} held before, or null);
 *   a snapshot also carries `open` (live pages on that server) and `states` (all its counters, with their
 *   kinds), a catalog `catalog` (the whole frame);
 * - offer(states) feeds states from elsewhere (e.g. a vote's HTTP answer: one state, a list, or
 *   {counters}) through the same rule and returns those applied; apply is the same function;
 * - get(name) -> {value, version} or null; state() -> the connection state;
 * - format(n) -> the number as the page writes it; plural(n, one, other) -> "1 view", "2 views".
 * Visitors and bot views carry no version, and only grow (a day's visitors within that day): snapshots
 * and catalogs carry them in their counters (`visitors_today` of the snapshot's `day`, `bot_views`), and
 * {"type":"tallies","day":"D#...","visitors":{...},"bots":{...}} frames bring them as they rise. The page
 * keeps the largest number per name (a newer day starts again) and shows it in every [data-visitors="<name>"]
 * and [data-bots="<name>"] element; subscribers get {type:"tallies", day, visitors, bots} with the names
 * that grew; tallies(day, visitors, bots) feeds numbers from elsewhere; visitors(name), bots(name) read them.
 * catalog(frame) applies a catalog read some other way (e.g. a page catching up after a gap).
 * Viewing now: the socket names the page it shows (<meta name="counters-page">, set on counted pages);
 * snapshots carry {"viewing": {page: n}} and {"type":"presence","viewing":{...}} frames the pages whose
 * number changed. Every [data-viewing="<page>"] element shows it: "3 viewing", or with
 * data-viewing-form="long" "1 person viewing" / "3 people viewing", with "number" just the number;
 * viewing(name) -> the number. */
(function () {
  "use strict";

  // Loaded twice (a page's own tag and an embedded poll's): one socket and one version map.
  if (window.LiveCounters) return;

  var PATH = "/ws/counters/";
  var CLOSE_UNKNOWN_PAGE = 4404; // the page is no counter here: reconnect without naming it
  var FIRST_DELAY_MS = 500;
  // The server's heartbeat (seconds, from the snapshot); silent for this many of them, the socket is
  // given up and a new one opened: a paused Redis or a half-open connection never passes for "live".
  var SILENT_BEATS = 3;
  var MAX_DELAY_MS = 8000;
  var HIGHLIGHT_MS = 700;
  var LABELS = {
    connecting: "connecting…",
    live: "live",
    reconnecting: "reconnecting…",
    unavailable: "counts unavailable"
  };
  // The server's "try again later": it could not read the counter store for a snapshot.
  var CLOSE_STORE_UNAVAILABLE = 4013;
  var LANG = document.documentElement.lang || undefined;
  var numbers = new Intl.NumberFormat(LANG);
  var plurals = new Intl.PluralRules(LANG);

  var known = {}; // name -> {value, version}: the newest state this page holds
  var subscribers = [];
  var socket = null;
  var attempt = 0;
  var timer = null;
  var everLive = false;
  var storeDown = false;
  var beatMs = 0; // the server's heartbeat, from its snapshot; 0: it sends none (an older server)
  var lastHeard = 0; // when the open socket last said anything, after its snapshot (0: no snapshot yet)

  /* Changes read from the table's stream (another service's `ADD`) carry `seq`, their order at one
   * version. A higher version wins; two stream changes keep the stream's order; a stream change and a
   * state without `seq` (the app's own write, a snapshot) are ordered by value, so a stream running
   * behind never takes a total back. The server merges by the same rule (counters/live/coalesce.py). */
  function seqKey(seq) {
    seq = seq || "";
    return ("0000000000" + seq.length).slice(-10) + seq;
  }

  function isNewer(candidate, held) {
    if (candidate.version !== held.version) return candidate.version > held.version;
    if (candidate.seq && held.seq) return seqKey(candidate.seq) > seqKey(held.seq);
    if (candidate.seq) return candidate.value >= held.value;
    return Boolean(held.seq) && candidate.value > held.value;
  }

  function format(value) {
    return typeof value === "number" ? numbers.format(value) : String(value);
  }

  function plural(value, one, other) {
    return format(value) + " " + (plurals.select(value) === "one" ? one : other);
  }
  var tallied = { day: "", visitors: {}, bots: {} }; // the largest numbers heard (visitors: of `day`)
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
      var raw = node.hasAttribute("data-value") ? node.getAttribute("data-value") : node.textContent || "";
      var value = Number(String(raw).replace(/[^0-9-]/g, ""));
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
    var rendered = false;
    document.querySelectorAll("[data-counter]").forEach(function (node) {
      if (node.getAttribute("data-counter") !== counter.name) return;
      var shown = {
        value: Number(node.getAttribute("data-value")),
        version: Number(node.getAttribute("data-version")),
        seq: node.getAttribute("data-seq") || ""
      };
      if (node.hasAttribute("data-version") && !isNewer(counter, shown)) return;
      var text = format(counter.value);
      var changed = node.textContent !== text;
      node.textContent = text;
      node.setAttribute("data-value", String(counter.value));
      node.setAttribute("data-version", String(counter.version));
      if (counter.seq) node.setAttribute("data-seq", counter.seq);
      else node.removeAttribute("data-seq");
      rendered = true;
      if (changed) highlight(node);
    });
    if (!rendered) return;
    document.querySelectorAll("[data-plural-for]").forEach(function (node) {
      if (node.getAttribute("data-plural-for") !== counter.name) return;
      var word = plurals.select(counter.value) === "one" ? "data-one" : "data-other";
      node.textContent = node.getAttribute(word) || node.textContent;
    });
  }

  function notify(message) {
    subscribers.slice().forEach(function (fn) {
      try {
        fn(message);
      } catch (error) {
        window.console && console.error("LiveCounters subscriber failed", error);
      }
    });
  }

  /* Apply the counters that are newer than what the page holds; tell subscribers about those
   * (a snapshot or catalog reaches them even when nothing in it was newer: it carries more than totals). */
  function apply(counters, type, extra) {
    var applied = [];
    (counters || []).forEach(function (counter) {
      if (!counter || typeof counter.name !== "string" || typeof counter.version !== "number") return;
      var previous = known[counter.name] || null;
      if (previous && !isNewer(counter, previous)) return;
      known[counter.name] = { value: counter.value, version: counter.version, seq: counter.seq || "" };
      render(counter);
      applied.push({ name: counter.name, value: counter.value, version: counter.version, previous: previous });
    });
    if (applied.length || extra) {
      var message = { type: type || "update", counters: applied };
      Object.keys(extra || {}).forEach(function (key) { message[key] = extra[key]; });
      notify(message);
    }
    return applied;
  }

  function viewingText(count, node) {
    var form = node.getAttribute("data-viewing-form");
    if (form === "number") return format(count);
    if (form !== "long") return count + " viewing";
    return count === 1 ? "1 person viewing" : count + " people viewing";
  }

  /* Show the viewing-now numbers; a short one is hidden while nobody views its page. */
  function renderViewing() {
    document.querySelectorAll("[data-viewing]").forEach(function (node) {
      var count = viewing[node.getAttribute("data-viewing")] || 0;
      node.textContent = viewingText(count, node);
      node.setAttribute("data-count", String(count));
      node.hidden = count === 0 && !node.hasAttribute("data-viewing-form");
    });
  }

  function applyViewing(message) {
    if (message.type === "snapshot") viewing = {};
    Object.keys(message.viewing || {}).forEach(function (name) {
      viewing[name] = message.viewing[name];
    });
    renderViewing();
  }

  /* Show one tallied number on every element of its kind and name that shows another. */
  function renderTally(attribute, name, count) {
    document.querySelectorAll("[" + attribute + "]").forEach(function (node) {
      if (node.getAttribute(attribute) !== name) return;
      var text = format(count);
      node.setAttribute("data-value", String(count));
      if (node.textContent === text) return;
      node.textContent = text;
      highlight(node);
    });
  }

  /* Keep the larger number per name; return the names that grew, with their numbers. */
  function grow(known, heard) {
    var grown = {};
    Object.keys(heard || {}).forEach(function (name) {
      var count = heard[name];
      if (typeof count !== "number" || (name in known && count <= known[name])) return;
      known[name] = count;
      grown[name] = count;
    });
    return grown;
  }

  /* Apply visitors of `day` and bot views; a newer day's visitors start from nothing. */
  function tallies(day, visitors, bots) {
    var newDay = Boolean(visitors && Object.keys(visitors).length && day && day > tallied.day);
    if (newDay) {
      // The numbers the page was rendered with are of its first day: only a day after that starts from 0.
      var after = tallied.day !== "";
      tallied.day = day;
      tallied.visitors = {};
      if (after) document.querySelectorAll("[data-visitors]").forEach(function (node) {
        if (!(node.getAttribute("data-visitors") in visitors)) visitors[node.getAttribute("data-visitors")] = 0;
      });
    }
    var grownVisitors = day === tallied.day ? grow(tallied.visitors, visitors) : {};
    var grownBots = grow(tallied.bots, bots);
    Object.keys(grownVisitors).forEach(function (name) { renderTally("data-visitors", name, grownVisitors[name]); });
    Object.keys(grownBots).forEach(function (name) { renderTally("data-bots", name, grownBots[name]); });
    if (Object.keys(grownVisitors).length || Object.keys(grownBots).length) {
      notify({ type: "tallies", counters: [], day: tallied.day, visitors: grownVisitors, bots: grownBots });
    }
  }

  /* The visitors and bot views a snapshot's or catalog's counters carry. */
  function talliesOf(counters, day) {
    var visitors = {}, bots = {};
    (counters || []).forEach(function (counter) {
      if (!counter || typeof counter.name !== "string") return;
      if (typeof counter.visitors_today === "number") visitors[counter.name] = counter.visitors_today;
      if (typeof counter.bot_views === "number") bots[counter.name] = counter.bot_views;
    });
    tallies(day || tallied.day, visitors, bots);
  }

  /* A catalog frame, from the socket or read some other way: counters, then subscribers, then new nodes. */
  function catalog(frame) {
    apply(frame.counters, "catalog", { catalog: frame });
    talliesOf(frame.counters, frame.day);
    refresh();
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

  /* Draw every known state on nodes that do not show it yet (e.g. added for a new poll or page). */
  function refresh() {
    Object.keys(known).forEach(function (name) {
      render({ name: name, value: known[name].value, version: known[name].version, seq: known[name].seq });
    });
    Object.keys(tallied.visitors).forEach(function (name) { renderTally("data-visitors", name, tallied.visitors[name]); });
    Object.keys(tallied.bots).forEach(function (name) { renderTally("data-bots", name, tallied.bots[name]); });
  }

  function scheduleReconnect() {
    if (timer !== null) return;
    setState(storeDown ? "unavailable" : everLive ? "reconnecting" : "connecting");
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
      if (lastHeard || message.type === "snapshot") lastHeard = Date.now();
      if (message.type === "snapshot") {
        beatMs = typeof message.heartbeat === "number" && message.heartbeat > 0 ? message.heartbeat * 1000 : 0;
        attempt = 0;
        everLive = true;
        storeDown = false;
        setState("live");
        apply(message.counters, "snapshot", { open: message.open, states: message.counters });
        talliesOf(message.counters, message.day);
      } else if (message.type === "update") {
        apply(message.counters, "update");
      } else if (message.type === "catalog") {
        catalog(message);
      } else if (message.type === "tallies") {
        tallies(message.day, message.visitors || {}, message.bots || {});
      } else if (message.type === "status") {
        storeDown = message.counts === "unavailable";
        setState(storeDown ? "unavailable" : "live");
        notify({ type: "status", counters: [], counts: message.counts });
      }
      if (message.type === "snapshot" || message.type === "presence") applyViewing(message);
    };
    ws.onclose = function (event) {
      if (socket !== ws) return; // given up already (silent): its reconnection is under way
      socket = null;
      lastHeard = 0;
      storeDown = event.code === CLOSE_STORE_UNAVAILABLE;
      if (event.code === CLOSE_UNKNOWN_PAGE) page = null;
      scheduleReconnect();
    };
    ws.onerror = function () {
      ws.close();
    };
  }

  /* A socket silent for SILENT_BEATS heartbeats: stop trusting it, say so, and open a new one. */
  function checkSilence() {
    if (!socket || !lastHeard || !beatMs || Date.now() - lastHeard <= SILENT_BEATS * beatMs) return;
    var silent = socket;
    socket = null;
    lastHeard = 0;
    try {
      silent.close();
    } catch (error) {
      // closing a dead socket may throw; it is dropped either way
    }
    scheduleReconnect();
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
    refresh: refresh,
    catalog: catalog,
    tallies: function (day, visitors, bots) {
      tallies(day, Object.assign({}, visitors || {}), Object.assign({}, bots || {}));
    },
    visitors: function (name) {
      return tallied.visitors[name] || 0;
    },
    bots: function (name) {
      return tallied.bots[name] || 0;
    },
    format: format,
    plural: plural,
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
    setState(document.body.getAttribute("data-counts") === "unavailable" ? "unavailable" : "connecting");
    storeDown = document.body.getAttribute("data-counts") === "unavailable";
    // Back online or back to the tab: no need to sit out the backoff.
    window.addEventListener("online", reconnectNow);
    window.setInterval(checkSilence, 1000);
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") reconnectNow();
    });
    open();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
