// Pairwise item page: answer each question A / B / equal by key, then save; the lock heartbeat.
(function () {
  "use strict";
  const config = JSON.parse(document.getElementById("review-config").textContent);
  const form = document.getElementById("pairwise-form");
  const overlay = document.getElementById("help-overlay");
  const csrf = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "";
  const questions = form ? Array.from(form.querySelectorAll(".pairwise-question")) : [];
  const KEY_CHOICE = { a: "A", b: "B", e: "equal", "=": "equal" };
  let current = 0;

  function typing(target) {
    return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  function submit(id) {
    const target = document.getElementById(id);
    if (target) target.requestSubmit ? target.requestSubmit() : target.submit();
  }

  function select(index) {
    if (!questions.length) return;
    current = Math.max(0, Math.min(questions.length - 1, index));
    questions.forEach(function (q, i) { q.classList.toggle("current", i === current); });
    questions[current].scrollIntoView({ block: "nearest" });
  }

  function allAnswered() {
    return questions.every(function (q) { return q.querySelector("input:checked"); });
  }

  function answer(choice) {
    const radio = questions[current] && questions[current].querySelector('input[data-choice="' + choice + '"]');
    if (!radio) return false;
    radio.checked = true;
    // The next unanswered question, so a run of keys answers the form top to bottom; once all
    // are answered, simply the next one.
    const next = questions.findIndex(function (q, i) { return i > current && !q.querySelector("input:checked"); });
    select(next === -1 ? current + 1 : next);
    return true;
  }

  questions.forEach(function (q, i) {
    q.addEventListener("click", function () { select(i); });
  });

  document.addEventListener("keydown", function (event) {
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      if (form) { event.preventDefault(); submit("pairwise-form"); }
      return;
    }
    if (event.key === "Escape") {
      if (!overlay.hidden) overlay.hidden = true;
      else if (typing(event.target)) event.target.blur();
      return;
    }
    const choice = event.target.type === "radio";
    if (typing(event.target) && !choice) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    let handled = true;
    if (KEY_CHOICE[event.key] && form) {
      handled = answer(KEY_CHOICE[event.key]);
    } else {
      switch (event.key) {
        case "?": overlay.hidden = !overlay.hidden; break;
        case "j": case "ArrowDown": select(current + 1); break;
        case "k": case "ArrowUp": select(current - 1); break;
        case "w": {
          const why = document.getElementById("id_explanation");
          if (why) why.focus(); else handled = false;
          break;
        }
        case "Enter": if (form && allAnswered()) submit("pairwise-form"); else handled = false; break;
        case "s": submit("skip-form"); break;
        case "u": submit("undo-form"); break;
        default: handled = false;
      }
    }
    if (handled) event.preventDefault();
  });

  document.getElementById("help-button").addEventListener("click", function () { overlay.hidden = !overlay.hidden; });
  overlay.addEventListener("click", function (event) { if (event.target === overlay) overlay.hidden = true; });

  if (config.holds) {
    window.setInterval(function () {
      fetch(config.heartbeatUrl, {
        method: "POST",
        headers: { "X-CSRFToken": csrf, "Accept": "application/json" },
        credentials: "same-origin",
      }).then(function (response) {
        if (response.status === 409) {
          return response.json().then(function (body) {
            const info = document.getElementById("lock-info");
            if (info) { info.classList.add("error"); info.textContent = body.error.message + " "; }
          });
        }
        return null;
      }).catch(function () { /* offline for a moment: the next beat tries again */ });
    }, config.heartbeatSeconds * 1000);
  }
})();
