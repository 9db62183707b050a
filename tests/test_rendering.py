"""Every live region of the table in every language, nothing left in English; dates as each language writes them.

The live regions are rendered as the room renders them for its connections
(``PageRenderer`` within ``speaking``), through a whole short match: the lobby,
every stage of a deal, the summary between deals and the end. Whole pages are
checked in tests/api/test_language.py.
"""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime

import pytest
from jinja2 import UndefinedError
from markupsafe import Markup

from app.game.cards import Card
from app.game.match import deal_cards, new_match
from app.game.rules import Rules
from app.game.views import view_for
from app.pages import regions as regions_module
from app.pages import rendering
from app.pages import table as table_page
from app.pages.pieces import PIECES, keeping
from app.pages.regions import JoinShown
from app.pages.rendering import card_face, render_block, render_each, templates, when
from app.pages.table import LIVE_REGIONS, PageConstants, PageRenderer
from app.rooms.fanout import Renderings
from app.rooms.kept import Kept
from app.rooms.lobby import Seat
from app.rooms.phases import RoomPhase
from app.rooms.views import Table
from app.wording.language import DEFAULT_LANGUAGE, LANGUAGES, speaking, translations
from tests.game.helpers import random_steps
from tests.words import english_left, readable

OTHER_LANGUAGES = [code for code in LANGUAGES if code != DEFAULT_LANGUAGE]
SEATS = (Seat("Ana", "a" * 64, player="p-ana"), Seat("Ben", "b" * 64, player="p-ben"),
         Seat("Easy bot 1", None, bot="easy", player="p-bot"))
NAMES = ("Ana", "Ben", "Cy")
VIEWERS = [(0, True), (1, False), (None, False), (None, True)]
CONTEXT = PageConstants(lambda name, **params: f"/{name}", 4.0)
RULES = Rules(hand_size=3, threshold=10, lives=2)


def tables():
    """The room in the lobby, then after every play of a whole short match, summaries included."""
    rng = random.Random(11)

    def table(version, match, summary):
        return Table(code="ROOM1", version=version, rules=RULES, seats=SEATS, host="a" * 64, match=match,
                     match_id="m1" if match else None, last_summary=summary, connected=frozenset({0}),
                     away=frozenset({1}) if match else frozenset(), spectators=2, turn_seconds=30,
                     turn_remaining=12.5 if match else None)

    yield table(1, None, None)
    dealt, _ = deal_cards(new_match([seat.name for seat in SEATS], RULES), rng)
    for version, (match, summary) in enumerate(random_steps(dealt, rng), start=2):
        yield table(version, match, summary)


def regions(table, code):
    """Each viewer's live regions of ``table`` in language ``code``, by element id (the seats' container with
    its seats inside)."""
    renderings = Renderings(table)
    shown = {}
    with speaking(code):
        for seat, host in VIEWERS:
            state = PageRenderer(CONTEXT, link_url=str).render(renderings.viewer(seat, host), renderings.shared)
            shown[seat, host] = {**state.html, "seats": state.container()}
    return shown


def test_the_match_of_these_tests_has_every_stage():
    stages = {(table.phase, view_for(table.match, None).phase if table.match else None, table.last_summary is not None)
              for table in tables()}
    assert {("lobby", None, False), ("playing", "playing", False), ("playing", "deal_over", True),
            ("playing", "playing", True), ("finished", "finished", True)} <= stages


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_every_live_region_speaks_the_viewers_language(code):
    for table in tables():
        for viewer, rendered in regions(table, code).items():
            for name, html in rendered.items():
                assert english_left(html, names=NAMES) == [], (table.version, viewer, name, readable(html))


def test_the_english_regions_say_what_the_word_check_looks_for():
    """The check above would see English: the same regions in English hold those words."""
    seen = set()
    for table in tables():
        for rendered in regions(table, "en").values():
            seen.update(word for html in rendered.values() for word in english_left(html, names=NAMES))
    assert {"trick", "deal", "your", "turn", "waiting", "players", "rules", "threshold"} <= seen


