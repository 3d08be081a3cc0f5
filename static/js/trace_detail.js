// Trace page: the plotly waterfall (data from json_script) and tree expand/collapse.
(function () {
  "use strict";

  var KIND_COLORS = {
    agent: "#7b61c9",
    llm: "#2f7fd1",
    tool: "#2e9e5b",
    retriever: "#d18b2f",
    custom: "#8a94a3",
  };

  function showSpan(spanId) {
    var node = document.getElementById("span-" + spanId);
    if (!node) return;
    var parent = node;
    while (parent) {
      if (parent.tagName === "DETAILS") parent.open = true;
      parent = parent.parentElement;
    }
    var details = node.querySelector("details.span-fold");
    if (details) details.open = true;
    node.scrollIntoView({ behavior: "smooth", block: "center" });
    node.classList.add("is-highlighted");
  }

  function drawWaterfall() {
    var holder = document.getElementById("trace-waterfall");
    var source = document.getElementById("trace-waterfall-data");
    if (!holder || !source || typeof Plotly === "undefined") return;
    var rows = JSON.parse(source.textContent);
    // Unique y keys keep spans with equal names apart; labels show the names.
    var keys = rows.map(function (row, i) { return i + ":" + row.id; });
    var trace = {
      type: "bar",
      orientation: "h",
      y: keys,
      x: rows.map(function (row) { return Math.max(row.ms, 0.5); }),
      base: rows.map(function (row) { return row.start; }),
      customdata: rows.map(function (row) { return row.id; }),
      text: rows.map(function (row) { return row.ms + " ms"; }),
      hovertext: rows.map(function (row) {
        return row.label.replace(/^(· )+/, "") + " (" + row.kind + ")" + (row.error ? " — error" : "");
      }),
      hovertemplate: "%{hovertext}<br>start %{base} ms, %{x} ms<extra></extra>",
      textposition: "none",
      marker: {
        color: rows.map(function (row) { return row.error ? "#b3261e" : (KIND_COLORS[row.kind] || "#8a94a3"); }),
      },
    };
    var height = Math.min(Math.max(220, rows.length * 18 + 80), 1600);
    var layout = {
      height: height,
      margin: { l: 260, r: 20, t: 10, b: 40 },
      xaxis: { title: { text: "ms since trace start" }, zeroline: false },
      yaxis: {
        autorange: "reversed",
        tickmode: "array",
        tickvals: keys,
        ticktext: rows.map(function (row) { return row.label.length > 40 ? row.label.slice(0, 39) + "…" : row.label; }),
        tickfont: { size: 11 },
      },
      bargap: 0.25,
      showlegend: false,
    };
    Plotly.newPlot(holder, [trace], layout, { displaylogo: false, responsive: true });
    holder.on("plotly_click", function (event) {
      if (event.points && event.points.length) showSpan(event.points[0].customdata);
    });
  }

  function setAll(open) {
    document.querySelectorAll(".span-tree details.span-fold").forEach(function (el) { el.open = open; });
  }

  document.addEventListener("DOMContentLoaded", function () {
    drawWaterfall();
    var expand = document.getElementById("spans-expand");
    var collapse = document.getElementById("spans-collapse");
    if (expand) expand.addEventListener("click", function () { setAll(true); });
    if (collapse) collapse.addEventListener("click", function () { setAll(false); });
    if (window.location.hash.indexOf("#span-") === 0) showSpan(window.location.hash.slice(6));
  });
})();
