"""Bounded capture of a command's output: keep the first and the last bytes, count what falls in between.

Memory stays at ``limit`` bytes however much a command prints (upstream buffered everything first).
"""

from __future__ import annotations


class HeadTailBuffer:
    """Keeps up to ``limit`` bytes: the first half as it arrives, the latest half as a rolling tail."""

    def __init__(self, limit: int) -> None:
        self.limit = max(limit, 2)
        self._head_limit = self.limit // 2
        self._tail_limit = self.limit - self._head_limit
        self._head = bytearray()
        self._tail = bytearray()
        self.total_bytes = 0
        self.total_newlines = 0

    def feed(self, data: bytes) -> None:
        self.total_bytes += len(data)
        self.total_newlines += data.count(b"\n")
        room = self._head_limit - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if data:
            self._tail += data
            if len(self._tail) > self._tail_limit:
                del self._tail[: len(self._tail) - self._tail_limit]

    @property
    def truncated(self) -> bool:
        return self.total_bytes > self.limit

    def text(self) -> str:
        """The output, or head + a marker saying how many bytes and lines were cut + tail."""
        if not self.truncated:
            return (bytes(self._head) + bytes(self._tail)).decode("utf-8", errors="replace")
        head = bytes(self._head)
        tail = bytes(self._tail)
        # Cut at line boundaries when a line break is reasonably close, so no half lines are shown.
        head_cut = head.rfind(b"\n")
        if head_cut >= len(head) // 2:
            head = head[: head_cut + 1]
        tail_cut = tail.find(b"\n")
        if 0 <= tail_cut < len(tail) // 2:
            tail = tail[tail_cut + 1:]
        omitted_bytes = self.total_bytes - len(head) - len(tail)
        omitted_lines = max(self.total_newlines - head.count(b"\n") - tail.count(b"\n"), 0)
        marker = (f"\n[... {omitted_bytes} bytes ({omitted_lines} lines) omitted from the middle of "
                  f"{self.total_bytes} bytes of output; redirect to a file and read parts of it to see "
                  "everything ...]\n")
        return (head.decode("utf-8", errors="replace").rstrip("\n") + marker +
                tail.decode("utf-8", errors="replace"))
