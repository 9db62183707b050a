"""What the templates write for ``{{ value }}`` is what markupsafe's escaping gives, for any value."""

from __future__ import annotations

from enum import StrEnum

from hypothesis import given
from hypothesis import strategies as st
from markupsafe import Markup, escape

from app.pages.rendering import templates


class Colour(StrEnum):
    RED = "<red & 'hot'>"


class Html:
    def __init__(self, html: str) -> None:
        self.html = html

    def __html__(self) -> str:
        return self.html


values = st.one_of(st.text(), st.text().map(Markup), st.integers(), st.floats(allow_nan=False), st.none(),
                   st.booleans(), st.text().map(Html), st.just(Colour.RED), st.lists(st.text(), max_size=3))


@given(values)
def test_an_output_is_the_value_escaped_as_markupsafe_escapes_it(value):
    assert templates.env.from_string("{{ value }}").render(value=value) == str(escape(value))


@given(st.text(), st.text().map(Markup))
def test_a_template_escapes_text_and_keeps_markup(text, markup):
    template = templates.env.from_string("<p>{{ text }}|{{ markup }}|{% set kept %}<i>{{ text }}</i>{% endset %}"
                                         "{{ kept }}|{{ text ~ markup }}</p>")
    assert template.render(text=text, markup=markup) == (
        f"<p>{escape(text)}|{markup}|<i>{escape(text)}</i>|{escape(text) + markup}</p>")


def test_a_page_writes_nothing_unescaped():
    html = templates.env.from_string("{{ name }}").render(name='<script>alert("x")</script>')
    assert html == "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;"
