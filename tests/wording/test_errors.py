"""Refusals of the server in words: every reason in every language, and the engine's errors said alike."""

import pytest

from app.game import Card
from app.game.errors import InvalidCard, InvalidRules
from app.game.rules import OPTIONS, Rules, preset
from app.web.ratelimit import LIMITED
from app.wording import errors
from app.wording.errors import EngineProblem, Problem, limit_problem, problem, rules_problem
from app.wording.language import LANGUAGES, speaking

FACTS = {"name": "Ana", "count": 7, "low": 2, "high": 7, "seconds": 30, "kind": "'x'", "field": "'y'",
         "strengths": "easy, normal, hard", "hello": '{"type": "hello"}', "detail": "?", "text": "'ZZ'",
         "codes": "oops, sad", "length": 9, "method": "PUT", "hours": "1, 4"}


def test_counted_and_plain_reasons_do_not_overlap():
    assert not set(errors.PROBLEMS) & set(errors.COUNTED)
    assert set(errors.LIMITS) == set(LIMITED)


@pytest.mark.parametrize("code", list(LANGUAGES))
def test_every_reason_is_said_in_every_language(code):
    said = set()
    with speaking(code):
        for reason in [*errors.PROBLEMS, *errors.COUNTED]:
            text = str(problem(reason, **FACTS))
            assert text and "{" not in text.replace('{"type"', ""), (reason, text)
            said.add(text)
        for name in LIMITED:
            assert "30" in str(limit_problem(name, 30))
    assert len(said) == len(errors.PROBLEMS) + len(errors.COUNTED)


def test_a_problem_is_worded_when_read_in_the_language_read():
    words = problem("name_taken", name="Ana")
    assert str(words) == "someone here is already called Ana; choose another name"
    with speaking("sv"):
        assert str(words) == "någon här heter redan Ana; välj ett annat namn"
    assert isinstance(words, Problem)


def rules_errors():
    for option in OPTIONS:
        bad = "nonsense" if option.kind != "choice" else 7
        try:
            Rules.from_dict({option.name: bad})
        except InvalidRules as error:
            yield error
    for attempt in (lambda: Rules.from_dict({"colour": 1}), lambda: preset("whist"),
                    lambda: Rules.from_dict({"threshold": 200}), lambda: Rules.from_dict({"match_length": 0})):
        try:
            attempt()
        except InvalidRules as error:
            yield error


@pytest.mark.parametrize("error", list(rules_errors()), ids=str)
def test_refused_rules_are_said_in_english_as_the_engine_says_them(error):
    assert rules_problem(error) == error.message == str(EngineProblem(error))
    with speaking("it"):
        assert rules_problem(error) != error.message


def test_a_bad_card_code_is_said_as_the_engine_says_it():
    with pytest.raises(InvalidCard) as caught:
        Card.parse("ZZ")
    assert str(EngineProblem(caught.value)) == caught.value.message
    with speaking("es"):
        assert str(EngineProblem(caught.value)).startswith("'ZZ' no es un código de carta")
