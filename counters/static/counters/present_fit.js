/* Present mode's type fits the screen: each box marked data-fit (the results, the join details) gets the
 * largest --fit in [MIN, 1] at which nothing in it overflows, so a long question or label is drawn smaller,
 * never cut or scrolled. Fitted again when a box changes size and when the words or what is shown change
 * (a count, a reveal); a redraw of bars alone does not. Needs no other script. */
(function () {
  "use strict";

  var boxes = Array.prototype.slice.call(document.querySelectorAll("[data-fit]"));
  if (!boxes.length) return;

  var MIN = 0.3;
  var STEPS = 7; // halvings of [MIN, 1]: within 1% of the largest scale that fits
  var pending = false;

  function overflows(box) {
    return box.scrollHeight > box.clientHeight + 1 || box.scrollWidth > box.clientWidth + 1;
  }

  function fitOne(box) {
    box.style.setProperty("--fit", "1");
    if (!overflows(box)) return;
    var low = MIN, high = 1;
    for (var i = 0; i < STEPS; i++) {
      var middle = (low + high) / 2;
      box.style.setProperty("--fit", String(middle));
      if (overflows(box)) high = middle;
      else low = middle;
    }
    box.style.setProperty("--fit", String(low));
  }

  function fit() {
    pending = false;
    boxes.forEach(fitOne);
    document.documentElement.setAttribute("data-fitted", "true");
  }

  function soon() {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(fit);
  }

  // A box's own size changes with the window and with the rows below it (a status line that wraps).
  if (window.ResizeObserver) {
    var sizes = new ResizeObserver(soon);
    boxes.forEach(function (box) { sizes.observe(box); });
  } else {
    window.addEventListener("resize", soon);
  }
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(soon);
  var watcher = new MutationObserver(soon);
  boxes.forEach(function (box) {
    watcher.observe(box, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["hidden", "class"] });
  });
  fit();
})();
