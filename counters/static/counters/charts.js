/* Charts of the dashboard, drawn as plain SVG (no library, nothing fetched but this site's history API):
 * - a sparkline per page: views per minute over the last hour (and unique visitors per day over 90 days),
 *   every one asked for at once read in one request to /api/sparklines;
 * - the history chart of the page chosen in #history-counter over the range chosen in #history-ranges
 *   (1 h by minute, 24 h by 15 minutes, 48 h by hour, 90 d by day), as columns with gridlines, axis text
 *   at its real size (the viewBox follows the drawn width), a tooltip for the column under the pointer or
 *   chosen with the arrow keys, and a summary sentence.
 * Every time is shown in the site's time zone (the history's `time_zone`, Django's TIME_ZONE), whatever the
 * browser's: axis ticks fall on its round hours, a day column is its midnight to midnight (23 to 25 hours
 * across a clock change), and the caption names the zone. A day series reloads when its last day ends.
 * It subscribes to window.LiveCounters (live.js), which passes on only states newer than the page held,
 * with the state before: each extends the current bucket by the views it stands for (its rise in value).
 * Each drawn sparkline is announced as a "counters:sparkline" event {name, total} (the headline numbers). */
(function () {
  "use strict";

  var SVG_NS = "http://www.w3.org/2000/svg";
  var ROLL_MS = 15000; // move the time axis along even when nothing is counted
  var LANG = document.documentElement.lang || undefined;
  var series = {}; // "<name>|<window>|<svg id>" -> entry
  var RANGE_TEXT = { "1h": "the last hour", "24h": "the last 24 hours", "48h": "the last 48 hours", "90d": "the last 90 days" };
  var STEP_TEXT = { 60: "minute", 900: "quarter hour", 3600: "hour", 86400: "day" };
  var DAY = 86400;
  var offsets = {}; // "<zone>|<quarter hour>" -> the zone's offset from UTC then, in seconds

  function live() {
    return window.LiveCounters || null;
  }

  function format(n) {
    return live() ? live().format(n) : String(n);
  }

  function plural(n, one, other) {
    return live() ? live().plural(n, one, other) : n + " " + (n === 1 ? one : other);
  }

  function svgEl(tag, attrs, parent) {
    var node = document.createElementNS(SVG_NS, tag);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (parent) parent.appendChild(node);
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function fetchHistory(name, windowName, step, seriesName) {
    return getJSON("/api/counters/" + encodeURIComponent(name) + "/history?window=" + windowName + (step ? "&step=" + step : "") +
      (seriesName && seriesName !== "views" ? "&series=" + seriesName : ""));
  }

  function getJSON(url) {
    return fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" }).then(function (response) {
      return response.json().then(
        function (body) {
          if (!response.ok) throw new Error(body && body.detail ? body.detail : "the server answered " + response.status + ".");
          return body;
        },
        function () { throw new Error("the server answered " + response.status + "."); }
      );
    }, function () {
      throw new Error("the site cannot be reached.");
    });
  }

  /* Seconds the site's zone is ahead of UTC at `seconds` (zones change offset on quarter hours at most). */
  function zoneOffset(zone, seconds) {
    var key = zone + "|" + Math.floor(seconds / 900);
    if (key in offsets) return offsets[key];
    var parts = {};
    new Intl.DateTimeFormat("en-US", {
      timeZone: zone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric",
      hour: "numeric", minute: "numeric", second: "numeric"
    }).formatToParts(new Date(seconds * 1000)).forEach(function (part) { parts[part.type] = Number(part.value); });
    var local = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour % 24, parts.minute, parts.second) / 1000;
    offsets[key] = Math.round(local - seconds);
    return offsets[key];
  }

  /* Keep the last bucket the current one: append empty buckets as time passes, drop the oldest.
   * A day series cannot know the next day's length here: it is reloaded once its last day is over. */
  function advance(entry, nowSeconds) {
    if (entry.bucket >= DAY) {
      // Not sooner than one roll after loading: a browser clock ahead of the server's must not loop.
      var settled = nowSeconds - entry.loadedAt >= ROLL_MS / 1000;
      if (nowSeconds >= entry.end && settled && entry.reload && !entry.reloading) {
        entry.reloading = true;
        entry.reload();
      }
      return;
    }
    var current = Math.floor(nowSeconds / entry.bucket) * entry.bucket;
    var last = entry.starts[entry.starts.length - 1];
    if (current - last > entry.bucket * entry.starts.length) last = current - entry.bucket * entry.starts.length;
    while (last < current) {
      last += entry.bucket;
      entry.end = last + entry.bucket;
      entry.starts.push(last);
      entry.counts.push(0);
      entry.starts.shift();
      entry.counts.shift();
    }
  }

  function total(entry) {
    return entry.counts.reduce(function (a, b) { return a + b; }, 0);
  }

  function mark(svg, entry) {
    svg.setAttribute("data-points", String(entry.counts.length));
    svg.setAttribute("data-total", String(total(entry)));
  }

  /* ---- sparklines ---- */
  function drawSparkline(entry) {
    var svg = entry.svg;
    var width = 120, height = 28, top = 2;
    var max = Math.max(1, Math.max.apply(null, entry.counts));
    var n = entry.counts.length;
    var step = n > 1 ? width / (n - 1) : width;
    var line = entry.counts.map(function (count, i) {
      return (i * step).toFixed(2) + "," + (top + (height - top) * (1 - count / max)).toFixed(2);
    });
    clear(svg);
    svgEl("polygon", { class: "area", points: "0," + height + " " + line.join(" ") + " " + width + "," + height }, svg);
    svgEl("polyline", { points: line.join(" ") }, svg);
    mark(svg, entry);
    var title = svg.getAttribute("data-title") || entry.name;
    if (entry.series === "visitors") {
      svg.setAttribute("aria-label", "Unique visitors of " + title + " per day (days in " + entry.zone + ") over the last 90 days: " + plural(total(entry), "visitor", "visitors"));
      return;
    }
    svg.setAttribute("aria-label", "Views of " + title + " per minute over the last hour: " + plural(total(entry), "view", "views"));
    document.dispatchEvent(new CustomEvent("counters:sparkline", { detail: { name: entry.name, total: total(entry) } }));
  }

  /* Sparklines load together: every one asked for in the same turn is in one request to
   * /api/sparklines (at most BATCH names of each series per request), however many rows there are. */
  var BATCH = 100;
  var waiting = []; // [{svg, name, series}] asked for and not requested yet
  var batchTimer = null;

  function loadSparkline(svg) {
    if (svg.hasAttribute("data-loading")) return;
    svg.setAttribute("data-loading", "true");
    var name = svg.getAttribute("data-sparkline") || svg.getAttribute("data-visitor-trend");
    waiting.push({ svg: svg, name: name, series: svg.getAttribute("data-series") || "views" });
    if (batchTimer === null) batchTimer = window.setTimeout(requestSparklines, 0);
  }

  function requestSparklines() {
    batchTimer = null;
    var asked = waiting;
    waiting = [];
    while (asked.length) {
      var batch = [], names = { views: {}, visitors: {} }, counts = { views: 0, visitors: 0 };
      asked = asked.filter(function (item) {
        var seen = names[item.series][item.name];
        if (!seen && counts[item.series] >= BATCH) return true; // the next request's
        if (!seen) counts[item.series] += 1;
        names[item.series][item.name] = true;
        batch.push(item);
        return false;
      });
      fetchSparklines(batch, names);
    }
  }

  function fetchSparklines(batch, names) {
    var url = "/api/sparklines?views=" + Object.keys(names.views).map(encodeURIComponent).join(",") +
      "&visitors=" + Object.keys(names.visitors).map(encodeURIComponent).join(",");
    getJSON(url).then(function (body) {
      var found = { views: {}, visitors: {} };
      Object.keys(found).forEach(function (seriesName) {
        (body[seriesName] || []).forEach(function (data) { found[seriesName][data.name] = data; });
      });
      batch.forEach(function (item) {
        var data = found[item.series][item.name];
        if (data) showSparkline(item, data);
        else sparklineFailed(item, new Error("the answer left it out."));
      });
    }).catch(function (error) {
      batch.forEach(function (item) { sparklineFailed(item, error); });
    });
  }

  function showSparkline(item, data) {
    var svg = item.svg;
    var reload = function () {
      svg.removeAttribute("data-loading");
      loadSparkline(svg);
    };
    var entry = entryFrom(data, svg, drawSparkline, reload);
    series[item.name + "|" + data.window + "|spark-" + item.series] = entry;
    drawSparkline(entry);
  }

  function sparklineFailed(item, error) {
    var svg = item.svg;
    svg.setAttribute("data-error", "unavailable");
    svg.setAttribute("aria-label", "The last hour of " + (svg.getAttribute("data-title") || item.name) + " cannot be loaded: " + error.message);
    clear(svg);
    var text = svgEl("text", { x: 0, y: 18, class: "sparkline-error" }, svg);
    text.textContent = "unavailable";
  }

  function entryFrom(data, svg, draw, reload) {
    var entry = {
      name: data.name,
      window: data.window,
      series: data.series || "views",
      bucket: data.bucket_seconds,
      zone: data.time_zone || "UTC",
      end: Date.parse(data.end) / 1000,
      loadedAt: Date.now() / 1000,
      reload: reload,
      starts: data.points.map(function (p) { return Date.parse(p.start) / 1000; }),
      counts: data.points.map(function (p) { return p.count; }),
      svg: svg,
      draw: draw
    };
    advance(entry, Date.now() / 1000);
    return entry;
  }

  /* ---- the history chart ---- */
  function niceStep(max, ticks) {
    var raw = Math.max(1, max / ticks);
    var power = Math.pow(10, Math.floor(Math.log10(raw)));
    var unit = [1, 2, 5, 10].map(function (m) { return m * power; }).filter(function (s) { return s >= raw; })[0];
    return Math.max(1, unit);
  }

  function inZone(entry, options) {
    options.timeZone = entry.zone;
    return new Intl.DateTimeFormat(LANG, options);
  }

  function timeFormat(entry) {
    if (entry.bucket >= DAY) return inZone(entry, { month: "short", day: "numeric" });
    if (entry.window === "48h") return inZone(entry, { weekday: "short", hour: "numeric" });
    if (entry.window === "24h") return inZone(entry, { hour: "numeric" });
    return inZone(entry, { hour: "numeric", minute: "2-digit" });
  }

  function clockFormat(entry) {
    if (entry.bucket >= DAY) return inZone(entry, { weekday: "short", month: "short", day: "numeric" });
    return inZone(entry, { weekday: entry.window === "1h" ? undefined : "short", hour: "numeric", minute: "2-digit" });
  }

  /* Seconds between labelled ticks on the time axis, fewer when the chart is narrow. */
  function tickSeconds(entry, width) {
    var narrow = width < 480;
    return {
      "1h": narrow ? 1200 : 600,
      "24h": narrow ? 6 * 3600 : 3 * 3600,
      "48h": narrow ? 12 * 3600 : 6 * 3600,
      "90d": narrow ? 30 * 86400 : 14 * 86400
    }[entry.window] || entry.bucket * 10;
  }

  function period(entry, i) {
    var fmt = clockFormat(entry);
    var start = new Date(entry.starts[i] * 1000);
    if (entry.bucket >= DAY) return fmt.format(start);
    var end = new Date((entry.starts[i] + entry.bucket) * 1000);
    return typeof fmt.formatRange === "function" ? fmt.formatRange(start, end) : fmt.format(start) + " – " + fmt.format(end);
  }

  function chartTitle() {
    var picker = document.getElementById("history-counter");
    return picker && picker.selectedIndex >= 0 ? picker.options[picker.selectedIndex].text : "";
  }

  function summarise(entry) {
    var summary = document.getElementById("history-summary");
    if (!summary) return;
    var sum = total(entry);
    var range = RANGE_TEXT[entry.window] || entry.window;
    if (!sum) {
      summary.textContent = "No views of " + chartTitle() + " in " + range + ".";
      return;
    }
    var busiest = entry.counts.indexOf(Math.max.apply(null, entry.counts));
    summary.textContent = chartTitle() + ": " + plural(sum, "view", "views") + " in " + range + "; the busiest " +
      (STEP_TEXT[entry.bucket] || "period") + " was " + period(entry, busiest) + " with " +
      plural(entry.counts[busiest], "view", "views") + ".";
  }

  function showPoint(entry, index) {
    var tip = document.getElementById("history-tip");
    entry.active = index;
    entry.svg.querySelectorAll("rect.col").forEach(function (rect) {
      rect.classList.toggle("active", Number(rect.getAttribute("data-index")) === index);
    });
    if (!tip) return;
    if (index === null || index === undefined) {
      tip.textContent = "";
      entry.svg.removeAttribute("data-active");
      return;
    }
    entry.svg.setAttribute("data-active", String(index));
    tip.textContent = period(entry, index) + ": " + plural(entry.counts[index], "view", "views");
  }

  function drawChart(entry) {
    var svg = entry.svg;
    var box = svg.getBoundingClientRect();
    var width = Math.max(200, Math.round(box.width) || 600);
    var height = Math.max(120, Math.round(box.height) || 240);
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    var max = Math.max.apply(null, entry.counts);
    var step = niceStep(max, height < 220 ? 3 : 4);
    var top = Math.max(step, Math.ceil(max / step) * step);
    var labelWidth = String(format(top)).length * 7 + 10;
    var left = labelWidth, right = 6, upper = 10, bottom = 24;
    var plotW = width - left - right, plotH = height - upper - bottom;
    clear(svg);
    // Gridlines and the count axis.
    for (var tick = 0; tick <= top; tick += step) {
      var y = upper + plotH * (1 - tick / top);
      svgEl("line", { class: tick === 0 ? "baseline" : "grid", x1: left, x2: width - right, y1: y.toFixed(1), y2: y.toFixed(1) }, svg);
      var label = svgEl("text", { x: left - 6, y: (y + 4).toFixed(1), "text-anchor": "end" }, svg);
      label.textContent = format(tick);
    }
    // Columns, one per bucket.
    var n = entry.counts.length;
    var col = plotW / n;
    var gap = col > 5 ? 1 : 0;
    entry.counts.forEach(function (count, i) {
      if (!count) return;
      var h = Math.max(1, plotH * count / top);
      svgEl("rect", {
        class: "col" + (entry.active === i ? " active" : ""), "data-index": i,
        x: (left + i * col + gap / 2).toFixed(2), y: (upper + plotH - h).toFixed(2),
        width: Math.max(1, col - gap).toFixed(2), height: h.toFixed(2)
      }, svg);
    });
    // The time axis: ticks on round times of the site's zone (a day's start is its local midnight).
    var every = tickSeconds(entry, width);
    var fmt = timeFormat(entry);
    var lastEnd = -Infinity;
    entry.starts.forEach(function (start, i) {
      var local = start + zoneOffset(entry.zone, start);
      if ((local % every + every) % every !== 0) return;
      var x = left + i * col;
      var words = fmt.format(new Date(start * 1000));
      var half = words.length * 3.6; // about half the label's width at 12px
      var anchorStart = x - half < left;
      var from = anchorStart ? x : x - half;
      if (from < lastEnd + 12 || x + half > width) return;
      lastEnd = anchorStart ? x + 2 * half : x + half;
      svgEl("line", { class: "grid", x1: x.toFixed(1), x2: x.toFixed(1), y1: upper + plotH, y2: upper + plotH + 4 }, svg);
      var text = svgEl("text", { x: x.toFixed(1), y: height - 6, "text-anchor": anchorStart ? "start" : "middle" }, svg);
      text.textContent = words;
    });
    entry.layout = { left: left, col: col, n: n };
    svg.setAttribute("data-window", entry.window);
    svg.setAttribute("data-step-seconds", String(entry.bucket));
    svg.setAttribute("data-time-zone", entry.zone);
    svg.setAttribute("aria-label", "Views of " + chartTitle() + " in " + (RANGE_TEXT[entry.window] || entry.window) + ", per " + (STEP_TEXT[entry.bucket] || "bucket") + "; times in " + entry.zone);
    mark(svg, entry);
    summarise(entry);
    if (entry.active !== null && entry.active !== undefined) showPoint(entry, entry.active);
  }

  function startChart() {
    var chart = document.getElementById("history-chart");
    var picker = document.getElementById("history-counter");
    var ranges = document.getElementById("history-ranges");
    if (!chart || !picker) return;
    var choice = 0;
    var current = null;

    function chosenRange() {
      var input = ranges ? ranges.querySelector("input:checked") : null;
      return input ? { window: input.value, step: input.getAttribute("data-step") } : { window: "24h", step: "15m" };
    }

    function show() {
      var mine = ++choice;
      var range = chosenRange();
      Object.keys(series).forEach(function (key) { if (series[key].svg === chart) delete series[key]; });
      current = null;
      chart.removeAttribute("data-points");
      chart.removeAttribute("data-error");
      chart.setAttribute("aria-busy", "true");
      linkCsv(picker.value, range);
      fetchHistory(picker.value, range.window, range.step).then(function (data) {
        // A later choice may have been answered first: a stale answer must not replace it.
        if (mine !== choice) return;
        current = entryFrom(data, chart, drawChart, show);
        var zone = document.getElementById("history-zone");
        if (zone) zone.textContent = "Times in " + current.zone + ".";
        current.active = null;
        series[picker.value + "|" + range.window + "|chart"] = current;
        chart.removeAttribute("aria-busy");
        showPoint(current, null);
        drawChart(current);
      }).catch(function (error) {
        if (mine !== choice) return;
        chart.removeAttribute("aria-busy");
        chart.setAttribute("data-error", "unavailable");
        clear(chart);
        var summary = document.getElementById("history-summary");
        if (summary) summary.textContent = "The history of " + chartTitle() + " cannot be loaded: " + error.message;
      });
    }

    /* The CSV link under the chart downloads what it shows: the chosen page, range and step. */
    function linkCsv(name, range) {
      var link = document.getElementById("history-csv");
      var template = link && link.getAttribute("data-url-template");
      if (!template) return;
      link.href = template.replace("__page__", encodeURIComponent(name)) + "?window=" + encodeURIComponent(range.window) +
        (range.step ? "&step=" + encodeURIComponent(range.step) : "");
    }

    function indexAt(event) {
      if (!current || !current.layout) return null;
      var box = chart.getBoundingClientRect();
      var x = (event.clientX - box.left) * (Number(chart.viewBox.baseVal.width) / box.width);
      var i = Math.floor((x - current.layout.left) / current.layout.col);
      return i >= 0 && i < current.layout.n ? i : null;
    }

    chart.addEventListener("pointermove", function (event) {
      if (current) showPoint(current, indexAt(event));
    });
    chart.addEventListener("pointerleave", function () {
      if (current && document.activeElement !== chart) showPoint(current, null);
    });
    chart.addEventListener("focus", function () {
      if (!current || (current.active !== null && current.active !== undefined)) return;
      var last = current.counts.length - 1;
      for (var i = last; i >= 0; i--) if (current.counts[i]) { last = i; break; }
      showPoint(current, last);
    });
    chart.addEventListener("blur", function () {
      if (current) showPoint(current, null);
    });
    chart.addEventListener("keydown", function (event) {
      if (!current) return;
      var n = current.counts.length;
      var at = current.active === null || current.active === undefined ? n - 1 : current.active;
      var moves = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: n - 1, PageUp: at - 10, PageDown: at + 10 };
      if (event.key === "Escape") {
        showPoint(current, null);
        return;
      }
      if (!(event.key in moves)) return;
      event.preventDefault();
      showPoint(current, Math.max(0, Math.min(n - 1, moves[event.key])));
    });
    picker.addEventListener("change", show);
    if (ranges) ranges.addEventListener("change", show);
    if (window.ResizeObserver) {
      var pending = false;
      new ResizeObserver(function () {
        if (pending || !current) return;
        pending = true;
        window.requestAnimationFrame(function () {
          pending = false;
          if (current) drawChart(current);
        });
      }).observe(chart);
    }
    if (picker.value) show();
  }

  /* ---- live updates ---- */
  function onUpdate(message) {
    var now = Date.now() / 1000;
    message.counters.forEach(function (update) {
      var previous = update.previous;
      // A page's views add one each (one write may carry several); a fall in value is a reset, not views.
      var views = previous && update.value >= previous.value ? update.value - previous.value : 0;
      if (!views) return;
      Object.keys(series).forEach(function (key) {
        var entry = series[key];
        // Live updates carry views; a visitors series moves on its next load only.
        if (entry.name !== update.name || entry.series === "visitors") return;
        advance(entry, now);
        if (now >= entry.end) return; // a day series whose last day is over: its reload brings the view
        entry.counts[entry.counts.length - 1] += views;
        entry.draw(entry);
      });
    });
  }

  function loadSparklines() {
    document.querySelectorAll("svg[data-sparkline], svg[data-visitor-trend]").forEach(loadSparkline);
  }

  function start() {
    loadSparklines();
    startChart();
    document.addEventListener("counters:rows-added", loadSparklines);
    if (live()) live().subscribe(onUpdate);
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