def test_a_bot_name_and_the_cards_are_said_in_the_viewers_language():
    table = next(table for table in tables() if table.match is not None and view_for(table.match, None).trick)
    danish = regions(table, "da")[0, True]
    assert "Let bot 1" in danish["seat-2"] and "Easy bot 1" not in readable(danish["seat-2"])
    card = view_for(table.match, None).trick[0].card
    german = regions(table, "de")[None, False]["trick"]
    assert re.search(r'aria-label="(Kreuz|Karo|Herz|Pik)-(Zwei|Drei|Vier|Fünf|Sechs|Sieben|Acht|Neun|Zehn|Bube|'
                     r'Dame|König|Ass)"', german), german
    assert f'data-card="{card.code}"' in german


def test_each_region_is_rendered_once_per_version_and_language_however_many_viewers(monkeypatch):
    calls = []
    for module in (table_page, rendering):
        real = module.render_block
        monkeypatch.setattr(module, "render_block", lambda *args, real=real: calls.append(args[1]) or real(*args))
    table = next(table for table in tables() if table.match is not None and view_for(table.match, None).trick)
    renderings = Renderings(table)
    viewers = [(None, False, code) for code in ("da", "sv", "da", "sv", "da")] * 4  # twenty spectators
    for seat, host, code in viewers:
        with speaking(code):
            PageRenderer(CONTEXT, link_url=str).render(renderings.viewer(seat, host), renderings.shared)
    # Each region but the seats' container (rendered only for a page it is sent to), and each seat, once in
    # Danish and once in Swedish.
    assert len(calls) == 2 * (len(LIVE_REGIONS) - 1 + len(SEATS))


@pytest.mark.parametrize(("code", "finished"), [("en", "Nov 30, 2025, 16:06"), ("da", "30. nov. 2025 16.06"),
                                                 ("de", "30. Nov. 2025, 16:06"), ("sv", "30 nov. 2025 16:06")])
def test_dates_are_written_as_each_language_writes_them(code, finished):
    with speaking(code):
        assert when(datetime(2025, 11, 30, 16, 6, tzinfo=UTC)) == finished
        assert when(datetime(2025, 11, 30, 16, 6)) == finished  # naive means UTC


def test_a_piece_is_kept_once_for_equal_values_while_a_store_keeps_it_and_again_when_they_change():
    assert set(PIECES) <= set(templates.env.filters)
    head = regions_module.SeatHead("Ana", True, False, False, None, False, None, False)
    template = templates.env.from_string("{{ head|seat_head }}")
    macro = templates.get_template("_pieces.html").module.seat_head
    store = Kept()
    with keeping(store):
        first = template.render(head=head)
        assert first == str(macro(head)) and len(store) == 1
        assert template.render(head=head._replace()) == first and len(store) == 1  # found again: an equal value
        yours = template.render(head=head._replace(is_you=True))
        assert yours != first and "you-tag" in yours and len(store) == 2
        with speaking("da"):
            assert template.render(head=head) == str(macro(head)) != first and len(store) == 3
    following = store.following()
    with keeping(following):  # the next version finds it too
        assert template.render(head=head) == first and len(following) == 1
    # Without a store (a whole page) it is rendered as the macro renders it, and escapes as the rest.
    assert template.render(head=head) == first
    assert "&lt;i&gt;Cy" in template.render(head=head._replace(name="<i>Cy</i>"))


def test_a_card_face_is_the_macros_face_in_the_language_spoken():
    macro = templates.get_template("_macros.html").module.card_face
    card = Card.parse("QH")
    for code in ("en", "de"):
        with speaking(code):
            assert card_face(card) == str(macro(card))
            assert card_face(card, small=True, label=False) == str(macro(card, small=True, label=False))
    with speaking("de"):
        assert "Herz-Dame" in card_face(card)


