// A slow table's page (its #slow region): the room's code kept in this browser for "Your tables", turn
// notifications (Web Push) turned on and off, and renewed at each visit, the quiet-hours form's time zone
// taken from the browser, the turn's deadline shown in the reader's own time, and the screen kept awake only
// on your turn. The page's socket is open only while the page is shown (app.js), so that the server knows when
// to push.
(function () {
  "use strict";

  var room = document.getElementById("room");
  if (!room) return;

  var TABLES_KEY = "cucumber.tables";  // the codes of the slow tables this browser sits at, newest first
  var TABLES_KEPT = 50;
  var NOTIFY_KEY = "cucumber.notify.";  // + a room's code: "on" where turn notifications were asked for
  var words = {};
  var wordsBox = document.getElementById("slow-words");
  if (wordsBox) words = JSON.parse(wordsBox.textContent);

  function read(key) {
    try { return window.localStorage.getItem(key); } catch (e) { return null; }
  }

  function write(key, value) {
    try {
      if (value === null) window.localStorage.removeItem(key);
      else window.localStorage.setItem(key, value);
    } catch (e) { /* private mode: this page only */ }
  }

  function region() {
    var box = document.getElementById("slow");
    return box && box.dataset.pace ? box : null;
  }

  // ---- "Your tables": a code, never a token (the seat cookie stays where it is, scoped to the room).
  function keepTable(code) {
    var codes = [];
    try { codes = JSON.parse(read(TABLES_KEY) || "[]"); } catch (e) { codes = []; }
    if (!Array.isArray(codes)) codes = [];
    if (codes[0] === code) return;
    codes = [code].concat(codes.filter(function (kept) { return kept !== code; })).slice(0, TABLES_KEPT);
    write(TABLES_KEY, JSON.stringify(codes));
  }

  // ---- Turn notifications.
  function pushKnown() {
    return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
  }

  // iOS and iPadOS give a page push only once it is opened from the Home Screen (display mode standalone).
  function needsHomeScreen() {
    var apple = /iPad|iPhone|iPod/.test(navigator.userAgent) ||
      (navigator.platform === "MacIntel" && navigator.maxTouchPoints > 1);
    var standalone = (window.matchMedia && window.matchMedia("(display-mode: standalone)").matches) ||
      navigator.standalone === true;
    return apple && !standalone;
  }

  // The key the server signs its pushes with, as the bytes PushManager.subscribe wants.
  function serverKey(path) {
    return fetch(path, { credentials: "same-origin", cache: "no-store" }).then(function (answer) {
      if (!answer.ok) throw new Error("push is off");
      return answer.json();
    }).then(function (body) {
      var text = String(body.public_key).replace(/-/g, "+").replace(/_/g, "/");
      var raw = window.atob(text + "===".slice((text.length + 3) % 4));
      var bytes = new Uint8Array(raw.length);
      for (var i = 0; i < raw.length; i += 1) bytes[i] = raw.charCodeAt(i);
      return bytes;
    });
  }

  // This browser's subscription, made if it has none (subscribe is asked only after a click or once the
  // permission is granted already).
  function subscription(keyPath) {
    return navigator.serviceWorker.ready.then(function (registration) {
      return registration.pushManager.getSubscription().then(function (found) {
        if (found) return found;
        return serverKey(keyPath).then(function (key) {
          return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
        });
      });
    });
  }

  // Tell the room (POST: notify me; DELETE: stop), with the seat cookie the room's path receives.
  function tell(box, method, found) {
    return fetch(box.dataset.pushPath, {
      method: method,
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(found.toJSON())
    }).then(function (answer) {
      // Read to its end (it is empty), so that the browser does not count the request as given up.
      return answer.text().then(function () {
        if (!answer.ok) throw new Error("the room answered " + answer.status);
      });
    });
  }

  function show(box, on, text) {
    var button = box.querySelector(".notify-button");
    if (button) button.setAttribute("aria-pressed", on ? "true" : "false");
    var state = box.querySelector(".notify-state");
    if (state && text !== undefined) state.textContent = text;
  }

  function turnOn(box, code) {
    var granted = Notification.permission === "granted" ? Promise.resolve("granted") : Notification.requestPermission();
    return Promise.resolve(granted).then(function (permission) {
      if (permission !== "granted") {
        show(box, false, permission === "denied" ? words.blocked : "");
        return;
      }
      return subscription(box.dataset.keyPath).then(function (found) {
        return tell(box, "POST", found);
      }).then(function () {
        write(NOTIFY_KEY + code, "on");
        show(box, true, words.on);
      });
    }).catch(function () {
      show(box, false, words.failed);
    });
  }

  function turnOff(box, code) {
    write(NOTIFY_KEY + code, null);
    show(box, false, words.off);
    return navigator.serviceWorker.ready.then(function (registration) {
      return registration.pushManager.getSubscription();
    }).then(function (found) {
      // The browser keeps its subscription: it may serve another table.
      if (found) return tell(box, "DELETE", found);
    }).catch(function () { /* the room forgets it when the seat ends */ });
  }

  // At each visit: a table that notifies this browser gets its subscription again (the browser may have
  // made a new one meanwhile).
  function renew(box, code) {
    if (read(NOTIFY_KEY + code) !== "on") {
      show(box, false);
      return;
    }
    if (Notification.permission !== "granted") {
      show(box, false, Notification.permission === "denied" ? words.blocked : "");
      return;
    }
    show(box, true, words.on);
    subscription(box.dataset.keyPath).then(function (found) {
      return tell(box, "POST", found);
    }).catch(function () {
      show(box, false, words.failed);
    });
  }

  var renewed = null;  // the code renewed on this visit

  // The turn's deadline, written in UTC by the server, in the reader's own time and language.
  function localDeadline() {
    document.querySelectorAll("#status .deadline time[datetime]").forEach(function (time) {
      if (time.dataset.local) return;
      var moment = new Date(time.getAttribute("datetime"));
      if (isNaN(moment.getTime())) return;
      var options = { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" };
      try {
        time.textContent = moment.toLocaleString(document.documentElement.lang || undefined, options);
      } catch (e) {
        time.textContent = moment.toLocaleString();
      }
      time.dataset.local = "yes";
    });
  }

  function setUp() {
    localDeadline();
    var box = region();
    if (!box) {
      room.dataset.awake = "match";
      return;
    }
    room.dataset.awake = "turn";  // at a slow table the screen stays awake only on your turn (table-life.js)
    var code = box.dataset.code;
    if (box.dataset.seated) keepTable(code);
    var notify = box.querySelector(".notify");
    if (notify && !notify.dataset.ready) {
      notify.dataset.ready = "1";
      var home = notify.querySelector(".notify-home");
      if (!pushKnown()) {
        if (needsHomeScreen()) {
          if (home) home.hidden = false;
        } else {
          show(notify, false, words.unsupported);
        }
        notify.querySelector(".notify-button").disabled = !needsHomeScreen();
      } else if (renewed !== code) {
        renewed = code;
        renew(notify, code);
      } else {
        // The region sent again (the socket's first frame, a new host): as it was.
        var on = read(NOTIFY_KEY + code) === "on" && Notification.permission === "granted";
        show(notify, on, on ? words.on : "");
      }
    }
    var zone = box.querySelector("input.time-zone");
    if (zone && !zone.dataset.ready) {
      zone.dataset.ready = "1";
      var own = "";
      try { own = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { own = ""; }
      if (own) zone.value = own;
    }
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("#slow .notify-button");
    if (!button) return;
    var box = button.closest(".notify");
    var code = region() && region().dataset.code;
    if (!box || !code) return;
    if (!pushKnown()) {
      var home = box.querySelector(".notify-home");
      if (home) {
        home.hidden = false;
        home.setAttribute("tabindex", "-1");
        home.focus();
      }
      return;
    }
    if (button.getAttribute("aria-pressed") === "true") turnOff(box, code);
    else turnOn(box, code);
  });

  setUp();
  document.addEventListener("htmx:wsAfterMessage", setUp);
})();
