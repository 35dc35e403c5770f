"""A request other than a tools/call refused with a JSON-RPC error where the original answers it, said in
one sentence the suite writes and a cause's headline repeats (issue 42, held-out-multi-12's paged-history
fork: a tools/list with a cursor refused "Invalid cursor", named under RTE-1 and said in no sentence).

The sentence quotes the server's words, hostile data: cut to a bound, read back by a bounded pattern only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Final

_PARAMS_MAX: Final = 120
"""Characters of the request's params said, at most."""
_WORDS_MAX: Final = 200
"""Characters of the refusal's message quoted, at most."""
_SAID: Final = re.compile(
    r"(?<![\w/])([a-z][a-z_]{0,40}/[a-z_/]{1,40}(?: with `[^`\n]{0,200}`)? is refused — “[^”\n]{0,220}” — "
    r"where the original [^;\n]{1,120})")
"""The sentence `refused_request` writes, found inside a check's failure message."""


def _params_said(params: Mapping[str, object]) -> str:
    said = ", ".join(f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in params.items())
    said = said.replace("`", "'").replace("\n", " ")
    return said if len(said) <= _PARAMS_MAX else said[:_PARAMS_MAX - 1] + "…"


def refused_request(method: str, params: Mapping[str, object] | None, message: object, answers: str) -> str:
    """`method` with `params` is refused — “message” — where the original `answers` (e.g. "lists its
    tool"): the server's message cut to _WORDS_MAX, quotes and newlines taken out so it reads back."""
    words = str(message).replace("”", "'").replace("“", "'").replace("\n", " ")
    words = words if len(words) <= _WORDS_MAX else words[:_WORDS_MAX - 1] + "…"
    sent = f" with `{_params_said(params)}`" if params else ""
    return f"{method}{sent} is refused — “{words}” — where the original {answers}"


def refusals_said(messages: Iterable[str]) -> list[str]:
    """The refused-request sentences inside `messages` (check failures), each once, in their order."""
    out: list[str] = []
    for message in messages:
        for found in _SAID.finditer(message[:5000]):
            if found.group(1) not in out:
                out.append(found.group(1))
    return out


__all__ = ["refusals_said", "refused_request"]
