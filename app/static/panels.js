// The table page's panels (table-phone.css): on a phone the table fills the screen, and the players with
// their actions, the chat, the score sheet, the rules and the room's link and settings each open in its
// place from a tab of the room's bar; the same tab, or Escape, brings the table back. The chat's tab counts
// the lines that came while the chat was not shown, and a seat's link, when it comes, opens its panel.
(function () {
  "use strict";

  var room = document.getElementById("room");
  if (!room) return;
  var tabs = Array.prototype.slice.call(room.querySelectorAll(".panel-tab[data-panel]"));
  var unread = room.querySelector(".panel-tab .unread");
  var unreadCount = 0;

  function tabsShown() {
    return tabs.length > 0 && tabs[0].offsetParent !== null;
  }

  function showUnread() {
    if (!unread) return;
    unread.hidden = unreadCount === 0;
    unread.querySelector(".unread-count").textContent = String(unreadCount);
  }

  // Open the panel named ``name`` ("table": none, the table itself), and put the keyboard in it.
  function open(name, focus) {
    room.dataset.panel = name;
    tabs.forEach(function (tab) {
      tab.setAttribute("aria-expanded", tab.dataset.panel === name ? "true" : "false");
    });
    if (name === "chat") {
      unreadCount = 0;
      showUnread();
    }
    var panel = name === "table" ? null : document.getElementById(name);
    if (panel && focus) {
      if (!panel.hasAttribute("tabindex")) panel.setAttribute("tabindex", "-1");
      panel.focus({ preventScroll: true });
      window.scrollTo(0, 0);
    }
  }

  tabs.forEach(function (tab) {
    tab.addEventListener("click", function () {
      open(room.dataset.panel === tab.dataset.panel ? "table" : tab.dataset.panel, true);
    });
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape" || room.dataset.panel === "table" || !tabsShown()) return;
    var tab = room.querySelector('.panel-tab[data-panel="' + room.dataset.panel + '"]');
    open("table", false);
    if (tab) tab.focus();
  });

  function seatLinkShown() {
    var box = document.getElementById("seat-link");
    return !!box && !box.hidden;
  }
  var hadSeatLink = seatLinkShown();

  document.addEventListener("htmx:wsAfterMessage", function (event) {
    var message = String(event.detail.message || "");
    // One new line (appended; a whole log comes after each connect, and is not news).
    var chat = document.getElementById("chat");
    if (message.indexOf('id="chat-log" hx-swap-oob="beforeend"') >= 0 && chat && tabsShown() &&
        room.dataset.panel !== "chat") {
      unreadCount += 1;
      showUnread();
    }
    var linked = seatLinkShown();
    if (linked && !hadSeatLink && tabsShown()) open("more", true);
    hadSeatLink = linked;
  });
})();
