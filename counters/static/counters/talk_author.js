/* The talk page (/p/talks/<talk>): reorder polls by drag (the keyboard's way is each poll's Move up and Move
 * down buttons), and N opens the next poll (the "Open next poll" form) when no field has the keyboard. A drop
 * sends the new order in the page's own "order" form, with the CSRF token and version it holds. */
(function () {
  "use strict";

  var list = document.querySelector("[data-talk-polls]");
  var orderForm = document.querySelector("[data-order-form]");
  var nextForm = document.querySelector("[data-open-next]");
  var dragged = null;

  if (list && orderForm) {
    list.addEventListener("dragstart", function (event) {
      dragged = event.target.closest("[data-talk-poll]");
      if (!dragged) return;
      dragged.classList.add("dragging");
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", dragged.getAttribute("data-talk-poll"));
    });
    list.addEventListener("dragover", function (event) {
      if (!dragged) return;
      event.preventDefault(); // anywhere in the list takes the drop, the dragged card itself too
      var over = event.target.closest("[data-talk-poll]");
      if (!over || over === dragged) return;
      var box = over.getBoundingClientRect();
      list.insertBefore(dragged, event.clientY > box.top + box.height / 2 ? over.nextSibling : over);
    });
    list.addEventListener("drop", function (event) {
      if (!dragged) return;
      event.preventDefault();
      var order = Array.prototype.map.call(list.querySelectorAll("[data-talk-poll]"), function (node) {
        return node.getAttribute("data-talk-poll");
      });
      orderForm.querySelector('[name="order"]').value = order.join(" ");
      orderForm.submit();
    });
    list.addEventListener("dragend", function () {
      if (dragged) dragged.classList.remove("dragging");
      dragged = null;
    });
  }

  document.addEventListener("keydown", function (event) {
    if (!nextForm || event.ctrlKey || event.altKey || event.metaKey || event.defaultPrevented) return;
    if (event.target.closest && event.target.closest("input, textarea, select, [contenteditable]")) return;
    if (event.key.toLowerCase() !== "n") return;
    event.preventDefault();
    nextForm.submit();
  });
})();
