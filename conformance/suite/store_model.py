"""A model of the process-global store (OBJ-2 count, OBJ-3 labels) as the records describe it.

Tests start it from one accepted probe of the shared process and advance it per call, so the same
process serves every example.
"""

from __future__ import annotations

import html
import re
import secrets
from dataclasses import dataclass, field

from conformance.calls.store import StoreState
from conformance.calls.strategies import LABEL_OFFSETS, LabelKind
from conformance.core.js import MAX_ARRAY_INDEX, keys_after_insert
from conformance.core.jsontypes import JSON, OMIT
from conformance.drivers.wire import Exchange
from conformance.suite.answers import describe, expect_one_more, store
from conformance.suite.contradiction import Contradiction, brief, expect
from conformance.suite.jsvalues import branch_key, guard_failure, js_string


@dataclass
class StoreModel:
    """Count of retained thoughts and branch labels in Object.keys order, predicted call by call."""

    count: int
    labels: tuple[str, ...]
    in_step: bool = True
    """False once the model advanced by a guess (a call that failed late, RTE-8/a1), until a check passes."""
    answered: set[str] = field(default_factory=set)
    """Every label an answer has shown so far: one missing later was lost, not left unfiled."""
    offered: set[str] = field(default_factory=set)
    """String(branchId) of every accepted call that sent one, truthy partner or not."""
    guessed: int = 0
    """Calls counted as retained on RTE-8/a1's word since the model was last in step: a count short by
    exactly these is theirs not retained, not an accepted call left unappended (a lockout is no cap)."""

    @classmethod
    def from_state(cls, state: StoreState) -> StoreModel:
        return cls(state.history_length, state.branches, answered=set(state.branches))

    def accept(self, arguments: dict[str, JSON]) -> None:
        """RTE-5: one append per accepted call; RTE-6: a label when both branch fields are truthy."""
        assert guard_failure(arguments) is None, (
            f"the store model was asked to accept {brief(arguments)}, a call the original refuses for its "
            f"{guard_failure(arguments)}")
        self.count += 1
        sent = arguments.get("branchId", OMIT)
        if sent is not OMIT:
            self.offered.add(js_string(sent))
        key = branch_key(sent, arguments.get("branchFromThought", OMIT))
        if key is not None:
            self.labels = keys_after_insert(self.labels, key)

    def labels_record(self, found: tuple[str, ...]) -> str:
        """The record answered labels other than the model's contradict: a label respelled or out of key
        order, OBJ-4/a1; one shown before and missing now, or one shown that no call of this check sent and
        no earlier answer showed (an earlier answer left it out), OBJ-3's "lists every label, never loses
        one"; else a label filed or left unfiled against the truthiness rule, RTE-6."""
        if set(found) == set(self.labels) or len(found) == len(self.labels):
            return "OBJ-4/a1"
        lost = [label for label in self.labels if label not in found and label in self.answered]
        hidden = [label for label in found if label not in self.labels and label not in self.offered]
        return "OBJ-3" if lost or hidden else "RTE-6"

    def retained_after_failure(self) -> None:
        """A call that failed after retention (RTE-8/a1), counted on that record's word: a count short by it
        says that call was not kept (refused before the append), never a count that stopped (a cap)."""
        self.count += 1
        self.guessed += 1
        self.in_step = False

    def retained_without_label(self) -> None:
        """A call outside RTE-6's reach (no branch fields) that a server accepted or retained anyway."""
        self.count += 1

    def probe(self) -> None:
        """The probe call is an accepted call without branch fields."""
        self.count += 1

    def state(self) -> StoreState:
        return StoreState(self.count, self.labels)

    def unlike(self, found: StoreState, answer: str = "the probe call") -> str:
        """A check's failure message: what `answer` reported of the store that the calls the model counted
        do not make it, field by field (the count first, then the labels missing, added or reordered)."""
        said: list[str] = []
        if found.history_length != self.count:
            said.append(f"thoughtHistoryLength {found.history_length}, not {self.count}")
        if found.branches != self.labels:
            missing = [label for label in self.labels if label not in found.branches]
            added = [label for label in found.branches if label not in self.labels]
            if missing:
                said.append(f"branches without {brief(missing)}")
            if added:
                said.append(f"branches with {brief(added)} as well")
            if not missing and not added:
                order = brief(list(found.branches))
                said.append(f"branches in the order {order}, not {brief(list(self.labels))}")
        told = f"{answer} reports {' and '.join(said) or 'the same state'} after the calls accepted so far"
        if self.guessed and found.history_length == self.count - self.guessed:
            calls = "call" if self.guessed == 1 else "calls"
            told += (f": the count the accepted calls alone make, the {self.guessed} {calls} since the last "
                     "count answered that the original retains though it fails (after validation) not "
                     "retained")
        return told

    def expect_state(self, found: StoreState, answer: str = "the probe call", context: str = "") -> None:
        """`found` is the store the model counted: a count other than the model's contradicts OBJ-2 (the
        count is the calls that passed validation), whatever else differs; labels alone, the check's own."""
        if found == self.state():
            return
        said = (f"{context}: " if context else "") + self.unlike(found, answer)
        expect("OBJ-2", found.history_length == self.count, said)
        raise AssertionError(said)

    def after_accepted(self, exchange: Exchange, arguments: dict[str, JSON]) -> None:
        """Advance by one accepted call and check its answer against the model, in step before the call, so
        a mismatch is this call's. A count other than one more contradicts OBJ-2; a label filed or dropped
        against the truthiness rule, RTE-6; a label respelled or out of key order, OBJ-4/a1."""
        count, in_step = self.count, self.in_step
        self.accept(arguments)
        found = store(exchange)
        if not in_step:
            self.expect_state(found, "the call", describe(exchange))
        expect_one_more(count, found.history_length, lambda: describe(exchange), call=exchange)
        if found.branches != self.labels:
            seen = (f"{self.unlike(StoreState(self.count, found.branches), 'the answer')}: "
                    f"{describe(exchange)}")
            raise Contradiction(self.labels_record(found.branches), seen)
        self.answered.update(found.branches)
        self.in_step, self.guessed = True, 0


@dataclass(frozen=True)
class LabelSpace:
    """Label names fresh to the shared process for one example (drawn from the OS, not from hypothesis), so
    a replayed or shrunk example meets the same, empty, part of the store and fails the same way."""

    nonce: str = field(default_factory=lambda: secrets.token_hex(4))
    base: int = field(default_factory=lambda: secrets.randbelow(MAX_ARRAY_INDEX - LABEL_OFFSETS))

    def name(self, spec: tuple[LabelKind, str | int]) -> str:
        kind, value = spec
        if kind == "text":
            return f"{value}·{self.nonce}"
        if kind == "index":
            return str(self.base + int(value))
        if kind == "beyond-index":
            return str(MAX_ARRAY_INDEX + 1 + self.base + int(value))
        return ""


def respelled(label: str, listed: tuple[str, ...]) -> list[str]:
    """The labels listed that are `label` in another spelling: with a prefix or suffix (a fork's path label,
    "parent/label"), in another case, with other spacing around it, or escaped (a backslash before markdown's
    characters, "my\\_branch" for "my_branch"; an HTML entity, "a&amp;b" for "a&b")."""
    if not label:
        return []
    return [found for found in listed if found != label and (
        found.endswith(label) or found.startswith(label) or found.lower() == label.lower()
        or found.strip() == label.strip() or unescaped(found) == label)]


_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def unescaped(text: str) -> str:
    """`text` with its backslash escapes and HTML entities read: a label a fork escaped, unescaped."""
    return html.unescape(_ESCAPE.sub(r"\1", text))
