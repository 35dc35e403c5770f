"""One line per difference, in the records' vocabulary, naming which target did what."""

from __future__ import annotations

from conformance.calls.pages import DETAIL_PAGED, ONE_PAGE
from conformance.compare.observe import Found
from conformance.compare.wording import validation_order


def _subject(found: Found) -> str:
    if found.field == "name":
        return "a call to another tool name"
    if found.field == "arguments":
        return "a call whose arguments are " + ("missing" if found.type_class == "missing" else
                                                f"{_article(found.type_class)} (not an object)")
    if found.field and found.type_class:
        return f"`{found.field}` given as {_article(found.type_class)}"
    if found.field:
        return f"a call with a bad `{found.field}`"
    return "a call"


def _article(type_class: str) -> str:
    if type_class in ("missing", "null", "zero"):
        return type_class
    return f"{'an' if type_class[0] in 'aeiou' else 'a'} {type_class}"


def summarize(found: Found, a: str, b: str) -> str:
    """The one line; an accepted-call difference names the bent field its minimal step carries."""
    line = _line(found, a, b)
    if found.suspect:
        return f"{line}, with `{found.suspect}` given as {_article(found.type_class)}"
    return line


def _line(found: Found, a: str, b: str) -> str:
    """E.g. "`thoughtNumber` given as a numeric string: refused (isError) by A, accepted by B"."""
    aspect, fld, detail = found.aspect, found.field, found.detail
    if aspect == "error_class":
        kind_a, _, kind_b = detail.partition(" vs ")
        return f"{_subject(found)}: answered with a {kind_a} by {a}, a {kind_b} by {b}"
    if aspect == "request_id":
        wrong, right = (a, b) if detail.startswith("wrong id") else (b, a)
        said = (found.a if wrong == a else found.b).removeprefix("wrong id: ")
        return f"{wrong}: {said}, where {right} answers under the id it was sent (a string)"
    if aspect == "is_error":
        refused, accepted = (a, b) if detail == "refused by a" else (b, a)
        if fld == "name":  # no tool to accept: an answer with content, not an acceptance
            return (f"{_subject(found)}: refused (isError) by {refused}, answered with content and no "
                    f"isError by {accepted}")
        return f"{_subject(found)}: refused (isError) by {refused}, accepted by {accepted}"
    if aspect == "answer":
        if detail == "error text":
            order = validation_order([(found.a, found.b)])
            if order is not None:
                return (f"refusals name other fields first: `{order[0]}` on {a}, `{order[1]}` on {b} "
                        "(another field refused first, not a re-wording)")
            what = f"a bad `{fld}`" if fld else "the call"
            return f"the isError text refusing {what} is worded differently by {a} and {b}"
        if detail in ("added", "removed", "changed"):
            where = b if detail == "added" else a
            if detail == "changed":
                return f"accepted answers carry a different `{fld}` on {a} and {b}"
            return f"accepted answers carry `{fld}` on {where} only"
        if fld:
            return f"the status object of an accepted call differs in {', '.join(fld.split('+'))}"
        return "the answer text of an accepted call differs"
    if aspect == "store" and detail == "long probe":
        return f"`{fld}` over one run of distinct accepted calls: {a} {found.a}; {b} {found.b}"
    if aspect == "store":
        return f"an accepted call changes the store differently ({fld})"
    if aspect == "stderr":
        return f"the stderr box of an accepted thought differs ({fld})"
    if aspect == "tools_list":
        if fld == "tools":
            return f"tools/list offers other tools on {a} and {b}"
        if detail == DETAIL_PAGED:
            paged = b if found.a == ONE_PAGE else a
            return f"tools/list hands out its tools in pages (a `nextCursor`) on {paged}"
        where = {"added": f"present on {b} only", "removed": f"present on {a} only"}.get(detail, "different")
        return f"tools/list: the tool's `{fld}` is {where}"
    if aspect in ("server_info", "capabilities"):
        name = "serverInfo" if aspect == "server_info" else "capabilities"
        return f"initialize: {name}.{fld} differs between {a} and {b}"
    if aspect == "protocol_version":
        return f"initialize: the protocol version differs between {a} and {b}"
    if aspect == "banner":
        return f"the start-up banner on stderr differs between {a} and {b}"
    if aspect == "exit_status":
        return f"the exit status on closed stdin differs between {a} and {b}"
    return f"{aspect} differs ({fld} {detail})".strip()
