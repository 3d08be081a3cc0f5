// Pairwise item page: answer each question A / B / equal by key, then save.
// The keys overlay, the shared keys and the lock heartbeat are review_page.js's.
(function () {
  "use strict";
  const page = window.reviewPage({ formId: "pairwise-form", onKey: onKey });
  const questions = page.form ? Array.from(page.form.querySelectorAll(".pairwise-question")) : [];
  const KEY_CHOICE = { a: "A", b: "B", e: "equal", "=": "equal" };
  let current = 0;

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

  function onKey(event) {
    if (KEY_CHOICE[event.key] && page.form) return answer(KEY_CHOICE[event.key]);
    switch (event.key) {
      case "j": case "ArrowDown": select(current + 1); return true;
      case "k": case "ArrowUp": select(current - 1); return true;
      case "w": {
        const why = document.getElementById("id_explanation");
        if (!why) return false;
        why.focus();
        return true;
      }
      case "Enter":
        if (!page.form || !allAnswered()) return false;
        page.submit("pairwise-form");
        return true;
      default: return false;
    }
  }
})();
