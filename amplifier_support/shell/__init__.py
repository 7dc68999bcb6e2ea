"""How amplifier reads a bash line, shared by the modules that judge one (hooks-approval asks or allows,
tool-bash's safety policy refuses). Modules never import each other, so shared module code lives in
``amplifier_support/`` (which imports only the kernel); the kernel keeps mechanism only, and judging a shell
line is policy.

There is one reading of the shell, on a real parse (tree-sitter's bash grammar, imported on first use so
startup does not pay for it):

- ``parse.py``: the line into simple commands of words (``Word.value`` for literal words, ``readings`` for
  what a static reading expects bash to make of the others) plus every part that cannot be judged, with the
  reason (expansions, substitutions, heredocs, functions, compound statements, assignments, background jobs,
  parse errors, node types not known here).
- ``wrappers.py``: ``env``, ``nice``, ``timeout``, ``xargs``, ``find -exec``, ``sh -c 'literal'`` ... peeled so
  the inner command is judged the same way (a deny list also sees through ``sudo``, ``flock`` ...), with a
  depth limit.
- ``read_only.py``: the commands known to only read, each option set checked, and a label saying what any
  command does ("deletes files", "uses the network").
- ``reading.py``: the whole reading of a line (parse, unwrap, read the script strings) in a strict form for
  approval (only literal plain commands can be vouched for) and a wide form for deny lists.

A policy may allow a line only when its strict reading is plain; what is not understood is asked for.
"""

from __future__ import annotations

from .parse import Command, ParsedLine, Redirect, Unjudged, Word, parse_line
from .read_only import Judgement, judge, written_paths
from .reading import LineReading, Step, read_line
from .wrappers import Unwrapped, unwrap

__all__ = [
    "Command", "Judgement", "LineReading", "ParsedLine", "Redirect", "Step", "Unjudged", "Unwrapped", "Word",
    "judge", "parse_line", "read_line", "unwrap", "written_paths",
]
