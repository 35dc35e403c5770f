"""What a server offers beyond the tool, compared (issue 42, held-out-multi-15): a notification sent while a
call raises totalThoughts (fork-chatty-client), a progress notification on every call, a resource or a prompt
listed that holds the stored thoughts (fork-protocol-upgrade). Against the reference's one-mode forks; the
comparison's rules as a property of `compare_offered` over any sent messages."""

from __future__ import annotations

import shlex
import sys
from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.offered import Listed, OfferedSide, compare_offered, offered_side
from conformance.targets.specs import resolve_target
from tests.servers import fork_target

REFERENCE: Final = resolve_target("cmd:" + shlex.join([sys.executable, "-m", "reference_server"]))
CLASSES: Final = ("an accepted call", "a call that raises totalThoughts", "a refused call")


@pytest.fixture(scope="module")
def reference_side() -> OfferedSide:
    return offered_side(REFERENCE, 20)


@pytest.mark.parametrize(("change", "signature", "words"), [
    ("raise-warned", "notifications.call-that-raises-totalThoughts.sent",
     "head sends notifications/message (warning) “totalThoughts raised from 3 to 5” when it answers a call "
     "that raises totalThoughts; base sends none"),
    ("progress-sent", "notifications.every-call.sent",
     "head sends notifications/progress {"),
    ("history-resource", "resources.thoughts-history.listed",
     "head offers resource thoughts://history, which holds the stored thought: “[ \"offered-mark-"),
    ("thought-template", "resources.thoughts-number.listed",
     "head offers resource template thoughts://{number}, which holds the stored thought: “offered-mark-"),
    ("recap-prompt", "prompts.recap.listed",
     "head offers prompt recap, which holds the stored thought: “Thoughts so far: offered-mark-"),
])
def test_a_fork_offering_more_is_one_difference(
    reference_side: OfferedSide, change: str, signature: str, words: str
) -> None:
    """Each fork's one change is one difference, said with what the fork sent or what its listing holds."""
    found = compare_offered(reference_side, offered_side(fork_target(change), 20), "base", "head")
    assert [o.found.signature for o in found] == [signature], [o.sentence for o in found]
    assert words in found[0].sentence, found[0].sentence
    assert found[0].program, "a difference carries the calls that show it"


def test_the_reference_against_itself_offers_nothing_more(reference_side: OfferedSide) -> None:
    """Two processes of the original: nothing sent unasked on either, nothing listed; no difference."""
    again = offered_side(REFERENCE, 20)
    assert all(not said for said in again.sent.values()) and not again.listed, again
    assert compare_offered(reference_side, again, "base", "head") == []


def test_debug_logged_only_when_asked_sends_nothing_unasked(reference_side: OfferedSide) -> None:
    """A fork logging thoughts only once a client asks for debug (no setLevel here) sends nothing unasked."""
    head = offered_side(fork_target("debug-logged"), 20)
    assert compare_offered(reference_side, head, "base", "head") == []


_messages = st.lists(st.sampled_from([
    "notifications/message (warning) “raised”", "notifications/progress {\"progress\": 1}",
    "the request roots/list"]), max_size=3)
_sides = st.builds(lambda sent: OfferedSide(sent=dict(zip(CLASSES, sent, strict=True))),
                   st.tuples(_messages, _messages, _messages))


@given(a=_sides, b=_sides)
def test_offered_differences_are_the_classes_sent_otherwise(a: OfferedSide, b: OfferedSide) -> None:
    """A side against itself differs in nothing; swapped, as many differences; each class whose methods
    differ is said, and each sentence leads with a side's sending."""
    assert compare_offered(a, a, "base", "head") == []
    forward, backward = compare_offered(a, b, "base", "head"), compare_offered(b, a, "base", "head")
    assert len(forward) == len(backward)
    differing = [c for c in CLASSES if {s.split(" “")[0].split(" {")[0] for s in a.sent[c]}
                 != {s.split(" “")[0].split(" {")[0] for s in b.sent[c]}]
    said = " | ".join(o.sentence for o in forward)
    assert all(c in said or "every call" in said for c in differing), (differing, said)
    assert bool(differing) == bool(forward)
    for item in forward:
        assert item.sentence.startswith(("head sends", "base sends")), item.sentence


def test_a_listing_holding_the_thought_on_one_side_only_differs() -> None:
    """Both list the same resource; only one read holds the stored thought: a difference naming that side."""
    empty = OfferedSide(listed=[Listed("resource", "notes://all", "[]")])
    full = OfferedSide(listed=[Listed("resource", "notes://all", "[\"offered-mark-1\"]", holds_thought=True)])
    found = compare_offered(empty, full, "base", "head")
    assert [o.found.signature for o in found] == ["resources.notes-all.listed"]
    assert found[0].sentence.startswith("head offers resource notes://all, which holds the stored thought")
    assert compare_offered(full, full, "base", "head") == []
