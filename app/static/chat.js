// The table chat's behaviours around htmx (_chat.html): Enter sends the message (the form does that)
// and empties the box, a refused message comes back into the box to be mended, the list keeps to its
// latest lines and scrolls to the newest, and each viewer may hide the chat, which the browser remembers
// (a hidden chat is not announced either).
(function () {
  "use strict";

  var KEY = "cucumber.chat.hidden";
  var KEEP = 200;  // lines kept on the page; the server sends the last 50 again after a reconnect
  var chat = document.getElementById("chat");
  if (!chat) return;
  var toggle = chat.querySelector(".chat-toggle");
  var body = document.getElementById("chat-body");
  var pending = null;  // the text of the message sent last, until the server answers

  function stored() {
    try { return window.localStorage.getItem(KEY) === "1"; } catch (error) { return false; }
  }

  function store(hidden) {
    try {
      if (hidden) window.localStorage.setItem(KEY, "1"); else window.localStorage.removeItem(KEY);
    } catch (error) { /* storage refused (private mode): the choice lasts for this page */ }
  }

  // Hidden, the list is not shown and not announced; its live region is replaced after every
  // reconnect, so this runs again after each message.
  function apply(hidden) {
    body.hidden = hidden;
    chat.classList.toggle("chat-hidden", hidden);
    toggle.setAttribute("aria-expanded", hidden ? "false" : "true");
    toggle.textContent = hidden ? toggle.dataset.show : toggle.dataset.hide;
    var log = document.getElementById("chat-log");
    if (log) log.setAttribute("aria-live", hidden ? "off" : "polite");
  }

  function tidy() {
    var log = document.getElementById("chat-log");
    if (!log) return;
    while (log.children.length > KEEP) log.removeChild(log.firstElementChild);
    log.scrollTop = log.scrollHeight;
    apply(body.hidden);
  }

  var hidden = stored();
  apply(hidden);
  toggle.addEventListener("click", function () {
    hidden = !body.hidden;
    store(hidden);
    apply(hidden);
  });

  // A new socket brings the lines the server kept (none after a restart): the old ones go.
  document.addEventListener("htmx:wsOpen", function () {
    var log = document.getElementById("chat-log");
    if (log) log.textContent = "";
  });

  document.addEventListener("htmx:wsBeforeSend", function (event) {
    var form = event.target.closest && event.target.closest("form.chat-form");
    if (!form) return;
    var box = form.elements.text;
    pending = box.value;
    box.value = "";
  });

  // The codes that refuse a chat message (docs/protocol.md): its text goes back into the box.
  var REFUSALS = ["chat_too_long", "muted", "spectator_chat_off", "rate_limited", "not_in_room"];

  document.addEventListener("htmx:wsAfterMessage", function (event) {
    tidy();
    if (pending === null) return;
    var message = String(event.detail.message || "");
    var flash = document.querySelector("#flash.error:not(:empty)");
    if (message.indexOf('id="flash"') >= 0 && flash && REFUSALS.indexOf(flash.dataset.code) >= 0) {
      var box = chat.querySelector("form.chat-form input[name=text]");
      if (box && !box.value) box.value = pending;
      pending = null;
    } else if (message.indexOf('id="chat-log"') >= 0) {
      pending = null;
    }
  });
})();
