// The reference pages' copy buttons: each code block gets one when this script runs (without it,
// or without the asynchronous clipboard API, there is no button and the code is selected by hand).
// The button keeps its name; "Copied" shows on it and is announced through one polite live region.
"use strict";
(function () {
  if (!navigator.clipboard) return;
  var blocks = document.querySelectorAll("main pre");
  if (!blocks.length) return;
  var status = document.createElement("p");
  status.className = "visually-hidden";
  status.setAttribute("aria-live", "polite");
  document.body.appendChild(status);
  blocks.forEach(function (pre, i) {
    var frame = document.createElement("div");
    frame.className = "code-block";
    pre.parentNode.insertBefore(frame, pre);
    frame.appendChild(pre);
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy-code";
    button.textContent = "Copy";
    button.setAttribute("aria-label", blocks.length > 1 ? "Copy code block " + (i + 1) : "Copy code block");
    var reset;
    button.addEventListener("click", function () {
      var code = pre.querySelector("code") || pre;
      navigator.clipboard.writeText(code.textContent.replace(/\n$/, "")).then(
        function () {
          say(button, "Copied", "Copied to the clipboard.");
        },
        function () {
          window.getSelection().selectAllChildren(code);
          say(button, "Copy", "Could not copy: the code is selected, copy it with your keyboard.");
        },
      );
    });
    function say(target, label, message) {
      target.textContent = label;
      status.textContent = message;
      clearTimeout(reset);
      reset = setTimeout(function () {
        target.textContent = "Copy";
        status.textContent = "";
      }, 2000);
    }
    frame.appendChild(button);
  });
})();
