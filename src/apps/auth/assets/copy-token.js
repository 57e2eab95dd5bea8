// The tokens page's copy button: shown only when this script runs (without it the token is in a
// read-only field to select by hand). Copies through the asynchronous clipboard API and says so.
"use strict";
document.querySelectorAll("button[data-copy]").forEach(function (button) {
  var input = document.getElementById(button.getAttribute("data-copy"));
  var status = button.parentElement.querySelector(".copy-status");
  if (!input || !navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(input.value).then(
      function () {
        if (status) status.textContent = "Copied to the clipboard.";
      },
      function () {
        input.select();
        if (status) status.textContent = "Could not copy: the token is selected, copy it with your keyboard.";
      },
    );
  });
});
