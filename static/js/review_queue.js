// Queue page: "select this page" ticks the rows shown; "all matching" covers the whole filter.
(function () {
  "use strict";
  const page = document.getElementById("select-page");
  const all = document.getElementById("select-all");
  if (!page) return;
  const rows = function () { return document.querySelectorAll("input.row-select"); };
  page.addEventListener("change", function () {
    rows().forEach(function (box) { box.checked = page.checked; });
  });
  all.addEventListener("change", function () {
    rows().forEach(function (box) { box.checked = all.checked; box.disabled = all.checked; });
    page.checked = all.checked;
    page.disabled = all.checked;
  });
})();
