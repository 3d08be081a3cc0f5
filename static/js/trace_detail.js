// Trace page: the plotly waterfall (data from json_script), tree expand/collapse, and links
// to spans: a span past the tree's first window is not in the page yet, so the page reloads
// with ?span=, which always renders it.
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
    if (!node) {
      var params = new URLSearchParams(window.location.search);
      if (params.get("span") === spanId) return; // rendered if it exists: no such span
      params.set("span", spanId);
      window.location.assign("?" + params.toString() + "#span-" + encodeURIComponent(spanId));
      return;
    }
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
    // Each row: [span id, label, kind, start ms, length ms, 1 if failed].
    var rows = JSON.parse(source.textContent).map(function (r) {
      return { id: r[0], label: r[1], kind: r[2], start: r[3], ms: r[4], error: r[5] === 1 };
    });
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
    // Past what the height can label, names would print over each other: hover tells them.
    var labelled = rows.length * 18 + 80 <= 1600;
    var layout = {
      height: height,
      margin: { l: labelled ? 260 : 20, r: 20, t: 10, b: 40 },
      xaxis: { title: { text: "ms since trace start" }, zeroline: false },
      yaxis: {
        autorange: "reversed",
        tickmode: "array",
        tickvals: keys,
        ticktext: rows.map(function (row) { return row.label.length > 40 ? row.label.slice(0, 39) + "…" : row.label; }),
        tickfont: { size: 11 },
        showticklabels: labelled,
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
    document.addEventListener("click", function (event) {
      var link = event.target.closest ? event.target.closest('a[href^="#span-"]') : null;
      if (!link) return;
      event.preventDefault();
      var spanId = decodeURIComponent(link.getAttribute("href").slice(6));
      history.replaceState(null, "", "#span-" + encodeURIComponent(spanId));
      showSpan(spanId);
    });
    if (window.location.hash.indexOf("#span-") === 0) {
      showSpan(decodeURIComponent(window.location.hash.slice(6)));
    }
  });
})();
