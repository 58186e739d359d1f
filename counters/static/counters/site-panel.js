/* The whole site, kept live (templates _site_panel.html and site_page.html):
 * - the site panel ([data-site-panel]): top pages today and top sources today
 *   (read again from /api/site at most once a second while views arrive, and once more when they settle,
 *   as other workers write their tallies within about a second), top pages now (the viewing-now numbers
 *   live.js keeps), and the site's views per hour over the last 24 hours, each new view added as it comes;
 * - a page's own view ([data-site-page]): its sources today, read again as its views arrive;
 * - the dashboard's pages table: a "details" link on each row to that page's own view.
 * It subscribes to window.LiveCounters (live.js); nothing here compares versions. */
(function () {
  "use strict";

  var REFRESH_MS = 1000;
  var SETTLE_MS = 1500;
  var NOW_MS = 1000;
  var TOP = 10;
  var SVG_NS = "http://www.w3.org/2000/svg";
  var DASHBOARD = "dashboard";

  function live() {
    return window.LiveCounters || null;
  }

  function format(n) {
    return live() ? live().format(n) : String(n);
  }

  function plural(n, one, other) {
    return live() ? live().plural(n, one, other) : n + " " + (n === 1 ? one : other);
  }

  function getJSON(url) {
    return fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" }).then(function (response) {
      if (!response.ok) throw new Error("the server answered " + response.status);
      return response.json();
    });
  }

  /* A page's views rose (not the dashboard's own loads, not a poll option's votes): by how much. A page
   * the page did not know yet (created at its first view since it loaded) has only those views. */
  function viewsIn(update) {
    var previous = update.previous || { value: 0 };
    if (update.name === DASHBOARD || update.name.indexOf(".") !== -1) return 0;
    return update.value > previous.value ? update.value - previous.value : 0;
  }

  /* Calls `fn` at most once per REFRESH_MS while poked, and once more SETTLE_MS after the last poke. */
  function throttled(fn) {
    var timer = null;
    var settle = null;
    return function () {
      if (!timer) timer = window.setTimeout(function () { timer = null; fn(); }, REFRESH_MS);
      window.clearTimeout(settle);
      settle = window.setTimeout(fn, REFRESH_MS + SETTLE_MS);
    };
  }

  function row(tbody, cells, link) {
    var tr = document.createElement("tr");
    var th = document.createElement("th");
    th.scope = "row";
    if (link) {
      var a = document.createElement("a");
      a.href = link;
      a.textContent = cells[0];
      th.appendChild(a);
    } else {
      th.textContent = cells[0];
    }
    var td = document.createElement("td");
    td.className = "num";
    td.textContent = format(cells[1]);
    tr.appendChild(th);
    tr.appendChild(td);
    tbody.appendChild(tr);
    return tr;
  }

  function fill(tbody, items, empty, toCells, linkOf) {
    if (!tbody) return;
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    items.forEach(function (item) { row(tbody, toCells(item), linkOf ? linkOf(item) : null); });
    if (items.length) return;
    var tr = document.createElement("tr");
    var td = document.createElement("td");
    td.colSpan = 2;
    td.className = "empty";
    td.textContent = empty;
    tr.appendChild(td);
    tbody.appendChild(tr);
  }

  function sourceLabel(source) {
    return source.indexOf("utm:") === 0 ? source.slice(4) + " (utm_source)" : source;
  }

  /* ---- the site's chart: views per hour, last 24 hours, in the site's time zone ---- */
  function hourLabel(chart, start) {
    return new Date(start * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", timeZone: chart.zone });
  }

  function drawChart(svg, chart) {
    var width = Math.max(240, Math.round(svg.getBoundingClientRect().width || 600));
    var height = 144, bottom = 18, top = 14;
    var n = chart.counts.length;
    var max = Math.max(1, Math.max.apply(null, chart.counts));
    var col = width / n;
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var base = document.createElementNS(SVG_NS, "line");
    [["x1", 0], ["x2", width], ["y1", height - bottom], ["y2", height - bottom]].forEach(function (a) { base.setAttribute(a[0], a[1]); });
    svg.appendChild(base);
    chart.counts.forEach(function (count, i) {
      var h = (height - bottom - top) * count / max;
      var rect = document.createElementNS(SVG_NS, "rect");
      rect.setAttribute("x", (i * col + col * 0.15).toFixed(1));
      rect.setAttribute("width", (col * 0.7).toFixed(1));
      rect.setAttribute("y", (height - bottom - h).toFixed(1));
      rect.setAttribute("height", h.toFixed(1));
      svg.appendChild(rect);
      if (i % 6 !== 0) return;
      var label = document.createElementNS(SVG_NS, "text");
      label.setAttribute("x", (i * col).toFixed(1));
      label.setAttribute("y", height - 4);
      label.textContent = hourLabel(chart, chart.starts[i]);
      svg.appendChild(label);
    });
    var peak = document.createElementNS(SVG_NS, "text");
    peak.setAttribute("x", 0);
    peak.setAttribute("y", 10);
    peak.textContent = "peak " + format(Math.max.apply(null, chart.counts)) + " an hour";
    svg.appendChild(peak);
    var total = chart.counts.reduce(function (a, b) { return a + b; }, 0);
    svg.setAttribute("data-total", String(total));
    svg.setAttribute("aria-label", "Views of the whole site per hour over the last 24 hours: " + format(total) + " in all");
    return total;
  }

  /* Keep the last bar the current hour as time passes. */
  function advance(chart) {
    var current = Math.floor(Date.now() / 1000 / chart.bucket) * chart.bucket;
    while (chart.starts[chart.starts.length - 1] < current) {
      chart.starts.push(chart.starts[chart.starts.length - 1] + chart.bucket);
      chart.counts.push(0);
      chart.starts.shift();
      chart.counts.shift();
    }
  }

  function startChart(panel) {
    var svg = panel.querySelector("[data-site-chart]");
    var total = panel.querySelector("[data-site-views]");
    var summary = document.getElementById("site-chart-summary");
    var chart = null;
    function show() {
      var sum = drawChart(svg, chart);
      if (total) total.textContent = format(sum);
      if (summary) summary.textContent = plural(sum, "view", "views") + " of the whole site in the last 24 hours. Times in " + chart.zone + ".";
    }
    function load() {
      getJSON(panel.getAttribute("data-history-url") + "?window=24h&step=1h").then(function (data) {
        chart = {
          bucket: data.bucket_seconds,
          zone: data.time_zone || "UTC",
          starts: data.points.map(function (p) { return Date.parse(p.start) / 1000; }),
          counts: data.points.map(function (p) { return p.count; })
        };
        show();
      }).catch(function (error) {
        if (summary) summary.textContent = "The site's history cannot be loaded: " + error.message + ".";
      });
    }
    load();
    window.setInterval(function () { if (chart) { advance(chart); show(); } }, 60000);
    return {
      added: function (views) {
        if (!chart) return; // its history, when it comes, holds them or will with the next flush
        advance(chart);
        chart.counts[chart.counts.length - 1] += views;
        show();
      },
      // After a reconnect: a chart the store could not give at load time is read again.
      again: function () { if (!chart) load(); }
    };
  }

  function pageLink(panel, name) {
    return panel.getAttribute("data-page-url-template").replace("__name__", encodeURIComponent(name));
  }

  /* Titles of the pages this page knows: the pages table's rows and the top pages. */
  function rememberTitles(panel, titles) {
    document.querySelectorAll("tr[data-row]").forEach(function (tr) {
      var link = tr.querySelector("th a");
      titles[tr.getAttribute("data-row")] = link ? link.textContent : tr.getAttribute("data-row");
    });
    panel.querySelectorAll("[data-site-page-row]").forEach(function (tr) {
      titles[tr.getAttribute("data-site-page-row")] = tr.querySelector("th").textContent;
    });
  }

  /* Today's top pages and sources, read again. */
  function refreshPanel(panel, titles) {
    getJSON(panel.getAttribute("data-site-url")).then(function (summary) {
      // Loaded while the store was down: the panel fills in once it answers.
      panel.querySelectorAll("[data-site-unavailable]").forEach(function (node) { node.remove(); });
      summary.top_pages.forEach(function (page) { titles[page.name] = page.title; });
      fill(panel.querySelector("[data-site-top-pages]"), summary.top_pages, "No views today yet.",
        function (page) { return [page.title, page.views]; }, function (page) { return pageLink(panel, page.name); });
      fill(panel.querySelector("[data-site-top-sources]"), summary.top_sources, "No sources yet today.",
        function (source) { return [sourceLabel(source.source), source.views]; });
    }).catch(function () { /* the next view tries again; the panel keeps what it shows */ });
  }

  /* The pages open now, most viewers first, from the viewing-now numbers live.js keeps; redrawn on change. */
  function showNow(panel, titles, shown) {
    if (!live() || !live().viewing) return shown;
    rememberTitles(panel, titles);
    var open = Object.keys(titles).map(function (name) { return [name, live().viewing(name)]; })
      .filter(function (item) { return item[1] > 0 && item[0] !== DASHBOARD; })
      .sort(function (a, b) { return b[1] - a[1] || (a[0] < b[0] ? -1 : 1); }).slice(0, TOP);
    var key = JSON.stringify(open);
    if (key === shown) return shown;
    fill(panel.querySelector("[data-site-now]"), open, "Nobody has a counted page open.",
      function (item) { return [titles[item[0]] || item[0], item[1]]; }, function (item) { return pageLink(panel, item[0]); });
    return key;
  }

  function startPanel(panel) {
    var titles = {};
    var chart = startChart(panel);
    var soon = throttled(function () { refreshPanel(panel, titles); });
    var shown = "";
    if (live()) {
      live().subscribe(function (message) {
        var views = 0;
        (message.counters || []).forEach(function (update) { views += viewsIn(update); });
        if (message.type !== "snapshot" && views) { chart.added(views); soon(); }
        if (message.type === "snapshot" || message.type === "catalog") { chart.again(); soon(); }
      });
    }
    window.setInterval(function () { shown = showNow(panel, titles, shown); }, NOW_MS);
  }

  /* ---- a page's own view: its sources today ---- */
  function startPageView(root) {
    var name = root.getAttribute("data-site-page");
    var section = document.getElementById("sources");
    var holder = section ? section.querySelector("[data-sources-today] tbody") : null;
    if (!holder || !live()) return;
    var refresh = throttled(function () {
      getJSON(section.getAttribute("data-sources-url") + "?days=1").then(function (body) {
        fill(holder, body.sources, "No sources yet: views with no referrer, or from the site itself, have none.",
          function (source) { return [sourceLabel(source.source), source.views]; });
      }).catch(function () { /* kept as shown */ });
    });
    live().subscribe(function (message) {
      if (message.type !== "update") return;
      (message.counters || []).forEach(function (update) { if (update.name === name && viewsIn(update)) refresh(); });
    });
  }

  /* ---- the pages table: each row links to its page's own view (in its last-hour cell, so the
   * row's heading keeps one link: the page itself) ---- */
  function linkRows() {
    var panel = document.querySelector("[data-site-panel]");
    if (!panel) return;
    document.querySelectorAll("[data-page-rows] tr[data-row]").forEach(function (tr) {
      var name = tr.getAttribute("data-row");
      var cell = tr.querySelector("td.trend") || tr.lastElementChild;
      var heading = tr.querySelector("th");
      if (!cell || name === DASHBOARD || tr.querySelector(".page-details")) return;
      var a = document.createElement("a");
      a.className = "page-details";
      a.href = pageLink(panel, name);
      a.textContent = "details";
      a.setAttribute("aria-label", "Details of " + (heading ? (heading.querySelector("a") || heading).textContent.trim() : name));
      cell.appendChild(a);
    });
  }

  function start() {
    var panel = document.querySelector("[data-site-panel]");
    if (panel) startPanel(panel);
    var pageView = document.querySelector("[data-site-page]");
    if (pageView) startPageView(pageView);
    linkRows();
    document.addEventListener("counters:rows-added", linkRows);
  }

  // On DOMContentLoaded, after every deferred script: the panel's tag may come before live.js's.
  if (document.readyState === "complete") start();
  else document.addEventListener("DOMContentLoaded", start);
})();
