// Review item page: score, explanation, flag and comment keys, and highlighting cited spans.
// The keys overlay, the shared keys and the lock heartbeat are review_page.js's.
(function () {
  "use strict";
  const page = window.reviewPage({ formId: "resolve-form", onKey: onKey });

  function focusField(id) {
    const field = document.getElementById(id);
    if (field) { field.focus(); return true; }
    return false;
  }

  function pickScore(key) {
    if (!page.form) return false;
    const radio = page.form.querySelector('input[name=score][data-key="' + key + '"]');
    // Not focused: arrow keys then keep meaning next/previous item, not "next radio".
    if (radio) { radio.checked = true; return true; }
    return false;
  }

  function onKey(event) {
    // A focused radio group keeps the browser's own arrow-key behaviour.
    if (event.target.type === "radio" && event.key.startsWith("Arrow")) return false;
    switch (event.key) {
      case "e": return focusField("id_explanation");
      case "c": return focusField("id_text");
      case "ArrowRight": page.submit("skip-form"); return true;
      case "ArrowLeft":
        if (!page.config.previousUrl) return false;
        window.location.assign(page.config.previousUrl);
        return true;
      case "p": {
        const promote = document.getElementById("id_promote");
        if (!promote) return false;
        promote.checked = !promote.checked;
        return true;
      }
      case "f": page.submit("flag-form"); return true;
      default: return /^[0-9]$/.test(event.key) && pickScore(event.key);
    }
  }

  // Hovering a judge pass or a citation lights up the spans it cites in the tree.
  function light(ids, on) {
    ids.split(" ").filter(Boolean).forEach(function (id) {
      const node = document.getElementById("span-" + id);
      if (node) node.classList.toggle("is-cited-active", on);
    });
  }
  document.querySelectorAll("[data-span-ids]").forEach(function (el) {
    el.addEventListener("mouseenter", function () { light(el.dataset.spanIds, true); });
    el.addEventListener("mouseleave", function () { light(el.dataset.spanIds, false); });
  });
})();
