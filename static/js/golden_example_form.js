// Checks the JSON fields of the example form as the curator types; the server validates again.
(function () {
  "use strict";
  var form = document.getElementById("example-form");
  if (!form) {
    return;
  }
  var STEP_KEYS = ["step", "tool", "inputs", "acceptable_output_fields"];

  function problem(textarea) {
    var text = textarea.value.trim();
    if (!text) {
      return "";
    }
    var value;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return "Not valid JSON: " + err.message;
    }
    if (textarea.name === "reference_trajectory") {
      if (!Array.isArray(value)) {
        return "Must be a JSON list of steps.";
      }
      for (var i = 0; i < value.length; i++) {
        var step = value[i];
        var missing = STEP_KEYS.filter(function (key) {
          return !step || typeof step !== "object" || !(key in step);
        });
        if (missing.length) {
          return "[" + i + "] missing keys: " + missing.join(", ");
        }
      }
    }
    return "";
  }

  form.querySelectorAll("textarea.json").forEach(function (textarea) {
    var note = form.querySelector('.json-error[data-for="' + textarea.id + '"]');
    textarea.addEventListener("input", function () {
      var message = problem(textarea);
      if (note) {
        note.textContent = message;
        note.hidden = !message;
      }
      textarea.setAttribute("aria-invalid", message ? "true" : "false");
    });
  });
})();
