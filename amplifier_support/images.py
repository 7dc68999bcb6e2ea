"""What an image sent to a model must be, for the app's attachments and for tools' image results alike: one
of the four types both providers accept (read from the bytes), and small enough for each of them."""

from __future__ import annotations

MAX_IMAGE_BYTES = 3_932_160  # 3.75 MiB: its base64 form is 5 MiB, Anthropic's limit per image (OpenAI's is higher)
ACCEPTED_MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
SUPPORTED = "PNG, JPEG, GIF or WebP"


def sniff_media_type(data: bytes) -> str | None:
    """The image type the bytes hold (by their signature), or None when it is none of the four accepted."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None
