// Trace list: tick two rows to compare them; the count and the buttons follow the ticks, and
// `c` opens the two side by side.
(function () {
  "use strict";
  const form = document.getElementById("pair-form");
  if (!form) return;
  const boxes = Array.from(document.querySelectorAll('input[form="pair-form"][name="trace"]'));
  const count = document.getElementById("pair-count");
  const buttons = Array.from(form.querySelectorAll("button[type=submit]"));

  function update() {
    const picked = boxes.filter(function (box) { return box.checked; }).length;
    count.textContent = picked === 2 ? "2 traces picked" : picked + " of 2 traces picked";
    buttons.forEach(function (button) { button.disabled = picked !== 2; });
    boxes.forEach(function (box) {
      box.closest("tr").classList.toggle("picked", box.checked);
    });
  }

  boxes.forEach(function (box) { box.addEventListener("change", update); });
  document.addEventListener("keydown", function (event) {
    const target = event.target;
    const typing = target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) && target.type !== "checkbox";
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "c" && !buttons[0].disabled) {
      event.preventDefault();
      form.requestSubmit ? form.requestSubmit(buttons[0]) : form.submit();
    }
  });
  update();
})();
