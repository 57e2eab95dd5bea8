// Passkey buttons on the auth pages (the pages' only script: WebAuthn is a browser API). Each
// element with data-passkey="register" or "authenticate" asks its options endpoint for a challenge,
// lets the browser create or use a passkey (SimpleWebAuthnBrowser, served from this host), sends
// the answer to its verify endpoint and follows the redirect it returns. The CSRF token travels in
// the X-CSRF-Token header. Messages are shown in the element's alert, as the server wrote them.
(function () {
  "use strict";
  var webauthn = window.SimpleWebAuthnBrowser;

  function post(url, csrf, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", "x-csrf-token": csrf },
      body: JSON.stringify(body || {}),
    }).then(function (res) {
      return res
        .json()
        .catch(function () {
          return {};
        })
        .then(function (json) {
          if (!res.ok) throw new Error(json.error_description || "That did not work. Reload the page and try again.");
          return json;
        });
    });
  }

  function readable(err) {
    if (err && err.name === "NotAllowedError") return "The passkey request was cancelled or timed out. Try again when you are ready.";
    if (err && err.name === "InvalidStateError") return "This passkey is already registered.";
    if (err && err.name === "SecurityError") return "This page's address cannot use passkeys.";
    return (err && err.message) || "That did not work. Reload the page and try again.";
  }

  function wire(control) {
    var mode = control.getAttribute("data-passkey");
    var button = control.querySelector(".passkey-button");
    var alert = control.querySelector(".passkey-error");
    var csrf = control.getAttribute("data-csrf");
    control.hidden = false;
    function fail(text) {
      alert.textContent = text;
      alert.hidden = false;
      button.disabled = false;
    }
    if (!webauthn || !webauthn.browserSupportsWebAuthn()) {
      fail("This browser cannot use passkeys.");
      button.disabled = true;
      return;
    }
    button.addEventListener("click", function () {
      button.disabled = true;
      alert.hidden = true;
      var extra = {};
      var nameInput = control.querySelector("input[name=passkey_name]");
      if (nameInput) extra.name = nameInput.value;
      if (control.hasAttribute("data-return-to")) extra.return_to = control.getAttribute("data-return-to");
      post(control.getAttribute("data-options-url"), csrf, {})
        .then(function (options) {
          return mode === "register" ? webauthn.startRegistration({ optionsJSON: options }) : webauthn.startAuthentication({ optionsJSON: options });
        })
        .then(function (response) {
          extra.response = response;
          return post(control.getAttribute("data-verify-url"), csrf, extra);
        })
        .then(function (result) {
          window.location.assign(result.redirect);
        })
        .catch(function (err) {
          fail(readable(err));
        });
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("[data-passkey]"), wire);
})();
