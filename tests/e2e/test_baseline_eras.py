"""A /4 baseline entry naming its era, on a real release: 2026.7.4 departs from SPEC-10 under a 2025-03-26
client (a batch of two pings gets no answer); an entry naming that era accepts it, one naming 2025-11-25
does not (the gate's logic without servers: tests/fast/test_baseline_eras.py)."""

from __future__ import annotations

from pathlib import Path

import yaml

from conformance.catalog.records import default_catalog
from conformance.gate.baseline import evaluate_gate, load_baseline
from conformance.gate.verdicts import alias_map
from conformance.report.json import load_report
from tests.cli import cli


def _baseline(path: Path, era: str) -> Path:
    entry = {"record": "SPEC-10", "era": era, "reason": "the SDK drops batch arrays"}
    document = {"format": "seqthink-conformance-baseline/4",
                "project": "@modelcontextprotocol/server-sequential-thinking", "deviations": [entry]}
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return path


def test_spec_10_at_2025_03_26_is_accepted_by_an_entry_naming_that_era_only(tmp_path: Path) -> None:
    accepting = _baseline(tmp_path / "at-2025-03-26.yaml", "2025-03-26")
    ran = cli("run", "--target", "npm:2026.7.4", "--era", "2025-03-26", "--select", "spec",
              "--profile", "dev", "--seed", "1", "--baseline", str(accepting), out=tmp_path / "run")
    assert ran.code == 0, ran.stdout[-2000:]
    assert ran.verdicts()["SPEC-10"] == "deviates"
    report = load_report(tmp_path / "run" / "report.json")
    assert report.gate.passed and [e.record for e in report.gate.expected] == ["SPEC-10"]
    other = load_baseline(_baseline(tmp_path / "at-2025-11-25.yaml", "2025-11-25"))
    gate = evaluate_gate(report.records, other, baseline_path="at-2025-11-25.yaml",
                         canonical=alias_map(default_catalog().records))
    assert not gate.passed and [e.record for e in gate.unexpected] == ["SPEC-10"]
    said = gate.unexpected[0].reason
    assert "departs under 2025-03-26; the baseline accepts it under 2025-11-25 only" in said, said
