// The table page's life between two states: a short tone and a short vibration when your turn comes (each
// off until the player turns it on, remembered in this browser), the screen kept awake during your match,
// the turn clock counting down, the trick brought into view on a small screen, cards moving from a seat to
// the trick and from the trick to the piles (none under prefers-reduced-motion), sharing the room link where
// the browser can, and disclosures that stay open when their region is sent again.
(function () {
  "use strict";

  var room = document.getElementById("room");
  if (!room) return;

  // ---- The turn sound: a tone made with the Web Audio API, no audio file.
  var SOUND_KEY = "cucumber.turnSound";

  var VIBRATE_KEY = "cucumber.turnVibrate";
  var VIBRATION_MS = 180;
  var audio = null;

  // Whether the choice kept under ``key`` is "on"; ``remember`` keeps one.
  function isOn(key) {
    try { return window.localStorage.getItem(key) === "on"; } catch (e) { return false; }
  }

  function remember(key, on) {
    try { window.localStorage.setItem(key, on ? "on" : "off"); } catch (e) { /* private mode: this page only */ }
  }

  function soundOn() {
    return isOn(SOUND_KEY);
  }

  // Browsers start an audio context only after a gesture on the page: make it then, and wake it up.
  function audioContext() {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    if (!audio) audio = new Context();
    if (audio.state === "suspended") audio.resume();
    return audio;
  }

  function tone() {
    var context = audioContext();
    if (!context) return;
    var start = context.currentTime + 0.01;
    var oscillator = context.createOscillator();
    var gain = context.createGain();
    oscillator.type = "sine";
    oscillator.frequency.setValueAtTime(660, start);
    oscillator.frequency.setValueAtTime(880, start + 0.09);
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(0.18, start + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.22);
    oscillator.connect(gain);
    gain.connect(context.destination);
    oscillator.start(start);
    oscillator.stop(start + 0.25);
  }

  var soundButton = document.querySelector(".turn-sound");
  function showSound() {
    if (soundButton) soundButton.setAttribute("aria-pressed", soundOn() ? "true" : "false");
  }
  if (soundButton) {
    showSound();
    soundButton.addEventListener("click", function () {
      var on = !soundOn();
      remember(SOUND_KEY, on);
      showSound();
      if (on) tone();  // what it will sound like, and the gesture that lets the page play it later
    });
    // A choice remembered from an earlier visit: the first gesture on the page lets the tone play.
    var wake = function () {
      if (soundOn()) audioContext();
      document.removeEventListener("pointerdown", wake, true);
      document.removeEventListener("keydown", wake, true);
    };
    document.addEventListener("pointerdown", wake, true);
    document.addEventListener("keydown", wake, true);
  }

  // ---- The turn vibration, where the device has one (the Vibration API): the button shows only there.
  var vibrateButton = document.querySelector(".turn-vibrate");
  var canVibrate = typeof navigator.vibrate === "function";

  function buzz() {
    if (canVibrate) navigator.vibrate(VIBRATION_MS);
  }

  if (vibrateButton) {
    vibrateButton.hidden = !canVibrate;
    vibrateButton.setAttribute("aria-pressed", isOn(VIBRATE_KEY) ? "true" : "false");
    vibrateButton.addEventListener("click", function () {
      var on = !isOn(VIBRATE_KEY);
      remember(VIBRATE_KEY, on);
      vibrateButton.setAttribute("aria-pressed", on ? "true" : "false");
      if (on) buzz();  // what it will feel like
    });
  }

  function myTurn() {
    var status = document.getElementById("status");
    return !!status && status.classList.contains("your-turn");
  }
  var wasMine = myTurn();

  // ---- The screen awake (the Screen Wake Lock API, where the browser has it): while the page is shown, and
  // its player's match is being played at this table. The room says when (its data-awake): "match", all
  // through it, at a live table; "turn", only while it is their turn, at a slow one. The browser lets the
  // lock go when the page is hidden; it is asked for again when the page is shown.
  var lock = null;
  var asking = false;

  function inYourMatch() {
    var status = document.getElementById("status");
    return !!status && status.dataset.phase === "playing" && !!document.querySelector("#seats .seat.you");
  }

  function awakeWanted() {
    if (document.visibilityState !== "visible" || !inYourMatch()) return false;
    return room.dataset.awake === "turn" ? myTurn() : true;
  }

  function keepAwake() {
    if (!navigator.wakeLock || typeof navigator.wakeLock.request !== "function") return;
    var wanted = awakeWanted();
    if (wanted && !lock && !asking) {
      asking = true;
      navigator.wakeLock.request("screen").then(function (sentinel) {
        asking = false;
        lock = sentinel;
        sentinel.addEventListener("release", function () {
          if (lock === sentinel) lock = null;
        });
        keepAwake();  // the table may have moved on meanwhile
      }, function () {
        asking = false;  // refused (no permission, low battery): asked again at the next change
      });
    } else if (!wanted && lock) {
      var held = lock;
      lock = null;
      held.release().catch(function () { /* already released */ });
    }
  }
  keepAwake();
  document.addEventListener("visibilitychange", keepAwake);

  // ---- The trick in view: on a phone the hand stays at the bottom of the screen (app.css), and on a small
  // one the room's heading and link leave no room above it for the trick. When a deal starts (or the page
  // opens or is reloaded on one) and at each of your turns, the page scrolls just enough for the whole trick
  // to show above the hand, or for its top to be at the top of the screen should it not fit. Not while you
  // are writing (a chat line not sent yet), and not again before the next such moment: you may scroll away
  // meanwhile.
  var MARGIN_PX = 8;

  function holding() {
    var hand = document.getElementById("hand");
    return !!hand && !hand.hidden && !!hand.querySelector(".card-button");
  }
  var wasHolding = holding();

  // Each of your turns, told apart by what the hand sends with its card (the cards played in the deal so
  // far): you may lead at once after taking the trick you closed. ``null`` when it is not your turn.
  function yourMoment() {
    var cards = myTurn() && document.querySelector("#hand .hand-cards[hx-vals]");
    return cards ? cards.getAttribute("hx-vals") : null;
  }
  var wasMoment = yourMoment();

  // The phone layout: the hand kept at the bottom of the screen.
  function handKeptInView() {
    var hand = document.getElementById("hand");
    return !!hand && getComputedStyle(hand).position === "sticky";
  }

  function showTrick() {
    var trick = document.getElementById("trick");
    var field = document.activeElement;
    var writing = !!field && field.matches("input, textarea") && field.value !== "";
    if (!trick || trick.hidden || !holding() || writing || !handKeptInView()) return;
    var box = trick.getBoundingClientRect();
    var floor = document.getElementById("hand").getBoundingClientRect().top - MARGIN_PX;
    var by = 0;
    if (box.bottom > floor) by = Math.min(box.bottom - floor, box.top - MARGIN_PX);
    else if (box.top < MARGIN_PX) by = box.top - MARGIN_PX;
    if (by) window.scrollBy(0, by);
  }
  if (wasHolding && handKeptInView()) {
    // Reloaded during a deal on a phone: the table, not where the page was scrolled before (the browser
    // would put that back after this).
    if ("scrollRestoration" in history) history.scrollRestoration = "manual";
    showTrick();
  }

  // ---- The turn clock: the seconds left, counted down from what the state said when it arrived.
  function tick() {
    document.querySelectorAll(".clock-count[data-remaining]").forEach(function (count) {
      if (count.deadline === undefined) count.deadline = Date.now() + Number(count.dataset.remaining) * 1000;
      var left = Math.max(0, Math.ceil((count.deadline - Date.now()) / 1000));
      if (count.textContent !== String(left)) count.textContent = String(left);
    });
  }
  tick();
  setInterval(tick, 250);

  // ---- Motion (FLIP): where the cards were before a state, then from there to where they are now.
  var MOTION_MS = 260;
  var reduced = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
  var before = null;

  function rectsOf(selector) {
    var found = {};
    document.querySelectorAll(selector).forEach(function (el) { found[el.dataset.card || el.dataset.seat] = el.getBoundingClientRect(); });
    return found;
  }

  function fly(el, from, scale, id) {
    if (!from || typeof el.animate !== "function") return;
    var to = el.getBoundingClientRect();
    var dx = from.left + from.width / 2 - (to.left + to.width / 2);
    var dy = from.top + from.height / 2 - (to.top + to.height / 2);
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
    el.classList.add("in-motion");  // never in the way of a click meanwhile
    var motion = el.animate(
      [{ transform: "translate(" + dx + "px, " + dy + "px) scale(" + scale + ")" }, { transform: "none" }],
      { duration: MOTION_MS, easing: "cubic-bezier(.2, .7, .3, 1)" });
    motion.id = id;
    var done = function () { el.classList.remove("in-motion"); };
    motion.onfinish = done;
    motion.oncancel = done;
  }

  document.addEventListener("htmx:wsBeforeMessage", function () {
    before = {
      open: Array.prototype.map.call(document.querySelectorAll("details[data-keep-open][open]"), function (el) { return el.id; }),
      moving: !(reduced && reduced.matches),
      hand: rectsOf("#hand .card-button[data-card]"),
      trick: rectsOf("#trick .trick-cards [data-card]"),
      piles: rectsOf("#seats .played [data-card]"),
      seats: rectsOf("#seats .seat[data-seat]")
    };
  });

  document.addEventListener("htmx:wsAfterMessage", function () {
    var was = before;
    before = null;
    if (was) {
      was.open.forEach(function (id) {
        var box = document.getElementById(id);
        if (box) box.open = true;
      });
    }
    if (was && was.moving && !(reduced && reduced.matches)) {
      // A card new on the table comes from its player's hand (yours) or seat (anyone else's).
      document.querySelectorAll("#trick .trick-cards .play[data-seat]").forEach(function (play) {
        var card = play.querySelector("[data-card]");
        if (!card || was.trick[card.dataset.card]) return;
        var own = was.hand[card.dataset.card];
        fly(play, own || was.seats[play.dataset.seat], own ? 1 : 0.5, "motion-play");
      });
      // A finished trick: each card goes to the pile of whoever played it (docs/rules.md §2.6), and
      // the seat that took it shows it.
      var finished = false;
      document.querySelectorAll("#seats .played .pile-slot").forEach(function (slot) {
        var card = slot.querySelector("[data-card]");
        if (!card || was.piles[card.dataset.card]) return;
        var from = was.trick[card.dataset.card];
        finished = finished || !!from;
        var seat = slot.closest(".seat[data-seat]");
        fly(slot, from || was.hand[card.dataset.card] || (seat && was.seats[seat.dataset.seat]), from ? 1.6 : 0.6,
          "motion-pile");
      });
      var took = document.querySelector("#trick .play.took[data-seat]");
      var status = document.getElementById("status");
      var winner = took ? took.dataset.seat : status && status.dataset.turn;
      var winnerSeat = finished && winner ? document.querySelector('#seats .seat[data-seat="' + winner + '"]') : null;
      if (winnerSeat && typeof winnerSeat.animate === "function") {
        winnerSeat.animate([{ transform: "scale(1)" }, { transform: "scale(1.04)" }, { transform: "scale(1)" }],
          { duration: MOTION_MS, easing: "ease-out" }).id = "motion-took";
      }
    }
    tick();
    var mine = myTurn();
    var held = holding();
    var moment = yourMoment();
    if (mine && !wasMine && soundOn()) tone();
    if (mine && !wasMine && isOn(VIBRATE_KEY)) buzz();
    keepAwake();
    if ((moment && moment !== wasMoment) || (held && !wasHolding)) showTrick();
    wasMine = mine;
    wasHolding = held;
    wasMoment = moment;
  });

  // ---- Sharing the room link with the system's share sheet, where the browser has one.
  var share = document.querySelector(".share-link");
  if (share && typeof navigator.share === "function") {
    share.hidden = false;
    share.addEventListener("click", function () {
      navigator.share({ title: share.dataset.title, url: share.dataset.url }).catch(function () { /* closed */ });
    });
  }
})();
