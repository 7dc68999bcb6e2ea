"""The chat's elicitation form turns typed lines into the values the server's schema asks for."""

from __future__ import annotations

from amplifier_cli.ui.repl.elicitation import convert_answer


def test_answers_are_converted_to_the_fields_type_or_say_what_is_wanted() -> None:
    assert convert_answer(" Ada ", {"type": "string"}, True) == ("Ada", None)
    assert convert_answer("42", {"type": "integer"}, True) == (42, None)
    assert convert_answer("4.5", {"type": "number"}, True) == (4.5, None)
    assert convert_answer("yes", {"type": "boolean"}, True) == (True, None)
    assert convert_answer("N", {"type": "boolean"}, True) == (False, None)
    assert convert_answer("maybe", {"type": "boolean"}, True) == (None, "answer y or n")
    assert convert_answer("x", {"type": "integer"}, True) == (None, "answer an integer")
    assert convert_answer("blue", {"type": "string", "enum": ["red", "green"]}, True) == (None,
                                                                                          "answer one of: red, green")


def test_an_empty_answer_is_the_default_skipped_or_asked_again() -> None:
    assert convert_answer("", {"type": "integer", "default": 3}, True) == (3, None)
    assert convert_answer("", {"type": "string"}, False) == (None, None)
    assert convert_answer("  ", {"type": "string"}, True) == (None, "an answer is needed")
