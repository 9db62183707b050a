// "Your tables": the slow tables this browser sits at, from the room codes it kept when it took a seat
// (slow-table.js), each read at its own path, where that room's seat cookie alone is sent. A table waiting
// for this browser comes first and is marked; each shows its deadline in the reader's local time. A table
// that is closed, or where this browser no longer has a seat, is forgotten; one that cannot be reached (no
// network) stays, and says so.
(function () {
  "use strict";

  var page = document.getElementById("tables");
  if (!page) return;
  var TABLES_KEY = "cucumber.tables";
  var CODE = /^[A-Za-z0-9]{1,16}$/;
  var words = JSON.parse(document.getElementById("tables-words").textContent);
  var list = page.querySelector(".table-list");
  var status = page.querySelector(".tables-status");
  var language = document.documentElement.lang || undefined;

  function say(text, values) {
    return text.replace(/\{(\w+)\}/g, function (all, name) {
      return Object.prototype.hasOwnProperty.call(values || {}, name) ? String(values[name]) : all;
    });
  }

  function keptCodes() {
    var codes = [];
    try { codes = JSON.parse(window.localStorage.getItem(TABLES_KEY) || "[]"); } catch (e) { codes = []; }
    return Array.isArray(codes) ? codes.filter(function (code) { return typeof code === "string" && CODE.test(code); }) : [];
  }

  function forget(gone) {
    if (!gone.length) return;
    var codes = keptCodes().filter(function (code) { return gone.indexOf(code) < 0; });
    try { window.localStorage.setItem(TABLES_KEY, JSON.stringify(codes)); } catch (e) { /* private mode */ }
  }

  // One table's read: its answer, "gone" (closed, or no seat of this browser) or "unreachable".
  function look(code) {
    return fetch(page.dataset.turnPath.replace("CODE", code), { credentials: "same-origin", cache: "no-store" })
      .then(function (answer) {
        if (answer.status === 404) return "gone";
        if (!answer.ok) return "unreachable";
        return answer.json().then(function (table) { return table.seated ? table : "gone"; });
      }, function () { return "unreachable"; });
  }

  function when(deadline) {
    var moment = new Date(deadline);
    var options = { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" };
    try { return moment.toLocaleString(language, options); } catch (e) { return moment.toLocaleString(); }
  }

  function row(code, table) {
    var item = document.createElement("li");
    item.className = "table-row";
    item.dataset.code = code;
    var link = document.createElement("a");
    link.href = page.dataset.roomPath.replace("CODE", code);
    link.className = "table-name";
    link.textContent = say(words.table, { code: code });
    item.appendChild(link);
    var state = document.createElement("p");
    state.className = "table-state";
    if (table === "unreachable") {
      item.classList.add("unreachable");
      state.textContent = words.unreachable;
    } else if (table.your_turn) {
      item.classList.add("awaited");
      item.dataset.awaited = "yes";
      var mark = document.createElement("strong");
      mark.className = "awaited-mark";
      mark.textContent = words.your_turn;
      state.appendChild(mark);
    } else if (table.phase === "lobby") {
      state.textContent = words.lobby;
    } else if (table.phase === "finished") {
      state.textContent = words.finished;
    } else if (table.turn) {
      state.textContent = say(words.waiting, { name: table.turn });
    }
    item.appendChild(state);
    if (table !== "unreachable" && table.deadline) {
      var deadline = document.createElement("p");
      deadline.className = "table-deadline";
      var time = document.createElement("time");
      time.dateTime = table.deadline;
      time.textContent = when(table.deadline);
      var parts = words.deadline.split("{time}");
      deadline.appendChild(document.createTextNode(parts[0]));
      deadline.appendChild(time);
      deadline.appendChild(document.createTextNode(parts.slice(1).join("{time}")));
      item.appendChild(deadline);
    }
    return item;
  }

  function order(a, b) {
    var rank = function (entry) {
      if (entry.table === "unreachable") return 2;
      return entry.table.your_turn ? 0 : 1;
    };
    var by = rank(a) - rank(b);
    if (by) return by;
    var left = a.table.deadline ? Date.parse(a.table.deadline) : Infinity;
    var right = b.table.deadline ? Date.parse(b.table.deadline) : Infinity;
    return left === right ? a.index - b.index : (left < right ? -1 : 1);
  }

  function show() {
    var codes = keptCodes();
    if (!codes.length) {
      list.replaceChildren();
      status.textContent = words.none;
      page.dataset.ready = "yes";
      return;
    }
    Promise.all(codes.map(look)).then(function (tables) {
      var gone = [];
      var shown = [];
      tables.forEach(function (table, index) {
        if (table === "gone") gone.push(codes[index]);
        else shown.push({ code: codes[index], table: table, index: index });
      });
      forget(gone);
      shown.sort(order);
      list.replaceChildren.apply(list, shown.map(function (entry) { return row(entry.code, entry.table); }));
      var awaited = shown.filter(function (entry) { return entry.table !== "unreachable" && entry.table.your_turn; });
      status.textContent = shown.length ? say(words.awaited_count, { count: awaited.length }) : words.none;
      page.dataset.ready = "yes";
    });
  }

  show();
  // Back on the page (from a table, or the phone woken up): read the tables again.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") show();
  });
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) show();
  });
})();
