// Draws every overview chart from the figures the server put in #overview-figures.
(function () {
  "use strict";
  var source = document.getElementById("overview-figures");
  if (!source || typeof Plotly === "undefined") {
    return;
  }
  var figures = JSON.parse(source.textContent);
  var config = { responsive: true, displaylogo: false, modeBarButtonsToRemove: ["sendDataToCloud"] };
  var DAY_MS = 86400000;

  // With a single day or week of data plotly zooms a date axis to milliseconds; pad it instead.
  function padSingleDate(figure) {
    var axis = figure.layout && figure.layout.xaxis;
    var unit = axis && axis.title && axis.title.text;
    if (unit !== "day" && unit !== "week") {
      return;
    }
    var xs = new Set();
    (figure.data || []).forEach(function (trace) {
      (trace.x || []).forEach(function (x) { xs.add(String(x)); });
    });
    if (xs.size !== 1) {
      return;
    }
    var at = Date.parse(xs.values().next().value);
    if (isNaN(at)) {
      return;
    }
    var pad = (unit === "week" ? 7 : 1) * DAY_MS;
    axis.type = "date";
    axis.range = [new Date(at - pad).toISOString(), new Date(at + pad).toISOString()];
  }
  document.querySelectorAll("[data-chart]").forEach(function (node) {
    var figure = figures[node.dataset.chart];
    if (!figure) {
      return;
    }
    padSingleDate(figure);
    Plotly.newPlot(node, figure.data, figure.layout, config).then(function () {
      node.dataset.rendered = "true";
    });
  });
})();
