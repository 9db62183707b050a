// The table page's small behaviours around htmx: a live connection that is open
// only while the page is looked at (heartbeats, reconnects with a random pause;
// at a slow table it is closed as soon as the page is hidden),
// showing the connection state, copying the room link, explaining unplayable
// cards, keeping keyboard focus in the hand and marking cards that just arrived.
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

  // The page's words, in its language (a JSON block the server writes into every page).
  var wordsBox = document.getElementById("page-words");
  var words = wordsBox ? JSON.parse(wordsBox.textContent) : {};

  var baseTitle = document.title;
  var socket = null;
  var before = null;

  // ---- Presence: the page's socket is open while the page can be looked at, and it says so.
  // A page kept in the back/forward cache, or frozen, keeps its WebSocket open underneath (the
  // browser even answers the server's pings) while its scripts stand still: the server would count
  // its player at the table for as long as the page sits there. So the page closes its socket when
  // it is hidden that way, opens it again when it is shown, and beats while it is visible.
  var room = document.getElementById("room");
  var beatEvery = room ? Number(room.dataset.heartbeat) || 0 : 0;
  var RETRIED_BY_HTMX = [1006, 1011, 1012, 1013];  // close codes after which htmx reconnects by itself
  var CLOSE_SILENT = 4408;  // the server closed a page that stopped beating
  var current = null;  // the page's WebSocket: never more than one
  var retryPending = false;  // htmx has a reconnect of its own under way
  var resting = false;  // closed on purpose: hidden in the back/forward cache, or frozen

  function visible() {
    return document.visibilityState === "visible";
  }

  // A slow table's page (its settings region says its pace).
  function slowTable() {
    var settings = document.getElementById("slow");
    return !!settings && !!settings.dataset.pace;
  }

  if (window.htmx) {
    // Full jitter: a random pause below a ceiling that doubles from 0.5 s up to 10 s, so the pages
    // of a server that restarts (or a proxy that reloads) do not all come back at the same instants.
    // Without a network, attempts fail on the device itself: keep them frequent.
    htmx.config.wsReconnectDelay = function (retry) {
      retryPending = true;
      var ceiling = navigator.onLine === false ? 1000 : Math.min(10000, 500 * Math.pow(2, retry));
      return Math.random() * ceiling;
    };
    var createSocket = htmx.createWebSocket || function (url) { return new WebSocket(url, []); };
    htmx.createWebSocket = function (url) {
      retryPending = false;
      if (current && current.readyState === WebSocket.CONNECTING) {
        // Drop it without a trace (htmx closes an open one itself), or htmx would retry it beside the new one.
        current.onopen = current.onclose = current.onerror = null;
        current.close(1000);
      }
      var made = createSocket(url);
      // Added before htmx's own handler, so it runs first: a page nobody looks at does not
      // reconnect by itself, but when it is shown again.
      made.addEventListener("close", function (event) {
        if (made === current && socket && (resting || !visible()) && RETRIED_BY_HTMX.indexOf(event.code) >= 0) {
          event.stopImmediatePropagation();
        }
      });
      current = made;
      return made;
    };
  }

  function beat() {
    if (current && current.readyState === WebSocket.OPEN) current.send('{"type":"heartbeat"}');
  }

  // Open the socket again if the page is looked at and nothing else is bringing it back.
  function reopen() {
    if (!visible()) return;
    resting = false;
    if (!socket || retryPending || (current && current.readyState <= WebSocket.OPEN)) return;
    socket.reconnect();
  }

  function rest() {
    resting = true;
    if (current && current.readyState <= WebSocket.OPEN) current.close(1000, "hidden");
  }

  if (room) {
    window.addEventListener("pagehide", rest);
    document.addEventListener("freeze", rest);
    window.addEventListener("pageshow", function (event) {
      if (event.persisted) reopen();
    });
    document.addEventListener("resume", reopen);
    document.addEventListener("visibilitychange", function () {
      if (!visible()) {
        // At a slow table the page is not kept open while nobody looks at it: the server then tells the
        // player of their turn by a notification instead (issue 40). A live table keeps its socket.
        if (slowTable()) rest();
        return;
      }
      beat();
      reopen();
    });
    if (beatEvery > 0) {
      setInterval(function () {
        if (visible()) beat();
      }, beatEvery);
    }
  }

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
    var mine = status.classList.contains("your-turn");
    document.title = (mine ? "● " + words.your_turn + " · " : "") + baseTitle;
  }

  document.addEventListener("htmx:wsOpen", function (event) {
    socket = event.detail.socketWrapper;
    setConnection(words.live, "open");
    // At once, even from a hidden page: from its first beat on, the server counts a page gone once it
    // falls silent, so a page reconnected while hidden is not counted present for long.
    beat();
  });
  document.addEventListener("htmx:wsClose", function (event) {
    if (event.detail.event.target !== current) return;  // a socket already replaced by a newer one
    setConnection(words.reconnecting, "closed");
    if (event.detail.event.code === CLOSE_SILENT) reopen();
  });
  document.addEventListener("htmx:wsConnecting", function () {
    setConnection(words.connecting, "connecting");
  });
  document.addEventListener("htmx:wsBeforeSend", function (event) {
    var sent = event.target.closest && event.target.closest(".card-button");
    // One card at a time: while a card is on its way, a click on another is dropped (the table is about
    // to move on, and the server would refuse it as stale).
    if (sent && document.querySelector("#hand .card-button.sent")) {
      event.preventDefault();
      return;
    }
    flash("");
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
    setConnection(words.offline, "closed");
  });
  window.addEventListener("online", function () {
    if (socket && !retryPending && visible()) socket.reconnect();
  });

  document.addEventListener("click", function (event) {
    var copy = event.target.closest(".copy-link");
    if (copy) {
      var url = copy.dataset.url;
      var done = function () {
        copy.textContent = words.copied;
        setTimeout(function () { copy.textContent = words.copy_link; }, 2000);
      };
      var ask = function () { window.prompt(copy.dataset.prompt || words.copy_prompt, url); };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(url).then(done, ask);
      } else {
        ask();
      }
      return;
    }
    var card = event.target.closest(".card-button[aria-disabled='true']");
    if (card) flash(card.dataset.reason || words.cannot_play, "info");
  });

  // ---- One click, one action. The second click of a double click may come after the table has
  // changed under the pointer: "Remove Ben" is done, Cy's "Remove" now stands where Ben's stood, and
  // that click would remove Cy. A click the browser counts as the second (or third) of a run
  // (detail above 1) on a button that sends to the table is dropped before htmx sees it. Enter, Space
  // and a script's click() count 0 or 1, and a click on another spot starts a new run.
  document.addEventListener("click", function (event) {
    if (event.detail < 2 || !event.target.closest) return;
    var button = event.target.closest("button");
    if (!button) return;
    var sends = button.hasAttribute("ws-send") ||
      (button.type === "submit" && button.form !== null && button.form.hasAttribute("ws-send"));
    if (!sends) return;
    event.preventDefault();
    event.stopImmediatePropagation();
  }, true);

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

  // ---- Forms that post once (data-once): a second click while the first post is on its way would
  // open a second room, or take a second seat whose cookie replaces the first one's. A page shown
  // again from the back/forward cache may post again.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-once")) return;
    if (form.dataset.sent) {
      event.preventDefault();
      return;
    }
    form.dataset.sent = "1";
  });
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form[data-once]").forEach(function (form) { delete form.dataset.sent; });
  });
})();
