// The table page's small behaviours around htmx: reconnecting quickly, showing
// the connection state, copying the room link, and explaining unplayable cards.
(function () {
  "use strict";

  // Reconnect within seconds, not up to a minute (htmx's default back-off).
  if (window.htmx) {
    htmx.config.wsReconnectDelay = function (retry) {
      return Math.min(250 * Math.pow(2, retry), 4000);
    };
  }

  function flash(message) {
    var box = document.getElementById("flash");
    if (!box) return;
    box.textContent = message;
    box.classList.toggle("error", !!message);
  }

  function setConnection(text, state) {
    var box = document.getElementById("connection");
    if (!box) return;
    box.textContent = text;
    box.dataset.state = state;
  }

  var socket = null;

  document.addEventListener("htmx:wsOpen", function (event) {
    socket = event.detail.socketWrapper;
    setConnection("live", "open");
  });
  document.addEventListener("htmx:wsClose", function () {
    setConnection("reconnecting…", "closed");
  });
  document.addEventListener("htmx:wsConnecting", function () {
    setConnection("connecting…", "connecting");
  });
  document.addEventListener("htmx:wsBeforeSend", function () {
    flash("");
  });
  // After the network comes back, do not wait for the socket to notice it died.
  window.addEventListener("online", function () {
    if (socket) socket.reconnect();
  });

  document.addEventListener("click", function (event) {
    var copy = event.target.closest(".copy-link");
    if (copy) {
      var url = copy.dataset.url;
      var done = function () { copy.textContent = "Copied!"; setTimeout(function () { copy.textContent = "Copy link"; }, 2000); };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(url).then(done, function () { window.prompt("Copy this link:", url); });
      } else {
        window.prompt("Copy this link:", url);
      }
      return;
    }
    var card = event.target.closest(".card-button[aria-disabled='true']");
    if (card) flash(card.dataset.reason || "You cannot play this card now.");
  });
})();
