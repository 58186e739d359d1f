/* The dashboard's headline numbers and pages table, kept current from window.LiveCounters (live.js):
 * - every page the site counts is known here (the chart's picker lists them, each with its views today,
 *   in the last hour and its total as the page was rendered), the table shows only the busiest
 *   ([data-page-rows] data-top, 50): a page that climbs into them gets its row, one that falls out loses it;
 *   "Show all N pages" links to the paged list of every page;
 * - views today, per page and in all: the server's count since 00:00 in the site's time zone plus every
 *   rise of the page's total since (a reset is not a rise), back to 0 when the site's day changes. A page
 *   the page did not know (created at its first view since the page was rendered or last caught up) rose
 *   from 0: all its views are new ones, whichever comes first, its catalog frame or its update;
 * - views in the last hour: the site's views per minute over the last sixty minutes (rendered, then each
 *   rise added to the current minute), rolling with the clock; a row's last hour is its sparkline
 *   (charts.js), whose first read, after the page was rendered, also brings views today that the server's
 *   history had not written yet (it is written in batches);
 * - votes cast: the sum of the vote counts the poll cards show; bot views: the sum of the rows';
 * - visitors (per page and site-wide) and dashboards open are drawn by live.js itself;
 * - the dashboard's own loads are counted apart ("not counted as traffic"), never in a row or a sum;
 * - rows follow the views today (then all time, then name), but never while the pointer is over the
 *   table or focus is in it: what a person points at or tabbed to stays where it is until they leave;
 * - after every gap (a page rendered while the store was down, any reconnect) the page reads
 *   /api/overview and becomes what a fresh load would show: numbers, rows, chart, sparklines and polls. */