def test_a_text_without_variables_is_said_in_the_language_spoken_each_time_and_a_double_percent_is_one():
    from app.pages.rendering import templates

    page = templates.env.from_string('{{ _("Players") }}|{{ _("100%% sure") }}')
    said = {}
    for code in ("en", "da", "en", "sv"):
        with speaking(code):
            said[code] = page.render()
    assert said["en"] == "Players|100% sure"
    assert said["da"].split("|") == [translations("da").gettext("Players"), "100% sure"] and said["da"] != said["en"]
    assert said["sv"].split("|")[0] == translations("sv").gettext("Players") != "Players"


def test_a_text_with_variables_said_again_escapes_each_value_as_it_is_and_is_said_in_the_language_spoken():

    page = templates.env.from_string('{{ _("Remove %(name)s", name=name) }}')
    for _ in range(2):  # the second time, as it was kept
        assert page.render(name="<b>Cy</b>") == "Remove &lt;b&gt;Cy&lt;/b&gt;"
        assert page.render(name=Markup("<b>Cy</b>")) == "Remove <b>Cy</b>"
        assert page.render(name=["Cy"]) == "Remove [&#39;Cy&#39;]"  # a value that cannot be a key
        with speaking("da"):
            assert page.render(name="Cy") == translations("da").gettext("Remove %(name)s") % {"name": "Cy"}


def test_a_template_calls_plain_functions_at_once_and_hands_the_context_to_those_that_ask_for_it():
    from jinja2 import pass_context, pass_environment

    def ends():
        raise StopIteration

    template = templates.env.from_string(
        "{% set kept = 3 %}{{ plain(2, by=kept) }} {{ context_asks() }} {{ environment_asks() }} [{{ ends() }}]"
        "{% for _ in [1] %} {{ plain(1, by=loop.index) }}{% endfor %}")
    html = template.render(plain=lambda value, by: value * by, ends=ends,
                           context_asks=pass_context(lambda context: context["marker"]),
                           environment_asks=pass_environment(lambda environment: environment is templates.env),
                           marker="seen")
    assert html == "6 seen True [] 1"


def test_a_template_once_loaded_is_not_looked_up_on_disk_again(monkeypatch):
    templates.get_template("room.html")
    looked: list[str] = []
    real = templates.env.loader.get_source

    def get_source(environment, name):
        source, filename, uptodate = real(environment, name)

        def checked():
            looked.append(name)
            return uptodate()

        return source, filename, checked

    monkeypatch.setattr(templates.env.loader, "get_source", get_source)
    templates.env.cache.clear()
    for _ in range(3):
        templates.get_template("room.html")
    assert looked == []


def test_a_block_s_own_variables_reach_it_and_no_block_after_it():
    watching = JoinShown("ROOM1", True, RoomPhase.LOBBY, True)
    seated = watching._replace(watching=False)
    context = CONTEXT._asdict()
    alone = render_each("room.html", [("join", {"join": watching})], context)[0]
    first, second = render_each("room.html", [("join", {"join": watching}), ("join", {"join": seated})], context)
    assert first == alone and "<form" in first and "<form" not in second and " hidden" in second
    with pytest.raises(UndefinedError):  # a block after it does not see its variables
        render_each("room.html", [("join", {"join": watching}), "join"], context)
    # A variable of the render's own that a block's variables hide is there again after that block.
    hidden, restored = render_each("room.html", [("join", {"join": seated}), "join"], {**context, "join": watching})
    assert hidden == second and restored == alone


def test_a_block_rendered_alone_is_what_it_is_among_the_others():
    watching = JoinShown("ROOM1", True, RoomPhase.LOBBY, True)
    context = CONTEXT._asdict()
    assert render_block("room.html", "join", {**context, "join": watching}) == render_each(
        "room.html", [("join", {"join": watching})], context)[0]
    with pytest.raises(KeyError):
        render_block("room.html", "no-such-region", context)
