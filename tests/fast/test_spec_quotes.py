"""Every spec record's quote is the specification's own words: a substring of the excerpt of the revision and
file it names (fixtures/spec_excerpts.yaml, copied at one commit), layout aside. A paraphrase, a stitched
quote or a quote from another revision's file fails here."""

from __future__ import annotations

import pytest

from conformance.catalog.spec_excerpts import default_excerpts, holds_quote, normalized
from conformance.catalog.spec_records import Quote, SpecRecord, default_spec_catalog

RECORDS = default_spec_catalog().records
QUOTES = [(record, quote) for record in RECORDS for quote in record.quotes]


@pytest.mark.parametrize(("record", "quote"), QUOTES, ids=[f"{r.id}-{q.revision}" for r, q in QUOTES])
def test_each_quote_is_verbatim_from_its_revision_and_path(record: SpecRecord, quote: Quote) -> None:
    assert quote.path.split("/")[-2 if quote.path.startswith("schema/") else 2] == quote.revision, (
        f"{record.id}: {quote.path} is not a file of {quote.revision}")
    assert quote.revision in record.revisions or quote.revision < record.revisions[0], (
        f"{record.id} quotes {quote.revision}, a revision after it binds")
    assert default_excerpts().of(quote.revision, quote.path), (
        f"{record.id}: no excerpt of {quote.revision} {quote.path}")
    assert holds_quote(default_excerpts(), quote.revision, quote.path, quote.text), (
        f"{record.id}'s quote is not in {quote.path} at {quote.revision}:"
        f" {normalized(quote.text, quote.path)!r}")


def test_quotes_were_read_at_the_excerpts_commit() -> None:
    assert default_spec_catalog().provenance.commit == default_excerpts().provenance.commit


def test_a_keyword_level_is_carried_by_the_quoted_words() -> None:
    """MUST and SHOULD records quote their keyword; `guidance` records quote none in upper case."""
    for record in RECORDS:
        words = " ".join(normalized(q.text, q.path) for q in record.quotes)
        if record.level in ("MUST", "SHOULD"):
            assert record.level in words, f"{record.id} is {record.level}, its quotes say {words!r}"
        if record.level == "guidance":
            assert not any(k in words for k in ("MUST", "SHOULD", "REQUIRED")), (
                f"{record.id} is guidance, its quotes carry a keyword: {words!r}")


@pytest.mark.parametrize("edit", [
    lambda t: t.replace("MUST", "SHOULD", 1),
    lambda t: t.replace(" the ", " a ", 1),
    lambda t: t + " always",
    lambda t: t.rsplit(" ", 1)[0] + " never",
])
def test_an_edited_word_fails_every_quote(edit: object) -> None:
    """The check can fail: one word changed in any quote (where the edit changes it) is no longer found."""
    assert callable(edit)
    changed = 0
    for _, quote in QUOTES:
        edited = edit(quote.text)
        if normalized(edited, quote.path) == normalized(quote.text, quote.path):
            continue
        changed += 1
        assert not holds_quote(default_excerpts(), quote.revision, quote.path, edited), (quote.path, edited)
    assert changed


def test_the_same_words_from_another_revision_do_not_pass() -> None:
    """A quote is held against its own revision's file: 2024-11-05's tool list is not 2025-06-18's."""
    spec8 = default_spec_catalog().get("SPEC-8")
    first = spec8.quotes[0]
    later = first.path.replace("2024-11-05", "2025-06-18")
    assert not holds_quote(default_excerpts(), "2025-06-18", later, first.text)
