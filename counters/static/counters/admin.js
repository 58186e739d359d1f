/* The counters admin list: "Select all" ticks or clears every counter's box for the bulk actions, and
 * shows itself ticked, clear or mixed as the boxes are ticked one by one. */
(function () {
  "use strict";

  function boxes() {
    return Array.prototype.slice.call(document.querySelectorAll("#result_list input.action-select"));
  }

  function reflect(toggle) {
    var all = boxes();
    var ticked = all.filter(function (box) { return box.checked; }).length;
    toggle.checked = all.length > 0 && ticked === all.length;
    toggle.indeterminate = ticked > 0 && ticked < all.length;
  }

  document.addEventListener("DOMContentLoaded", function () {
    var toggle = document.getElementById("action-toggle");
    if (!toggle) return;
    toggle.addEventListener("change", function () {
      boxes().forEach(function (box) { box.checked = toggle.checked; });
      toggle.indeterminate = false;
    });
    boxes().forEach(function (box) {
      box.addEventListener("change", function () { reflect(toggle); });
    });
    reflect(toggle);
  });
})();