(function () {
  "use strict";

  var DASHBOARD = "dashboard";
  var TOP_DEFAULT = 50;
  var HOUR_MINUTES = 60;
  var ROLL_MS = 15000;
  // name -> {title, today, hour, value, version, pushed, caught}: every page, shown in a row or not.
  // `value` is the total its `today` already holds; `hour` its last hour as read (a row's: its sparkline).
  var pages = {};
  var minutes = { start: 0, counts: [] }; // the site's views per minute over the last hour, oldest first
  var own = 0; // loads of the dashboard today
  var zoneNode = document.querySelector("[data-time-zone]");
  // The site's day as YYYY-MM-DD (the en-CA date format), in its zone whatever the browser's.
  var dayFormat = new Intl.DateTimeFormat("en-CA", { timeZone: zoneNode ? zoneNode.getAttribute("data-time-zone") : "UTC" });
  var day = siteDay();
  var snapshots = 0;
  var sortDue = false;
  var syncing = null;
  var syncAgain = false;

  function live() {
    return window.LiveCounters || null;
  }

  function format(n) {
    return live() ? live().format(n) : String(n);
  }

  function siteDay() {
    return dayFormat.format(new Date());
  }

  function setNumber(node, value) {
    if (!node || value === null) return;
    var text = format(value);
    node.setAttribute("data-value", String(value));
    if (node.textContent === text) return;
    node.textContent = text;
  }

  function setStat(name, value) {
    setNumber(document.querySelector('[data-stat="' + name + '"]'), value);
  }

  function sumToday() {
    return Object.keys(pages).reduce(function (total, name) { return total + pages[name].today; }, 0);
  }

  function sumOf(selector) {
    var total = 0;
    document.querySelectorAll(selector).forEach(function (node) {
      total += Number(node.getAttribute("data-value")) || 0;
    });
    return total;
  }

  /* ---- the last hour, minute by minute ---- */
  function currentMinute() {
    return Math.floor(Date.now() / 60000) * 60;
  }

  function setMinutes(start, counts) {
    minutes = { start: start, counts: counts.slice(-HOUR_MINUTES) };
    while (minutes.counts.length < HOUR_MINUTES) minutes.counts.unshift(0);
    roll();
  }

  /* Keep the last minute the current one: views older than an hour drop out. */
  function roll() {
    var current = currentMinute();
    var last = minutes.start + (HOUR_MINUTES - 1) * 60;
    if (current - last >= HOUR_MINUTES * 60) {
      minutes = { start: current - (HOUR_MINUTES - 1) * 60, counts: minutes.counts.map(function () { return 0; }) };
      return;
    }
    while (last < current) {
      minutes.counts.shift();
      minutes.counts.push(0);
      minutes.start += 60;
      last += 60;
    }
  }

  function addToHour(views) {
    roll();
    minutes.counts[minutes.counts.length - 1] += views;
  }

  function lastHour() {
    roll();
    return minutes.counts.reduce(function (a, b) { return a + b; }, 0);
  }

  function redraw() {
    document.querySelectorAll("[data-page-rows] tr[data-row]").forEach(function (row) {
      var page = pages[row.getAttribute("data-row")];
      if (page) setNumber(row.querySelector("[data-today-of]"), page.today);
    });
    setStat("views-today", sumToday());
    setStat("views-hour", lastHour());
    setStat("votes", sumOf("[data-poll] .count[data-counter]"));
    setStat("bots", Object.keys(pages).reduce(function (total, name) { return total + bots(name); }, 0));
    setStat("own-today", own);
    var hint = document.querySelector('[data-stat-hint="votes"]');
    var polls = document.querySelectorAll("[data-poll]").length;
    if (hint && polls && live()) hint.textContent = "all time, one per voter, in " + live().plural(polls, "poll", "polls");
    sortRows();
    showCount();
  }

  /* A page's bot views: as rendered or read, or larger as live.js heard them rise. */
  function bots(name) {
    return Math.max(pages[name].bots, live() ? live().bots(name) : 0);
  }

  /* ---- what the page knows of each page ---- */
  function known(name, title, numbers, fromServer) {
    pages[name] = {
      title: title || name,
      today: numbers.today || 0,
      hour: numbers.hour || 0,
      value: numbers.value || 0,
      version: numbers.version === undefined ? -1 : numbers.version,
      bots: numbers.bots || 0,
      pushed: 0, // views added from the push since the numbers were read
      caught: !fromServer // only numbers read from the server may lag the history's batched writes
    };
  }

  function attribute(node, name) {
    return Number(node.getAttribute(name)) || 0;
  }

  /* The pages as rendered: the picker lists every page, the rows the busiest. */
  function rememberRendered() {
    document.querySelectorAll("#history-counter option").forEach(function (option) {
      known(option.value, option.textContent, {
        today: attribute(option, "data-today"), hour: attribute(option, "data-last-hour"), value: attribute(option, "data-value"),
        version: attribute(option, "data-version"), bots: attribute(option, "data-bot-views")
      }, true);
    });
    document.querySelectorAll("[data-page-rows] tr[data-row]").forEach(function (row) {
      var name = row.getAttribute("data-row");
      var link = row.querySelector("th a");
      if (!pages[name]) known(name, link ? link.textContent : name, {}, true);
      var page = pages[name];
      page.today = attribute(row, "data-today");
      page.hour = attribute(row, "data-last-hour");
      page.value = attribute(row, "data-value");
      page.version = row.hasAttribute("data-version") ? attribute(row, "data-version") : -1;
    });
    var hour = document.querySelector('[data-stat="views-hour"]');
    var counts = hour && hour.getAttribute("data-minutes");
    if (counts) setMinutes(attribute(hour, "data-minutes-start"), counts.split(",").map(Number));
    else setMinutes(currentMinute() - (HOUR_MINUTES - 1) * 60, []);
  }

  /* View counters the page did not know: pages created since, their views all new (unless the
   * counters come with their views today, as the overview's do). */
  function learn(counters) {
    var learned = [];
    (counters || []).forEach(function (counter) {
      if (!counter || counter.kind !== "views" || counter.name === DASHBOARD || pages[counter.name]) return;
      var read = typeof counter.today === "number";
      known(counter.name, counter.title, read ? {
        today: counter.today, hour: counter.last_hour, value: counter.value, version: counter.version
      } : { bots: counter.bot_views }, read);
      addOption(counter.name, pages[counter.name].title);
      learned.push(counter.name);
    });
    if (learned.length) showFilled();
    return learned;
  }

  /* Bring a page's views today up to the newest total the page holds: its rise is new views. */
  function take(name) {
    var page = pages[name];
    var state = live() ? live().get(name) : null;
    if (!page || !state) return;
    if (state.value > page.value) {
      var views = state.value - page.value;
      page.today += views;
      page.pushed += views;
      addToHour(views);
    } else if (state.value < page.value && state.version > page.version) {
      page.value = state.value; // a reset: not views, and the next rise counts from here
    }
    page.value = Math.max(page.value, state.value);
    page.version = Math.max(page.version, state.version);
  }

  /* ---- order: views today, then all time, then name; never under the pointer or focus ---- */
  function rank(name) {
    return { name: name, today: pages[name].today, all: pages[name].value };
  }

  function before(a, b) {
    if (a.today !== b.today) return b.today - a.today;
    if (a.all !== b.all) return b.all - a.all;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  }

  function held(table) {
    // A touch screen keeps :hover on whatever was tapped last: only a real pointer holds the rows.
    var pointer = window.matchMedia("(hover: hover)").matches && table.matches(":hover");
    return pointer || table.contains(document.activeElement);
  }

  function topCount(body) {
    return Number(body.getAttribute("data-top")) || TOP_DEFAULT;
  }

  /* The busiest pages in rows, in order; others lose theirs (not while a person points or tabbed in). */
  function sortRows() {
    var body = document.querySelector("[data-page-rows]");
    if (!body) return;
    var table = body.closest("table");
    if (held(table)) {
      sortDue = true;
      return;
    }
    sortDue = false;
    var ranked = Object.keys(pages).map(rank);
    ranked.sort(before);
    var top = ranked.slice(0, topCount(body)).map(function (entry) { return entry.name; });
    var wanted = {};
    top.forEach(function (name) { wanted[name] = true; });
    body.querySelectorAll("tr[data-row]").forEach(function (row) {
      if (!wanted[row.getAttribute("data-row")]) row.remove();
    });
    var added = top.filter(function (name) { return addRow(name); });
    var rows = Array.prototype.slice.call(body.querySelectorAll("tr[data-row]"));
    var moved = top.some(function (name, i) { return !rows[i] || rows[i].getAttribute("data-row") !== name; });
    if (moved) top.forEach(function (name) { body.appendChild(body.querySelector('tr[data-row="' + name + '"]')); });
    if (added.length) rowsAdded();
  }

  /* "Show all N pages" while the table shows fewer than there are. */
  function showCount() {
    var body = document.querySelector("[data-page-rows]");
    var line = document.querySelector("[data-all-pages]");
    if (!body || !line) return;
    var count = Object.keys(pages).length;
    line.hidden = count <= topCount(body);
    line.querySelectorAll("[data-page-count]").forEach(function (node) { node.textContent = format(count); });
  }

  function sortWhenLeft() {
    if (sortDue) window.setTimeout(sortRows, 0); // after focus has settled on its new element
  }

  /* ---- rows added by a catalog (same markup as the template) ---- */
  function numberCell(cellClass, numberClass, number, attributes) {
    var cell = document.createElement("td");
    cell.className = cellClass;
    var span = document.createElement("span");
    span.className = numberClass;
    attributes.forEach(function (pair) { span.setAttribute(pair[0], pair[1]); });
    span.setAttribute("data-value", String(number));
    span.textContent = format(number);
    cell.appendChild(span);
    return cell;
  }

  function svg(attributes) {
    var node = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    attributes.forEach(function (pair) { node.setAttribute(pair[0], pair[1]); });
    return node;
  }

  function headCell(body, counter, title) {
    var head = document.createElement("th");
    head.setAttribute("scope", "row");
    var link = document.createElement("a");
    link.href = (body.getAttribute("data-page-url-template") || "/pages/__page__/").replace("__page__", encodeURIComponent(counter.name));
    link.textContent = title;
    head.appendChild(link);
    head.appendChild(document.createTextNode(" "));
    var viewing = document.createElement("span");
    viewing.className = "viewing";
    viewing.setAttribute("data-viewing", counter.name);
    viewing.hidden = true;
    head.appendChild(viewing);
    return head;
  }

  function addRow(name) {
    var body = document.querySelector("[data-page-rows]");
    var page = pages[name];
    if (!body || !page || body.querySelector('tr[data-row="' + name + '"]')) return false;
    var state = (live() && live().get(name)) || { value: page.value };
    var title = page.title;
    var row = document.createElement("tr");
    row.setAttribute("data-row", name);
    row.setAttribute("data-today", String(page.today));
    row.setAttribute("data-last-hour", String(page.hour));
    row.appendChild(headCell(body, { name: name }, title));
    row.appendChild(numberCell("num", "today", page.today, [["data-today-of", name]]));
    var visitors = numberCell("num visitors-cell", "visitors", live() ? live().visitors(name) : 0, [["data-visitors", name]]);
    visitors.appendChild(svg([["class", "sparkline visitors-trend"], ["data-visitor-trend", name], ["data-series", "visitors"],
      ["data-window", "90d"], ["viewBox", "0 0 120 28"], ["width", "60"], ["height", "20"], ["role", "img"],
      ["aria-label", "Unique visitors of " + title + " per day, last 90 days"]]));
    row.appendChild(visitors);
    var trend = document.createElement("td");
    trend.className = "trend";
    trend.appendChild(svg([["class", "sparkline"], ["data-sparkline", name], ["data-title", title], ["viewBox", "0 0 120 28"],
      ["width", "120"], ["height", "28"], ["role", "img"], ["aria-label", "Views of " + title + " per minute over the last hour"]]));
    row.appendChild(trend);
    row.appendChild(numberCell("num all-time", "count", state.value, [
      ["data-counter", name], ["data-version", "-1"]
    ]));
    row.appendChild(numberCell("num all-time", "bots", bots(name), [["data-bots", name]]));
    body.appendChild(row);
    showFilled();
    return true;
  }

  function addOption(name, title) {
    var picker = document.getElementById("history-counter");
    if (!picker || picker.querySelector('option[value="' + name + '"]')) return;
    var option = document.createElement("option");
    option.value = name;
    option.textContent = title;
    picker.appendChild(option);
  }

  /* Pages exist: show the table and the chart, and drop the sentences that stood in for them. */
  function showFilled() {
    ["#pages-table", "[data-chart]"].forEach(function (selector) {
      var node = document.querySelector(selector);
      if (node) node.hidden = false;
    });
    document.querySelectorAll("[data-no-pages], [data-no-chart]").forEach(function (node) { node.remove(); });
  }

  function rowsAdded() {
    if (live()) live().refresh();
    document.dispatchEvent(new CustomEvent("counters:rows-added"));
  }

  /* ---- live frames ---- */
  function newDay() {
    if (siteDay() === day) return;
    day = siteDay();
    own = 0;
    Object.keys(pages).forEach(function (name) { pages[name].today = 0; });
    resync(); // the new day's visitors, read rather than waited for
  }

  function onLive(message) {
    newDay();
    var learned = [];
    if (message.type === "snapshot") learned = onSnapshot(message);
    if (message.type === "catalog" && message.catalog) learned = learn(message.catalog.counters);
    message.counters.forEach(function (update) {
      var previous = update.previous;
      // The dashboard's own loads: counted apart, each rise one load (one write may carry several).
      if (update.name === DASHBOARD && previous && update.value > previous.value) own += update.value - previous.value;
      take(update.name);
    });
    learned.forEach(take);
    redraw();
  }

  /* The first snapshot of a page rendered whole needs nothing more; any other follows a gap. */
  function onSnapshot(message) {
    snapshots += 1;
    var rendered = document.body.getAttribute("data-counts") !== "unavailable";
    if (snapshots > 1 || !rendered) {
      resync();
      return [];
    }
    return learn(message.states); // pages created between the render and this socket
  }

  /* ---- catching up after a gap: what a fresh load would show ---- */
  function resync() {
    if (syncing) {
      syncAgain = true; // what changed during this read is read by one more
      return;
    }
    syncing = fetch("/api/overview", { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error("the server answered " + response.status);
        return response.json();
      })
      .then(caughtUp)
      .catch(function () {
        // The socket stays open; the next reconnect (or this page's reload) tries again.
      })
      .then(function () {
        syncing = null;
        if (syncAgain) {
          syncAgain = false;
          resync();
        }
      });
  }

  function caughtUp(overview) {
    var body = document.body;
    body.removeAttribute("data-counts");
    var notice = document.getElementById("counts-unavailable");
    if (notice) notice.remove();
    var counters = overview.pages.slice();
    overview.poll_list.forEach(function (poll) {
      // A poll whose results are hidden from this visitor comes without totals: nothing to show.
      poll.options.forEach(function (o) {
        if (o.votes !== undefined) counters.push({ name: o.counter, kind: "votes", value: o.votes, version: o.version });
      });
    });
    var hadChart = Boolean(document.getElementById("history-counter") && document.getElementById("history-counter").value);
    var polls = overview.poll_list.map(function (poll) {
      return Object.assign({}, poll, { choice: overview.choices[poll.id] || null });
    });
    // The overview's numbers are what a fresh load shows; views the page holds beyond them are added.
    // Read from the history as a load's are: each row's first sparkline brings views it had not written yet.
    pages = {};
    overview.pages.forEach(function (page) {
      known(page.name, page.title, {
        today: page.today, hour: page.last_hour, value: page.value, version: page.version, bots: page.bot_views
      }, true);
      addOption(page.name, pages[page.name].title);
    });
    var hour = overview.last_hour_minutes;
    if (hour) setMinutes(Date.parse(hour.start) / 1000, hour.counts);
    if (overview.pages.length) showFilled();
    if (live()) {
      live().catalog({ type: "catalog", counters: counters, polls: polls, day: overview.day });
      live().tallies(overview.day, siteVisitors(overview), {});
    }
    Object.keys(pages).forEach(take);
    own = overview.dashboard_today + since(DASHBOARD, overview.dashboard);
    reloadCharts(hadChart, overview);
    rowsAdded();
    redraw();
  }

  /* The site's visitors, under the name its headline number shows. */
  function siteVisitors(overview) {
    var node = document.querySelector(".stat [data-visitors]");
    var visitors = {};
    if (node) visitors[node.getAttribute("data-visitors")] = overview.visitors_today;
    return visitors;
  }

  /* Views pushed after the overview was read: its state and the newer one the page holds now. */
  function since(name, state) {
    var now = live() ? live().get(name) : null;
    if (!state || !now || now.version <= state.version || now.value < state.value) return 0;
    return now.value - state.value;
  }

  /* Draw the sparklines and the chart again from the history, as a fresh load would. */
  function reloadCharts(hadChart, overview) {
    document.querySelectorAll("svg[data-sparkline], svg[data-visitor-trend]").forEach(function (node) {
      node.removeAttribute("data-loading");
    });
    var picker = document.getElementById("history-counter");
    if (!picker || !picker.options.length) return;
    if (!hadChart && overview.pages.length) picker.value = overview.pages[0].name;
    picker.dispatchEvent(new Event("change"));
  }

  function start() {
    rememberRendered();
    var ownNode = document.querySelector('[data-stat="own-today"]');
    own = ownNode ? Number(ownNode.getAttribute("data-value")) || 0 : 0;
    var table = document.getElementById("pages-table");
    if (table) {
      table.addEventListener("pointerleave", sortWhenLeft);
      table.addEventListener("focusout", sortWhenLeft);
    }
    document.addEventListener("counters:sparkline", function (event) {
      var page = pages[event.detail.name];
      if (!page) return;
      if (!page.caught) {
        // Views in the history now that were neither rendered nor pushed since: written after the render.
        var late = Math.max(0, event.detail.total - page.hour - page.pushed);
        page.today += late;
        addToHour(late);
        page.caught = true;
      }
      page.hour = event.detail.total;
      redraw();
    });
    window.setInterval(redraw, ROLL_MS); // the last hour rolls on when nothing is counted
    if (live()) live().subscribe(onLive);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
