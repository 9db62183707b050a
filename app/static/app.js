// The table page's small behaviours around htmx: reconnecting quickly, showing
// the connection state, copying the room link, explaining unplayable cards,
// keeping keyboard focus in the hand and marking cards that just arrived.
(function () {
  "use strict";

  // The CSS variables an element needs come in its data-vars (JSON): the pages'
  // Content-Security-Policy refuses inline style attributes, but not styles set here.
  function applyVars() {
    document.querySelectorAll("[data-vars]").forEach(function (el) {
      var vars = JSON.parse(el.dataset.vars);
      Object.keys(vars).forEach(function (name) {
        if (name.indexOf("--") === 0) el.style.setProperty(name, vars[name]);
      });
    });
  }
  applyVars();

  // Reconnect within seconds, not up to a minute (htmx's default back-off).
  if (window.htmx) {
    htmx.config.wsReconnectDelay = function (retry) {
      return Math.min(250 * Math.pow(2, retry), 4000);
    };
  }

  var baseTitle = document.title;
  var socket = null;
  var before = null;

  var flashTimer = null;

  function flash(message, kind) {
    var box = document.getElementById("flash");
    if (!box) return;
    box.textContent = message;
    box.classList.toggle("error", !!message && kind !== "info");
    fadeFlash();
  }

  // Messages stay a few seconds: on a phone the box floats over the table.
  function fadeFlash() {
    clearTimeout(flashTimer);
    flashTimer = setTimeout(function () {
      var box = document.getElementById("flash");
      if (box) { box.textContent = ""; box.classList.remove("error"); }
    }, 8000);
  }

  // When a deal ends, bring its summary into view if the player is looking elsewhere.
  var lastStage = null;
  function showDealSummary() {
    var status = document.getElementById("status");
    var summary = document.getElementById("summary");
    var stage = status && status.dataset.stage;
    if (stage === "deal_over" && lastStage !== "deal_over" && summary && !summary.hidden) {
      var box = summary.getBoundingClientRect();
      if (box.bottom < 0 || box.top > window.innerHeight * 0.6) {
        summary.scrollIntoView({ behavior: "smooth", block: "start" });
      }
    }
    lastStage = stage;
  }

  function setConnection(text, state) {
    var box = document.getElementById("connection");
    if (!box) return;
    box.textContent = text;
    box.dataset.state = state;
  }

  function cardKeys() {
    var keys = {};
    document.querySelectorAll("#trick .trick-cards [data-card], #seats .played [data-card]").forEach(function (el) {
      keys[el.dataset.card] = true;
    });
    return keys;
  }

  function showTurnInTitle() {
    var status = document.getElementById("status");
    if (!status) return;
    var mine = status.dataset.phase === "playing" && status.dataset.turn !== "" && status.dataset.turn === status.dataset.you;
    document.title = (mine ? "● Your turn · " : "") + baseTitle;
  }

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
  document.addEventListener("htmx:wsBeforeSend", function (event) {
    flash("");
    var sent = event.target.closest && event.target.closest(".card-button");
    if (sent) sent.classList.add("sent");
  });

  document.addEventListener("htmx:wsBeforeMessage", function () {
    var focused = document.activeElement;
    var buttons = Array.prototype.slice.call(document.querySelectorAll("#hand .card-button"));
    before = { cards: cardKeys(), handFocus: buttons.indexOf(focused) };
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    applyVars();
    if (document.querySelector("#flash.error:not(:empty)")) fadeFlash();
    showDealSummary();
    // Whatever came back (the new table or a refusal), a card is no longer on its way.
    document.querySelectorAll("#hand .card-button.sent").forEach(function (el) { el.classList.remove("sent"); });
    if (before) {
      document.querySelectorAll("#trick .trick-cards [data-card], #seats .played [data-card]").forEach(function (el) {
        if (!before.cards[el.dataset.card]) el.classList.add("fresh");
      });
      // A played card leaves the hand: keep the keyboard in the hand, on the card that took its place.
      if (before.handFocus >= 0 && (!document.activeElement || document.activeElement === document.body)) {
        var buttons = document.querySelectorAll("#hand .card-button");
        if (buttons.length) buttons[Math.min(before.handFocus, buttons.length - 1)].focus();
      }
      before = null;
    }
    showTurnInTitle();
  });

  // Without a network the socket may look open for a long time: say so, and once the
  // network is back start a fresh connection, which brings the whole table again.
  window.addEventListener("offline", function () {
    setConnection("offline", "closed");
  });
  window.addEventListener("online", function () {
    if (socket) socket.reconnect();
  });

  document.addEventListener("click", function (event) {
    var copy = event.target.closest(".copy-link");
    if (copy) {
      var url = copy.dataset.url;
      var done = function () {
        copy.textContent = "Copied!";
        setTimeout(function () { copy.textContent = "Copy link"; }, 2000);
      };
      var ask = function () {
        window.prompt(copy.dataset.prompt || "Copy this link and send it to the other players:", url);
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(url).then(done, ask);
      } else {
        ask();
      }
      return;
    }
    var card = event.target.closest(".card-button[aria-disabled='true']");
    if (card) flash(card.dataset.reason || "You cannot play this card now.", "info");
  });

  showTurnInTitle();

  // Rules forms: choosing a preset shows its options; changing an option makes the rules custom.
  // The form's data-presets holds every preset with every option by name, as the server defines them.
  function isOption(presets, name) {
    return Object.keys(presets).some(function (key) {
      return Object.prototype.hasOwnProperty.call(presets[key], name);
    });
  }
  document.addEventListener("change", function (event) {
    var form = event.target.closest("form.rules-form");
    if (!form || !form.dataset.presets) return;
    var presets = JSON.parse(form.dataset.presets);
    var field = event.target;
    if (field.name === "preset") {
      var values = presets[field.value];
      if (!values) return;
      Object.keys(values).forEach(function (name) {
        var input = form.elements[name];
        if (input) input.value = String(values[name]);
      });
    } else if (isOption(presets, field.name)) {
      var preset = form.elements.preset;
      if (preset && preset.length !== undefined && preset.tagName !== "SELECT") {
        Array.prototype.forEach.call(preset, function (radio) { radio.checked = radio.value === "custom"; });
      } else if (preset) {
        preset.value = "custom";
      }
    }
  });
})();
