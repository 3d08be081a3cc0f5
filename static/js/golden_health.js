// Draws the dataset health charts from the JSON the page embeds (no inline script: strict CSP).
(function () {
  "use strict";
  var source = document.getElementById("golden-health-data");
  if (!source || typeof Plotly === "undefined") {
    return;
  }
  var data = JSON.parse(source.textContent);
  var config = { displayModeBar: false, responsive: true };
  var layout = function (extra) {
    return Object.assign(
      { margin: { l: 140, r: 20, t: 10, b: 40 }, height: 280, barmode: "stack",
        legend: { orientation: "h" } },
      extra || {}
    );
  };

  // Labels are stored slugs; axes of counts tick in whole numbers; labels set their own margin.
  var readable = function (slug) { return String(slug).replace(/_/g, " "); };
  var countAxis = function (values) {
    var largest = Math.max.apply(null, values.concat([1]));
    return { dtick: largest <= 6 ? 1 : null, tickformat: "~s", rangemode: "tozero" };
  };
  var labelAxis = { automargin: true };

  var low = data.guidance.shift[0];
  var high = data.guidance.shift[1];
  Plotly.newPlot(
    "chart-size",
    [{ type: "bar", orientation: "h", y: ["examples"], x: [data.size], name: "examples",
       marker: { color: data.size >= low ? "#1e7a3c" : data.size >= data.guidance.major ? "#8a5a00" : "#b3261e" } }],
    layout({
      height: 140,
      margin: { l: 80, r: 20, t: 10, b: 30 },
      xaxis: { range: [0, Math.max(high * 1.1, data.size * 1.1)] },
      // A line where major regressions show, and the range of sizes that see a 5% shift.
      shapes: [
        { type: "line", x0: data.guidance.major, x1: data.guidance.major, y0: -0.5, y1: 0.5,
          line: { dash: "dot", color: "#5b6775" } },
        { type: "rect", x0: low, x1: high, y0: -0.5, y1: 0.5, layer: "above",
          fillcolor: "#5b6775", opacity: 0.15, line: { dash: "dot", color: "#5b6775", width: 1 } }
      ],
      annotations: [
        { x: data.guidance.major, y: 0.5, text: "major regressions", showarrow: false, yanchor: "bottom" },
        { x: (low + high) / 2, y: 0.5, text: "5% shift (" + low + "–" + high + ")", showarrow: false,
          yanchor: "bottom" }
      ],
    }),
    config
  );

  var types = data.task_types.map(function (row) { return readable(row.task_type); });
  var traces = [{ type: "bar", orientation: "h", name: "open", y: types,
                  x: data.task_types.map(function (row) { return row.open; }) }];
  if (data.show_held_out) {
    traces.push({ type: "bar", orientation: "h", name: "held-out", y: types,
                  x: data.task_types.map(function (row) { return row.held_out; }) });
  }
  var typeTotals = data.task_types.map(function (row) { return row.open + (row.held_out || 0); });
  Plotly.newPlot(
    "chart-task-types", traces,
    layout({ margin: { l: 20, r: 20, t: 10, b: 40 }, xaxis: countAxis(typeTotals), yaxis: labelAxis }),
    config
  );

  Plotly.newPlot(
    "chart-failure-modes",
    [{ type: "bar", orientation: "h", name: "examples",
       y: data.failure_modes.map(function (row) { return readable(row.mode); }),
       x: data.failure_modes.map(function (row) { return row.count; }) }],
    layout({
      showlegend: false,
      margin: { l: 20, r: 20, t: 10, b: 40 },
      xaxis: countAxis(data.failure_modes.map(function (row) { return row.count; })),
      yaxis: labelAxis,
    }),
    config
  );
})();
