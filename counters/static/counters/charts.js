/* Charts of the dashboard, drawn as plain SVG (no library, no network beyond this site's API):
 * - a sparkline per counter: views per minute over the last hour; and per view counter, its unique
 *   visitors per day over 90 days (svg[data-visitor-trend], data-series="visitors", data-window="90d");
 * - a larger chart of the last 48 hours for the counter chosen in #history-counter;
 * - poll results as horizontal bars.
 * It subscribes to window.LiveCounters (live.js), which passes on only states newer than the page
 * held, with the state before: each extends the current minute by the writes it stands for (its
 * version step) and moves the poll bars. */
(function () {
  "use strict";

  var SVG_NS = "http://www.w3.org/2000/svg";
  var ROLL_MS = 15000; // move the time axis along even when nothing is counted
  var series = {}; // "<name>|<window>|<series>" -> {name, window, series, bucket, starts, counts, svg, draw}

  function svgEl(tag, attrs, parent) {
    var node = document.createElementNS(SVG_NS, tag);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (parent) parent.appendChild(node);
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function viewBox(svg) {
    var box = (svg.getAttribute("viewBox") || "0 0 120 28").split(/\s+/).map(Number);
    return { width: box[2], height: box[3] };
  }

  function fetchHistory(name, windowName, seriesName) {
    var url = "/api/counters/" + encodeURIComponent(name) + "/history?window=" + windowName +
      "&series=" + (seriesName || "views");
    return fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" }).then(
      function (response) {
        if (!response.ok) throw new Error("history " + name + ": HTTP " + response.status);
        return response.json();
      }
    );
  }

  /* Keep the last bucket the current one: append empty buckets as time passes, drop the oldest. */
  function advance(entry, nowSeconds) {
    var current = Math.floor(nowSeconds / entry.bucket) * entry.bucket;
    var last = entry.starts[entry.starts.length - 1];
    if (current - last > entry.bucket * entry.starts.length) last = current - entry.bucket * entry.starts.length;
    while (last < current) {
      last += entry.bucket;
      entry.starts.push(last);
      entry.counts.push(0);
      entry.starts.shift();
      entry.counts.shift();
    }
  }

  function points(entry, width, height, top) {
    var max = Math.max(1, Math.max.apply(null, entry.counts));
    var n = entry.counts.length;
    var step = n > 1 ? width / (n - 1) : width;
    return entry.counts.map(function (count, i) {
      var x = (i * step).toFixed(2);
      var y = (top + (height - top) * (1 - count / max)).toFixed(2);
      return x + "," + y;
    });
  }

  function mark(svg, entry) {
    svg.setAttribute("data-points", String(entry.counts.length));
    svg.setAttribute("data-total", String(entry.counts.reduce(function (a, b) { return a + b; }, 0)));
  }

  function drawSparkline(entry) {
    var svg = entry.svg;
    var size = viewBox(svg);
    var line = points(entry, size.width, size.height, 2);
    clear(svg);
    svgEl("polygon", { class: "area", points: "0," + size.height + " " + line.join(" ") + " " + size.width + "," + size.height }, svg);
    svgEl("polyline", { points: line.join(" ") }, svg);
    mark(svg, entry);
  }

  function label(svg, text, x, y, anchor) {
    var node = svgEl("text", { x: x, y: y, "text-anchor": anchor || "start" }, svg);
    node.textContent = text;
    return node;
  }

  function drawLarge(entry) {
    var svg = entry.svg;
    var size = viewBox(svg);
    var left = 40, bottom = 20, top = 10;
    var plotWidth = size.width - left, plotHeight = size.height - bottom;
    var max = Math.max(1, Math.max.apply(null, entry.counts));
    var line = points(entry, plotWidth, plotHeight, top);
    clear(svg);
    var plot = svgEl("g", { transform: "translate(" + left + ",0)" }, svg);
    svgEl("line", { class: "axis", x1: 0, y1: plotHeight, x2: plotWidth, y2: plotHeight }, plot);
    svgEl("line", { class: "axis", x1: 0, y1: top, x2: 0, y2: plotHeight }, plot);
    svgEl("polygon", { class: "area", points: "0," + plotHeight + " " + line.join(" ") + " " + plotWidth + "," + plotHeight }, plot);
    svgEl("polyline", { class: "line", points: line.join(" ") }, plot);
    label(svg, String(max), left - 4, top + 4, "end");
    label(svg, "0", left - 4, plotHeight, "end");
    label(svg, "48 h ago", left, size.height - 4);
    label(svg, "24 h ago", left + plotWidth / 2, size.height - 4, "middle");
    label(svg, "now", size.width, size.height - 4, "end");
    mark(svg, entry);
    var summary = document.getElementById("history-summary");
    if (summary) {
      var total = Number(svg.getAttribute("data-total"));
      summary.textContent = total + " views of " + entry.name + " in the last 48 hours; busiest minute: " + max + ".";
    }
  }

  function load(svg, name, windowName, draw, isCurrent) {
    var seriesName = svg.getAttribute("data-series") || "views";
    var key = name + "|" + windowName + "|" + seriesName;
    return fetchHistory(name, windowName, seriesName).then(function (data) {
      // A later choice may have been answered first: a stale answer must not replace it.
      if (isCurrent && !isCurrent()) return;
      var entry = {
        name: name,
        window: windowName,
        series: seriesName,
        bucket: data.bucket_seconds,
        starts: data.points.map(function (p) { return Date.parse(p.start) / 1000; }),
        counts: data.points.map(function (p) { return p.count; }),
        svg: svg,
        draw: draw,
      };
      advance(entry, Date.now() / 1000);
      series[key] = entry;
      draw(entry);
    });
  }

  /* ---- poll bars ---- */
  function drawPoll(svg) {
    var bars = Array.prototype.slice.call(svg.querySelectorAll("g[data-bar-counter]"));
    var rowHeight = 24, width = 400, labelWidth = 150, countWidth = 40;
    var total = bars.reduce(function (sum, g) { return sum + Number(g.getAttribute("data-votes")); }, 0);
    var most = Math.max.apply(null, [1].concat(bars.map(function (g) { return Number(g.getAttribute("data-votes")); })));
    svg.setAttribute("viewBox", "0 0 " + width + " " + bars.length * rowHeight);
    bars.forEach(function (g, i) {
      var votes = Number(g.getAttribute("data-votes"));
      var full = width - labelWidth - countWidth;
      clear(g);
      g.setAttribute("transform", "translate(0," + i * rowHeight + ")");
      label(g, g.getAttribute("data-label"), 0, 16);
      svgEl("rect", { class: "track", x: labelWidth, y: 4, width: full, height: 14, rx: 3 }, g);
      svgEl("rect", { class: "bar", x: labelWidth, y: 4, width: (full * votes / most).toFixed(2), height: 14, rx: 3 }, g);
      var text = label(g, String(votes), width, 16, "end");
      text.setAttribute("class", "votes");
      g.setAttribute("data-share", total ? (votes / total).toFixed(4) : "0");
    });
    svg.setAttribute("data-total", String(total));
  }

  /* ---- live updates ---- */
  function onUpdate(message) {
    var now = Date.now() / 1000;
    message.counters.forEach(function (update) {
      var previous = update.previous;
      // Each write is one version step; a fall in value is a reset, not views.
      var writes = previous && update.value >= previous.value ? update.version - previous.version : 0;
      Object.keys(series).forEach(function (key) {
        var entry = series[key];
        // Live updates carry views; a visitors series moves on the next load only.
        if (entry.name !== update.name || entry.series !== "views") return;
        advance(entry, now);
        entry.counts[entry.counts.length - 1] += writes;
        entry.draw(entry);
      });
      document.querySelectorAll("g[data-bar-counter]").forEach(function (g) {
        if (g.getAttribute("data-bar-counter") !== update.name) return;
        g.setAttribute("data-votes", String(update.value));
        g.setAttribute("data-version", String(update.version));
        drawPoll(g.ownerSVGElement);
      });
    });
  }

  function start() {
    document.querySelectorAll("svg[data-poll-bars]").forEach(drawPoll);
    document.querySelectorAll("svg[data-sparkline], svg[data-visitor-trend]").forEach(function (svg) {
      var name = svg.getAttribute("data-sparkline") || svg.getAttribute("data-visitor-trend");
      load(svg, name, svg.getAttribute("data-window") || "1h", drawSparkline).catch(function () {
        svg.setAttribute("data-error", "unavailable");
      });
    });
    var chart = document.getElementById("history-chart");
    var picker = document.getElementById("history-counter");
    if (chart && picker) {
      var choice = 0;
      var show = function () {
        var mine = ++choice;
        var isCurrent = function () { return mine === choice; };
        Object.keys(series).forEach(function (key) { if (series[key].svg === chart) delete series[key]; });
        chart.removeAttribute("data-points");
        load(chart, picker.value, chart.getAttribute("data-window") || "48h", drawLarge, isCurrent).catch(function () {
          if (isCurrent()) chart.setAttribute("data-error", "unavailable");
        });
      };
      picker.addEventListener("change", show);
      if (picker.value) show();
    }
    if (window.LiveCounters) window.LiveCounters.subscribe(onUpdate);
    window.setInterval(function () {
      var now = Date.now() / 1000;
      Object.keys(series).forEach(function (key) {
        advance(series[key], now);
        series[key].draw(series[key]);
      });
    }, ROLL_MS);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
