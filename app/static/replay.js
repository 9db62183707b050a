// Steps through a finished match deal by deal and trick by trick. The data is
// prepared by the server from the record; this script only displays it.
(function () {
  "use strict";
  var root = document.querySelector("[data-replay]");
  if (!root) return;
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var faces = data.cards; // code -> {rank, suit, name}: corner label, suit symbol, name to read out
  var words = JSON.parse(document.getElementById("replay-words").textContent); // in the page's language

  // A sentence of ``words`` with its {named} parts filled in.
  function say(word, facts) {
    return words[word].replace(/\{(\w+)\}/g, function (all, name) { return String(facts[name]); });
  }
  var deal = 0, trick = 0; // trick: how many tricks of the deal are shown as played (0 = hands as dealt)

  // The same card face as the table's: rank and suit in the corner, named for screen readers.
  function cardHtml(code, played) {
    var red = code[1] === "D" || code[1] === "H";
    var card = document.createElement("span");
    card.className = "card small " + (red ? "red" : "black") + (played ? " gone" : "");
    card.dataset.card = code;
    card.setAttribute("role", "img");
    card.setAttribute("aria-label", played ? say("played", { card: faces[code].name }) : faces[code].name);
    var corner = document.createElement("span");
    corner.className = "corner";
    var rank = document.createElement("span");
    rank.className = "rank";
    rank.textContent = faces[code].rank;
    var suit = document.createElement("span");
    suit.className = "suit";
    suit.textContent = faces[code].suit;
    corner.appendChild(rank);
    corner.appendChild(suit);
    card.appendChild(corner);
    return card;
  }

  // The coach's word on play ``index`` of deal ``d``: its label (in words, not colour alone) and, short of
  // the best, the coach's cards and the points they would have saved; or that a stand-in made it.
  function gradeHtml(d, index) {
    var note = document.createElement("span");
    note.className = "coach-note";
    var grade = d.coach && d.coach[index];
    if (d.stand_in && d.stand_in[index]) {
      note.textContent = " · " + words.stand_in;
      return note;
    }
    if (!grade) return note;
    var label = document.createElement("span");
    label.className = "coach-label " + grade.label;
    label.textContent = words.labels[grade.label];
    note.appendChild(document.createTextNode(" · "));
    note.appendChild(label);
    if (grade.label !== "best" && grade.label !== "forced" && grade.saved !== null) {
      note.appendChild(document.createTextNode(" · " + say("coach_would", {
        cards: grade.best.map(function (code) { return faces[code].name; }).join(", "),
        points: grade.saved.toFixed(1)
      })));
    }
    return note;
  }

  // The trick on view with every hand known: what each card played cost, and the least any card could.
  function renderHindsight(d) {
    var list = root.querySelector(".hindsight-lines");
    if (!list) return;
    list.textContent = "";
    function line(text) {
      var li = document.createElement("li");
      li.textContent = text;
      list.appendChild(li);
    }
    if (trick === 0) { line(words.hindsight_start); return; }
    var current = d.tricks[trick - 1];
    var first = (trick - 1) * current.plays.length;
    var any = false;
    current.plays.forEach(function (p, offset) {
      var seen = d.hindsight && d.hindsight[first + offset];
      if (!seen) return;
      any = true;
      var facts = { name: data.players[p[0]], card: faces[p[1]].name, points: seen.points,
                    best: seen.best.map(function (code) { return faces[code].name; }).join(", "),
                    best_points: seen.best_points };
      line(say(seen.points === seen.best_points ? "hindsight_best" : "hindsight_line", facts));
    });
    if (!any) line(words.hindsight_none);
  }

  function render() {
    var d = data.deals[deal];
    if (!d) { root.querySelector(".replay-position").textContent = words.no_deals; return; }
    var shown = {};
    for (var t = 0; t < trick; t++) d.tricks[t].plays.forEach(function (p) { shown[p[1]] = true; });
    root.querySelector(".replay-position").textContent = say(trick === 0 ? "position_dealt" : "position_after", {
      deal: d.number, deals: data.deals.length, dealer: data.players[d.dealer], trick: trick, tricks: d.tricks.length
    });
    var hands = root.querySelector(".replay-hands");
    hands.textContent = "";
    d.hands.forEach(function (hand, seat) {
      if (!hand.length) return;
      var row = document.createElement("div");
      row.className = "replay-hand";
      var name = document.createElement("span");
      name.className = "name";
      name.textContent = seat === d.dealer ? say("dealer", { name: data.players[seat] }) : data.players[seat];
      row.appendChild(name);
      hand.forEach(function (code) { row.appendChild(cardHtml(code, !!shown[code])); });
      hands.appendChild(row);
    });
    var box = root.querySelector(".replay-trick");
    box.textContent = "";
    if (trick > 0) {
      var current = d.tricks[trick - 1];
      var title = document.createElement("p");
      title.textContent = say("won_by", { trick: trick, name: current.winner >= 0 ? data.players[current.winner] : "—" });
      box.appendChild(title);
      var first = (trick - 1) * current.plays.length; // index in the deal's plays of the trick's first card
      current.plays.forEach(function (p, offset) {
        var item = document.createElement("span");
        item.className = "replay-play";
        item.appendChild(cardHtml(p[1], false));
        item.appendChild(document.createTextNode(" " + data.players[p[0]]));
        item.appendChild(gradeHtml(d, first + offset));
        box.appendChild(item);
      });
    }
    renderHindsight(d);
    var summary = root.querySelector(".replay-summary");
    summary.textContent = "";
    if (trick === d.tricks.length) {
      d.summary.forEach(function (line) {
        var li = document.createElement("li");
        li.textContent = line;
        summary.appendChild(li);
      });
    }
  }

  function step(kind) {
    var d = data.deals[deal];
    if (!d) return;
    if (kind === "next-trick") {
      if (trick < d.tricks.length) trick++;
      else if (deal < data.deals.length - 1) { deal++; trick = 0; }
    } else if (kind === "prev-trick") {
      if (trick > 0) trick--;
      else if (deal > 0) { deal--; trick = data.deals[deal].tricks.length; }
    } else if (kind === "next-deal") { deal = Math.min(deal + 1, data.deals.length - 1); trick = 0; }
    else if (kind === "prev-deal") { deal = Math.max(deal - 1, 0); trick = 0; }
    else if (kind === "first-deal") { deal = 0; trick = 0; }
    else if (kind === "last-deal") { deal = data.deals.length - 1; trick = 0; }
    render();
  }

  root.addEventListener("click", function (event) {
    var button = event.target.closest("[data-step]");
    if (button) step(button.dataset.step);
  });
  document.addEventListener("keydown", function (event) {
    if (event.target.closest("input, select, textarea")) return;
    var keys = { ArrowRight: "next-trick", ArrowLeft: "prev-trick", PageDown: "next-deal",
                 PageUp: "prev-deal", Home: "first-deal", End: "last-deal" };
    if (!keys[event.key]) return;
    // The arrows step anywhere on the page; the page keys only inside the replay, elsewhere they scroll.
    var arrow = event.key === "ArrowRight" || event.key === "ArrowLeft";
    if (!arrow && !root.contains(document.activeElement)) return;
    event.preventDefault();
    step(keys[event.key]);
  });
  render();
})();
