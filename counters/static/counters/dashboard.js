/* The dashboard's headline numbers and pages table, kept current from window.LiveCounters (live.js):
 * - views today, per page and in all: the server's count since 00:00 in the site's time zone plus the
 *   views pushed since (the rise in value; a reset is not), back to 0 when the site's day changes;
 * - views in the last hour: the sum of the pages' sparklines (charts.js), which roll with the clock; the
 *   first sparkline of a page, read after the page was rendered, also brings views today that the
 *   server's history had not written yet (it is written in batches);
 * - votes cast: the sum of the vote counts the poll cards show; bot views: the sum of the pages';
 * - visitors (per page and site-wide) and dashboards open are drawn by live.js itself;
 * - the dashboard's own loads are counted apart ("not counted as traffic"), never in a row or a sum;
 * - rows follow the views today (then all time, then name), but never while the pointer is over the
 *   table or focus is in it: what a person points at or tabbed to stays where it is until they leave;
 * - a catalog frame with a view counter the table lacks adds its row (and the chart's option);
 * - after every gap (a page rendered while the store was down, any reconnect) the page reads
 *   /api/overview and becomes what a fresh load would show: numbers, rows, chart, sparklines and polls. */
(function () {
  "use strict";

  var DASHBOARD = "dashboard";
  var pages = {}; // name -> {today, hour, pushed, caught}
  var own = 0; // loads of the dashboard today
  var zoneNode = document.querySelector("[data-time-zone]");
  // The site's day as YYYY-MM-DD (the en-CA date format), in its zone whatever the browser's.
  var dayFormat = new Intl.DateTimeFormat("en-CA", { timeZone: zoneNode ? zoneNode.getAttribute("data-time-zone") : "UTC" });
  var day = siteDay();
  var snapshots = 0;
  var sortDue = false;
  var syncing = null;

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

  function sum(field) {
    return Object.keys(pages).reduce(function (total, name) { return total + pages[name][field]; }, 0);
  }

  function sumOf(selector) {
    var total = 0;
    document.querySelectorAll(selector).forEach(function (node) {
      total += Number(node.getAttribute("data-value")) || 0;
    });
    return total;
  }

  function redraw() {
    Object.keys(pages).forEach(function (name) {
      setNumber(document.querySelector('[data-today-of="' + name + '"]'), pages[name].today);
    });
    setStat("views-today", sum("today"));
    setStat("views-hour", sum("hour"));
    setStat("votes", sumOf("[data-poll] .count[data-counter]"));
    setStat("bots", sumOf("[data-page-rows] [data-bots]"));
    setStat("own-today", own);
    var hint = document.querySelector('[data-stat-hint="votes"]');
    var polls = document.querySelectorAll("[data-poll]").length;
    if (hint && polls && live()) hint.textContent = "all time, one per voter, in " + live().plural(polls, "poll", "polls");
    sortRows();
  }

  function remember(row) {
    pages[row.getAttribute("data-row")] = {
      today: Number(row.getAttribute("data-today")) || 0,
      hour: Number(row.getAttribute("data-last-hour")) || 0,
      pushed: 0, // views added from the push since the page was rendered
      caught: false
    };
  }

  /* ---- order: views today, then all time, then name; never under the pointer or focus ---- */
  function rank(row) {
    var name = row.getAttribute("data-row");
    var total = row.querySelector("[data-counter]");
    return { name: name, today: pages[name] ? pages[name].today : 0, all: total ? Number(total.getAttribute("data-value")) || 0 : 0 };
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

  function sortRows() {
    var body = document.querySelector("[data-page-rows]");
    if (!body) return;
    var table = body.closest("table");
    if (held(table)) {
      sortDue = true;
      return;
    }
    sortDue = false;
    var rows = Array.prototype.slice.call(body.querySelectorAll("tr[data-row]"));
    var ranked = rows.map(function (row) { return { row: row, rank: rank(row) }; });
    ranked.sort(function (a, b) { return before(a.rank, b.rank); });
    var moved = ranked.some(function (entry, i) { return entry.row !== rows[i]; });
    if (moved) ranked.forEach(function (entry) { body.appendChild(entry.row); });
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

  function addRow(counter) {
    var body = document.querySelector("[data-page-rows]");
    if (!body || counter.name === DASHBOARD || body.querySelector('tr[data-row="' + counter.name + '"]')) return false;
    var title = counter.title || counter.name;
    var row = document.createElement("tr");
    row.setAttribute("data-row", counter.name);
    row.setAttribute("data-today", String(counter.today || 0));
    row.setAttribute("data-last-hour", String(counter.last_hour || 0));
    row.appendChild(headCell(body, counter, title));
    row.appendChild(numberCell("num", "today", counter.today || 0, [["data-today-of", counter.name]]));
    var visitors = numberCell("num visitors-cell", "visitors", counter.visitors_today || 0, [["data-visitors", counter.name]]);
    visitors.appendChild(svg([["class", "sparkline visitors-trend"], ["data-visitor-trend", counter.name], ["data-series", "visitors"],
      ["data-window", "90d"], ["viewBox", "0 0 120 28"], ["width", "60"], ["height", "20"], ["role", "img"],
      ["aria-label", "Unique visitors of " + title + " per day, last 90 days"]]));
    row.appendChild(visitors);
    var trend = document.createElement("td");
    trend.className = "trend";
    trend.appendChild(svg([["class", "sparkline"], ["data-sparkline", counter.name], ["data-title", title], ["viewBox", "0 0 120 28"],
      ["width", "120"], ["height", "28"], ["role", "img"], ["aria-label", "Views of " + title + " per minute over the last hour"]]));
    row.appendChild(trend);
    row.appendChild(numberCell("num all-time", "count", counter.value, [
      ["data-counter", counter.name], ["data-version", "-1"]
    ]));
    row.appendChild(numberCell("num all-time", "bots", counter.bot_views || 0, [["data-bots", counter.name]]));
    body.appendChild(row);
    remember(row);
    addOption(counter.name, title);
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
    if (message.type === "snapshot") onSnapshot();
    if (message.type === "catalog" && message.catalog) {
      var added = (message.catalog.counters || []).filter(function (counter) {
        return counter.kind === "views" && addRow(counter);
      });
      if (added.length) rowsAdded();
    }
    message.counters.forEach(function (update) {
      var previous = update.previous;
      if (!previous || update.value < previous.value) return;
      // A page's views add one each; one write may carry several of them.
      if (update.name === DASHBOARD) own += update.value - previous.value;
      var page = pages[update.name];
      if (!page) return;
      page.today += update.value - previous.value;
      page.pushed += update.value - previous.value;
    });
    redraw();
  }

  /* The first snapshot of a page rendered whole needs nothing more; any other follows a gap. */
  function onSnapshot() {
    snapshots += 1;
    var rendered = document.body.getAttribute("data-counts") !== "unavailable";
    if (snapshots > 1 || !rendered) resync();
  }

  /* ---- catching up after a gap: what a fresh load would show ---- */
  function resync() {
    if (syncing) return;
    syncing = fetch("/api/overview", { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error("the server answered " + response.status);
        return response.json();
      })
      .then(caughtUp)
      .catch(function () {
        // The socket stays open; the next reconnect (or this page's reload) tries again.
      })
      .then(function () { syncing = null; });
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
    if (live()) {
      live().catalog({ type: "catalog", counters: counters, polls: polls, day: overview.day });
      live().tallies(overview.day, siteVisitors(overview), {});
    }
    overview.pages.forEach(function (page) { addRow(page); });
    overview.pages.forEach(function (page) { settle(page); });
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

  function settle(page) {
    var known = pages[page.name];
    if (!known) return;
    known.today = page.today + since(page.name, page);
    known.hour = page.last_hour;
    known.pushed = 0;
    known.caught = true;
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
    document.querySelectorAll("tr[data-row]").forEach(remember);
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
        page.today += Math.max(0, event.detail.total - page.hour - page.pushed);
        page.caught = true;
      }
      page.hour = event.detail.total;
      redraw();
    });
    if (live()) live().subscribe(onLive);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
