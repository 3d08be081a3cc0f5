// Review item page: keyboard shortcuts, the lock heartbeat, and highlighting cited spans.
(function () {
  "use strict";
  const config = JSON.parse(document.getElementById("review-config").textContent);
  const form = document.getElementById("resolve-form");
  const overlay = document.getElementById("help-overlay");
  const csrf = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "";

  function typing(target) {
    return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  function submit(id) {
    const target = document.getElementById(id);
    if (target) target.requestSubmit ? target.requestSubmit() : target.submit();
  }

  function focusField(id) {
    const field = document.getElementById(id);
    if (field) { field.focus(); return true; }
    return false;
  }

  function toggleHelp(show) {
    overlay.hidden = show === undefined ? !overlay.hidden : !show;
  }

  function pickScore(key) {
    if (!form) return false;
    const radio = form.querySelector('input[name=score][data-key="' + key + '"]');
    // Not focused: arrow keys then keep meaning next/previous item, not "next radio".
    if (radio) { radio.checked = true; return true; }
    return false;
  }

  document.addEventListener("keydown", function (event) {
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      if (form) { event.preventDefault(); submit("resolve-form"); }
      return;
    }
    if (event.key === "Escape") {
      if (!overlay.hidden) toggleHelp(false);
      else if (typing(event.target)) event.target.blur();
      return;
    }
    const choice = event.target.type === "radio" || event.target.type === "checkbox";
    if (typing(event.target) && !choice) return;
    // A focused radio group keeps the browser's own arrow-key behaviour.
    if (event.target.type === "radio" && event.key.startsWith("Arrow")) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    let handled = true;
    switch (event.key) {
      case "?": toggleHelp(); break;
      case "e": handled = focusField("id_explanation"); break;
      case "c": handled = focusField("id_text"); break;
      case "s": case "ArrowRight": submit("skip-form"); break;
      case "ArrowLeft":
        if (config.previousUrl) window.location.assign(config.previousUrl); else handled = false;
        break;
      case "p": {
        const promote = document.getElementById("id_promote");
        if (promote) promote.checked = !promote.checked; else handled = false;
        break;
      }
      case "f": submit("flag-form"); break;
      case "u": submit("undo-form"); break;
      default:
        handled = /^[0-9]$/.test(event.key) && pickScore(event.key);
    }
    if (handled) event.preventDefault();
  });

  document.getElementById("help-button").addEventListener("click", function () { toggleHelp(); });
  overlay.addEventListener("click", function (event) { if (event.target === overlay) toggleHelp(false); });

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

  // Keep the lock while the page is open; say so at once when it is gone.
  function lockLost(message) {
    const info = document.getElementById("lock-info");
    if (info) {
      info.classList.add("error");
      info.textContent = message + " ";
    }
  }
  if (config.holds) {
    window.setInterval(function () {
      fetch(config.heartbeatUrl, {
        method: "POST",
        headers: { "X-CSRFToken": csrf, "Accept": "application/json" },
        credentials: "same-origin",
      }).then(function (response) {
        if (response.status === 409) {
          return response.json().then(function (body) { lockLost(body.error.message); });
        }
        return null;
      }).catch(function () { /* offline for a moment: the next beat tries again */ });
    }, config.heartbeatSeconds * 1000);
  }
})();
