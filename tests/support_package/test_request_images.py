"""Earlier images beyond a request's budget are described, this turn's are kept, and a request still too large is
refused with a message before it is sent."""

from __future__ import annotations

import base64

from amplifier_core.message_models import ImageBlock, Message, TextBlock
from amplifier_support import request_images
from amplifier_support.request_images import IMAGE_BYTES_BUDGET, fit_images, oversize_problem

QUARTER = IMAGE_BYTES_BUDGET // 4  # encoded bytes of one test image: four fit in a request


def _image(tag: str, size: int = QUARTER) -> ImageBlock:
    data = base64.b64encode(tag.encode()).decode()
    return ImageBlock(source={"type": "base64", "media_type": "image/png", "data": data + "A" * (size - len(data))})


def _turn(tag: str, images: int) -> list[Message]:
    blocks = [TextBlock(text=f"look {tag}"), *(_image(f"{tag}{n}") for n in range(images))]
    return [Message(role="user", content=blocks), Message(role="assistant", content=f"seen {tag}")]


def _kept(messages: list[Message]) -> list[str]:
    return [base64.b64decode(block.source["data"][:4])[:2].decode() for message in messages
            if isinstance(message.content, list) for block in message.content if isinstance(block, ImageBlock)]


def test_the_newest_images_are_kept_and_older_ones_described_while_the_transcript_keeps_all() -> None:
    history = [Message(role="system", content="instruction"), *_turn("a", 3), *_turn("b", 3)]
    history.append(Message(role="user", content=[TextBlock(text="now"), _image("c0")]))
    fitted, described = fit_images(history)
    assert _kept(fitted) == ["b0", "b1", "b2", "c0"] and described == 3
    notes = [block.text for block in fitted[1].content if isinstance(block, TextBlock)][1:]
    assert len(notes) == 3 and all("left out of this request" in note and "image/png" in note for note in notes)
    assert _kept(history) == ["a0", "a1", "a2", "b0", "b1", "b2", "c0"]  # the stored messages are not changed
    assert oversize_problem(fitted) is None


def test_a_conversation_whose_images_fit_is_passed_on_as_it_is() -> None:
    history = [*_turn("a", 2), Message(role="user", content="more")]
    fitted, described = fit_images(history)
    assert fitted is history and described == 0


def test_images_of_the_current_turn_are_never_dropped_and_a_request_still_too_large_is_refused(monkeypatch) -> None:
    monkeypatch.setattr(request_images, "MAX_REQUEST_BYTES", IMAGE_BYTES_BUDGET)
    history = [*_turn("a", 1), Message(role="user", content=[TextBlock(text="all of these"),
                                                              *(_image(f"n{n}") for n in range(5))])]
    fitted, described = fit_images(history)
    assert _kept(fitted) == ["n0", "n1", "n2", "n3", "n4"] and described == 1
    problem = oversize_problem(fitted)
    assert problem is not None and "was not sent" in problem and "fewer or smaller images" in problem
