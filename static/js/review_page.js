// What every review item page shares: the keys overlay, the keys both pages answer (? s u,
// Esc, Ctrl+Enter) and the lock heartbeat. A page's own script calls
// reviewPage({formId, onKey}); onKey gets every other key and says whether it used it.
window.reviewPage = function (options) {
  "use strict";
  const config = JSON.parse(document.getElementById("review-config").textContent);
  const form = document.getElementById(options.formId);
  const overlay = document.getElementById("help-overlay");
  const csrf = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "";

  function typing(target) {
    return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  function submit(id) {
    const target = document.getElementById(id);
    if (target) target.requestSubmit ? target.requestSubmit() : target.submit();
  }

  function toggleHelp(show) {
    overlay.hidden = show === undefined ? !overlay.hidden : !show;
  }

  document.addEventListener("keydown", function (event) {
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      if (form) { event.preventDefault(); submit(options.formId); }
      return;
    }
    if (event.key === "Escape") {
      if (!overlay.hidden) toggleHelp(false);
      else if (typing(event.target)) event.target.blur();
      return;
    }
    const choice = event.target.type === "radio" || event.target.type === "checkbox";
    if (typing(event.target) && !choice) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    let handled = true;
    switch (event.key) {
      case "?": toggleHelp(); break;
      case "s": submit("skip-form"); break;
      case "u": submit("undo-form"); break;
      default: handled = options.onKey(event);
    }
    if (handled) event.preventDefault();
  });

  document.getElementById("help-button").addEventListener("click", function () { toggleHelp(); });
  overlay.addEventListener("click", function (event) { if (event.target === overlay) toggleHelp(false); });

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

  return { config: config, form: form, submit: submit };
};
