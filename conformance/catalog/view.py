"""The catalog as reports and the CLI read it: aliases as a reviewer writes them, reasons in one line."""

from __future__ import annotations

from dataclasses import dataclass

from conformance.catalog.records import Catalog, CatalogError, Record, default_catalog
from conformance.core.errors import HarnessError


class CatalogUnavailable(HarnessError):
    """The records catalog cannot be loaded (a broken checkout or install)."""


@dataclass(frozen=True)
class RecordRow:
    """One catalog record, flattened for verdicts and listings (satisfies `verdicts.CatalogRecord`)."""

    record: Record

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def kind(self) -> str:
        return self.record.kind

    @property
    def aliases(self) -> list[str]:
        """Registered lens IDs bare (EPI-3), 000's content mappings qualified (000:RTE-7)."""
        return [a.id if a.bare else a.qualified for a in self.record.aliases]

    @property
    def statement(self) -> str:
        return self.record.statement

    @property
    def evidence_before(self) -> str:
        return self.record.evidence_before

    @property
    def observable(self) -> bool:
        return self.record.observable

    @property
    def unobservable_reason(self) -> str | None:
        reason = self.record.unobservable_reason
        if reason is None:
            return None
        note = self.record.unobservable_note
        return f"{reason}: {note}" if note else reason

    def channel_names(self) -> list[str]:
        return list(self.record.channels) or ["none"]

    def anchor_texts(self) -> list[str]:
        return [
            f"{a.seed} {a.section}" + (f": {', '.join(a.refs)}" if a.refs else "")
            for a in self.record.anchors
        ]


@dataclass(frozen=True)
class CatalogView:
    catalog: Catalog
    records: list[RecordRow]
    canonical: dict[str, str]

    @property
    def observable_count(self) -> int:
        return sum(r.observable for r in self.records)


def load_catalog_view() -> CatalogView:
    try:
        catalog = default_catalog()
    except (CatalogError, FileNotFoundError) as exc:
        raise CatalogUnavailable(
            f"the records catalog cannot be loaded: {str(exc).splitlines()[0]}"
        ) from None
    canonical = {**catalog.aliases(), **{r.id: r.id for r in catalog.records}}
    return CatalogView(catalog, [RecordRow(r) for r in catalog.records], canonical)
