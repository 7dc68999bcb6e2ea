"""Which environment variables hold credentials, by their names: one rule for every place that asks.

A provider key in the environment of the model's shell commands (tool-bash) or of a project's hook (hook-shell)
is one ``env`` or ``curl -d @-`` away from any host; the app masks the same variables' values in what it
stores (``secret_values.secret_environment``). All three use ``is_credential_name``.

A name is credential-like when, upper-cased and split at non-alphanumerics into words:
- one of its words is ``TOKEN(S)``, ``SECRET(S)``, ``PASSWORD(S)``, ``PASSWD``, ``PASSPHRASE``,
  ``CREDENTIAL(S)`` or ``APIKEY``, or two of them read ``API KEY`` (``AWS_SESSION_TOKEN``, ``GITHUB_TOKEN``,
  ``CLIENT_SECRET_VALUE``, ``GOOGLE_APPLICATION_CREDENTIALS``, ``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``,
  ``AZURE_OPENAI_API_KEY``);
- or its last word is ``KEY`` or ``PAT`` (``AWS_SECRET_ACCESS_KEY``, ``STRIPE_KEY``, ``GITHUB_PAT``);
- or it ends in ``TOKEN``, ``SECRET``, ``PASSWORD``, ``PASSWD`` or ``APIKEY`` (``GITHUBTOKEN``).
``TOKENIZER``, ``KEYBOARD`` or ``PASSTHROUGH`` are not.
"""

from __future__ import annotations

import fnmatch
import itertools
import re
from collections.abc import Iterable, Mapping

_WORDS = frozenset({"TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWORDS", "PASSWD", "PASSPHRASE",
                    "CREDENTIAL", "CREDENTIALS", "APIKEY"})
_LAST_WORDS = frozenset({"KEY", "PAT"})
_ENDINGS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "APIKEY")
_SPLIT = re.compile(r"[^A-Z0-9]+")


def is_credential_name(name: str) -> bool:
    """Whether the variable ``name`` holds a credential by convention (see the module docstring)."""
    upper = name.upper()
    words = [word for word in _SPLIT.split(upper) if word]
    if not words:
        return False
    if words[-1] in _LAST_WORDS or any(word in _WORDS for word in words):
        return True
    if ("API", "KEY") in itertools.pairwise(words):
        return True
    return upper.endswith(_ENDINGS)


def passed(name: str, pass_env: Iterable[str]) -> bool:
    """Whether a ``pass_env`` entry (a name or a glob, case-sensitive) lets ``name`` through."""
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in pass_env)


def withheld_names(environ: Mapping[str, str], pass_env: Iterable[str] = (), known: Iterable[str] = ()) -> list[str]:
    """The names of ``environ`` a child process must not get: credential-like ones and ``known`` (names the
    app knows to hold secrets, e.g. a provider's key variable), unless ``pass_env`` lets them through."""
    allowed = tuple(pass_env)
    secret = set(known)
    return sorted(name for name in environ
                  if (name in secret or is_credential_name(name)) and not passed(name, allowed))


def without_credentials(environ: Mapping[str, str], pass_env: Iterable[str] = (),
                        known: Iterable[str] = ()) -> dict[str, str]:
    """A copy of ``environ`` without the names ``withheld_names`` returns."""
    dropped = set(withheld_names(environ, pass_env, known))
    return {name: value for name, value in environ.items() if name not in dropped}
