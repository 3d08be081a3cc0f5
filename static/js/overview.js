// Draws every chart of a dashboard page (overview, agent health) from #overview-figures.
(function () {
  "use strict";
  var source = document.getElementById("overview-figures");
  if (!source || typeof Plotly === "undefined") {
    return;
  }
  var figures = JSON.parse(source.textContent);
  var config = { responsive: true, displaylogo: false, modeBarButtonsToRemove: ["sendDataToCloud"] };
  document.querySelectorAll("[data-chart]").forEach(function (node) {
    var figure = figures[node.dataset.chart];
    if (!figure) {
      return;
    }
    Plotly.newPlot(node, figure.data, figure.layout, config).then(function () {
      node.dataset.rendered = "true";
    });
  });
})();
