/* The dashboard's headline numbers and pages table, kept current from window.LiveCounters (live.js):
 * - views today: the server's count per page since 00:00 in the site's time zone plus the views pushed
 *   since (the rise in value; a reset is not), back to 0 when the site's day changes;
 * - views in the last hour: the sum of the pages' sparklines (charts.js), which roll with the clock; the
 *   first sparkline of a page, read after the page was rendered, also brings views today that the
 *   server's history had not written yet (it is written in batches);
 * - votes cast: the sum of the vote counts the poll cards show;
 * - open now: live pages on the server this page is connected to, from the websocket's snapshot;
 * - a catalog frame with a view counter the table lacks adds its row (and the chart's option). */
(function () {
  "use strict";

  var pages = {}; // name -> {today, hour}
  var zoneNode = document.querySelector("[data-time-zone]");
  // The site's day as YYYY-MM-DD (the en-CA date format), in its zone whatever the browser's.
  var dayFormat = new Intl.DateTimeFormat("en-CA", { timeZone: zoneNode ? zoneNode.getAttribute("data-time-zone") : "UTC" });
  var day = siteDay();

  function live() {
    return window.LiveCounters || null;
  }

  function siteDay() {
    return dayFormat.format(new Date());
  }

  function setStat(name, value) {
    var node = document.querySelector('[data-stat="' + name + '"]');
    if (!node || value === null) return;
    node.setAttribute("data-value", String(value));
    node.textContent = live() ? live().format(value) : String(value);
  }

  function sum(field) {
    return Object.keys(pages).reduce(function (total, name) { return total + pages[name][field]; }, 0);
  }

  function votes() {
    var total = 0;
    document.querySelectorAll("[data-poll] .count[data-counter]").forEach(function (node) {
      total += Number(node.getAttribute("data-value")) || 0;
    });
    return total;
  }

  function redraw() {
    setStat("views-today", sum("today"));
    setStat("views-hour", sum("hour"));
    setStat("votes", votes());
  }

  function remember(row) {
    pages[row.getAttribute("data-row")] = {
      today: Number(row.getAttribute("data-today")) || 0,
      hour: Number(row.getAttribute("data-last-hour")) || 0,
      pushed: 0, // views added from the push since the page was rendered
      caught: false
    };
  }

  /* A table cell holding one number, written as the page writes numbers. */
  function numberCell(cellClass, numberClass, number, attributes) {
    var cell = document.createElement("td");
    cell.className = cellClass;
    var span = document.createElement("span");
    span.className = numberClass;
    attributes.forEach(function (pair) { span.setAttribute(pair[0], pair[1]); });
    span.textContent = live() ? live().format(number) : String(number);
    cell.appendChild(span);
    return cell;
  }

  function addRow(counter) {
    var body = document.querySelector("[data-page-rows]");
    if (!body || body.querySelector('tr[data-row="' + counter.name + '"]')) return false;
    var title = counter.title || counter.name;
    var row = document.createElement("tr");
    row.setAttribute("data-row", counter.name);
    row.setAttribute("data-today", "0");
    row.setAttribute("data-last-hour", "0");
    var head = document.createElement("th");
    head.setAttribute("scope", "row");
    var link = document.createElement("a");
    link.href = (body.getAttribute("data-page-url-template") || "/pages/__page__/").replace("__page__", encodeURIComponent(counter.name));
    link.textContent = title;
    head.appendChild(link);
    var value = numberCell("num", "count", counter.value, [
      ["data-counter", counter.name], ["data-version", "-1"], ["data-value", String(counter.value)]
    ]);
    var visitors = numberCell("num visitors-cell", "visitors", counter.visitors_today || 0, [
      ["data-visitors", counter.name]
    ]);
    var trend = document.createElement("td");
    trend.className = "trend";
    var spark = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    [["class", "sparkline"], ["data-sparkline", counter.name], ["data-title", title], ["viewBox", "0 0 120 28"],
      ["width", "120"], ["height", "28"], ["role", "img"], ["aria-label", "Views of " + title + " per minute over the last hour"]
    ].forEach(function (pair) { spark.setAttribute(pair[0], pair[1]); });
    trend.appendChild(spark);
    row.appendChild(head);
    row.appendChild(value);
    row.appendChild(visitors);
    row.appendChild(trend);
    body.appendChild(row);
    remember(row);
    var picker = document.getElementById("history-counter");
    if (picker) {
      var option = document.createElement("option");
      option.value = counter.name;
      option.textContent = title;
      picker.appendChild(option);
    }
    return true;
  }

  function onLive(message) {
    if (siteDay() !== day) {
      day = siteDay();
      Object.keys(pages).forEach(function (name) { pages[name].today = 0; });
    }
    if (message.type === "snapshot" && typeof message.open === "number") setStat("open", message.open);
    if (message.type === "catalog" && message.catalog) {
      var added = (message.catalog.counters || []).filter(function (counter) {
        return counter.kind === "views" && addRow(counter);
      });
      if (added.length) {
        if (live()) live().refresh();
        document.dispatchEvent(new CustomEvent("counters:rows-added"));
      }
    }
    message.counters.forEach(function (update) {
      var page = pages[update.name];
      var previous = update.previous;
      if (!page || !previous || update.value < previous.value) return;
      // A page's views add one each; one write may carry several of them.
      page.today += update.value - previous.value;
      page.pushed += update.value - previous.value;
    });
    redraw();
  }

  function start() {
    document.querySelectorAll("tr[data-row]").forEach(remember);
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
