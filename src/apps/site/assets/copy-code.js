// The reference pages' copy buttons: each code block gets one when this script runs (without it,
// or without the asynchronous clipboard API, there is no button and the code is selected by hand).
// A button's name is its visible word followed by the block's name ("Copy code block 2"), so a voice
// command saying what is seen works (WCAG 2.5.3); "Copied" replaces that word for a moment and is
// announced through one polite live region.
"use strict";
(function () {
  if (!navigator.clipboard) return;
  var blocks = document.querySelectorAll("main pre");
  if (!blocks.length) return;
  var status = document.createElement("p");
  status.className = "visually-hidden";
  status.setAttribute("aria-live", "polite");
  document.body.appendChild(status);
  blocks.forEach(function (pre) {
    var frame = document.createElement("div");
    frame.className = "code-block";
    pre.parentNode.insertBefore(frame, pre);
    frame.appendChild(pre);
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy-code";
    var word = document.createElement("span");
    word.textContent = "Copy";
    // The server names each block ("Code block 2"); read after the button's word, in lower case.
    var block = pre.getAttribute("aria-label") || "code block";
    var which = document.createElement("span");
    which.className = "visually-hidden";
    which.textContent = " " + block.charAt(0).toLowerCase() + block.slice(1);
    button.append(word, which);
    var reset;
    button.addEventListener("click", function () {
      var code = pre.querySelector("code") || pre;
      navigator.clipboard.writeText(code.textContent.replace(/\n$/, "")).then(
        function () {
          say("Copied", "Copied to the clipboard.");
        },
        function () {
          window.getSelection().selectAllChildren(code);
          say("Copy", "Could not copy: the code is selected, copy it with your keyboard.");
        },
      );
    });
    function say(label, message) {
      word.textContent = label;
      status.textContent = message;
      clearTimeout(reset);
      reset = setTimeout(function () {
        word.textContent = "Copy";
        status.textContent = "";
      }, 2000);
    }
    frame.appendChild(button);
  });
})();
