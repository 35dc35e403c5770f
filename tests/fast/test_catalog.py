"""Meta-tests of the records catalog: it is complete against the canonical seed, invents nothing, and its
validators, aliases and the `evidences` marker fail where they must."""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import os
import re
import sys
import textwrap
import uuid
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import pytest
import yaml

from conformance.catalog.fixtures import fixtures_dir
from conformance.catalog.records import (
    MARKER,
    RELIES_MARKER,
    Catalog,
    CatalogError,
    Kind,
    UnknownRecordError,
    default_catalog,
    evidences,
    load_catalog,
    relies_on,
)
from conformance.catalog.spec_records import default_spec_catalog

REPO = Path(__file__).resolve().parents[2]
FIXTURES = fixtures_dir()
CATALOG_FILE = FIXTURES / "records.yaml"
SCHEMA_FILE = FIXTURES / "schemas" / "records.schema.json"
SEED_NAME = "003_7eaef5fb4a653dd7.txt"
SEED_FILE = FIXTURES / "seeds" / SEED_NAME
LENS_DIR = Path(os.environ.get("SEQTHINK_LENS_SEEDS", str(REPO.parent / "shared" / "seeds")))

REGISTER_ID = re.compile(r"\b(?:CMP|OBJ|RTE|CLM|ABS|BAP)-[0-9]+[ab]?(?:/[ac][0-9]+)?(?![0-9A-Za-z])")
LENS_TAG = re.compile(r"\b(?:EPI|MEM)-(?:AMD-|CORR-)?[0-9]+\b")


def _seed_text() -> str:
    return SEED_FILE.read_text(encoding="utf-8")


def _record_block(text: str, number: int) -> str:
    """The body of `Record <number> — ...` up to the next record heading (or the end)."""
    start = re.search(rf"^Record {number} — ", text, re.M)
    assert start is not None, f"seed has no 'Record {number}' heading"
    end = re.search(rf"^Record {number + 1} — ", text[start.end():], re.M)
    return text[start.end(): start.end() + end.start()] if end else text[start.end():]


def canonical_ids_from_seed() -> set[str]:
    """What the seed itself registers, independently of the catalog."""
    text = _seed_text()
    register = set(REGISTER_ID.findall(_record_block(text, 4)))
    loops = set(re.findall(r"\bLOOP-[A-Z]\b", _record_block(text, 5)))
    external = set(re.findall(r"^(EXT-[0-9]+)\t", _record_block(text, 2), re.M))
    sources = set(re.findall(r"^(SRC-[0-9]+)\t", _record_block(text, 3), re.M))
    return register | loops | external | sources


def _raw() -> dict[str, object]:
    data = yaml.safe_load(CATALOG_FILE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _schema_validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _records(data: dict[str, object]) -> list[dict[str, object]]:
    records = data["records"]
    assert isinstance(records, list)
    return records


def _find(data: dict[str, object], record_id: str) -> dict[str, object]:
    return next(r for r in _records(data) if r["id"] == record_id)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


# ------------------------------------------------------------------ validation


def test_file_validates_against_json_schema() -> None:
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in _schema_validator().iter_errors(_raw())]
    assert errors == []


def test_file_validates_against_model(catalog: Catalog) -> None:
    """The seed's records, then the specification's (fixtures/spec_records.yaml), in that order."""
    spec_ids = [record.id for record in default_spec_catalog().records]
    assert len(catalog) == len(_records(_raw())) + len(spec_ids)
    assert list(catalog.ids[-len(spec_ids):]) == spec_ids


def test_default_catalog_is_the_fixture_file(catalog: Catalog) -> None:
    assert default_catalog().ids == catalog.ids


def _drop_expectation(d: dict[str, object]) -> None:
    del _find(d, "RTE-3")["expectation"]


def _observable_with_reason(d: dict[str, object]) -> None:
    _find(d, "RTE-3")["unobservable_reason"] = "host-owned"


def _unobservable_without_reason(d: dict[str, object]) -> None:
    del _find(d, "EXT-2")["unobservable_reason"]


def _amendment_without_annotates(d: dict[str, object]) -> None:
    del _find(d, "OBJ-4/a2")["annotates"]


def _unknown_channel(d: dict[str, object]) -> None:
    _find(d, "RTE-9")["channels"] = ["stdout"]


def _kind_mismatch(d: dict[str, object]) -> None:
    _find(d, "ABS-3")["kind"] = "rte"


def _alias_relation_for_000(d: dict[str, object]) -> None:
    aliases = _find(d, "RTE-6")["aliases"]
    assert isinstance(aliases, list)
    aliases[0]["relation"] = "registered-as"


BOTH_REJECT: list[Callable[[dict[str, object]], None]] = [
    _drop_expectation,
    _observable_with_reason,
    _unobservable_without_reason,
    _amendment_without_annotates,
    _unknown_channel,
    _kind_mismatch,
    _alias_relation_for_000,
]


@pytest.mark.parametrize("mutate", BOTH_REJECT, ids=lambda f: f.__name__.strip("_"))
def test_schema_and_model_both_reject(mutate: Callable[[dict[str, object]], None]) -> None:
    data = copy.deepcopy(_raw())
    mutate(data)
    assert list(_schema_validator().iter_errors(data)), "schema accepted a broken catalog"
    with pytest.raises(ValueError):
        Catalog.model_validate(data)


def _duplicate_id(d: dict[str, object]) -> None:
    _records(d).append(copy.deepcopy(_find(d, "RTE-3")))


def _dangling_annotates(d: dict[str, object]) -> None:
    _find(d, "RTE-3/a1")["annotates"] = ["RTE-3", "RTE-99"]


def _alias_is_canonical(d: dict[str, object]) -> None:
    aliases = _find(d, "ABS-12")["aliases"]
    assert isinstance(aliases, list)
    aliases.append({"id": "ABS-11", "seed": "001", "relation": "registered-as"})


def _alias_twice(d: dict[str, object]) -> None:
    aliases = _find(d, "ABS-11")["aliases"]
    assert isinstance(aliases, list)
    aliases.append({"id": "EPI-3", "seed": "001", "relation": "registered-as"})


def _anchor_to_unknown_source(d: dict[str, object]) -> None:
    anchors = _find(d, "RTE-5")["anchors"]
    assert isinstance(anchors, list)
    anchors[0]["refs"] = ["SRC-9:1"]


MODEL_REJECTS: list[Callable[[dict[str, object]], None]] = [
    _duplicate_id,
    _dangling_annotates,
    _alias_is_canonical,
    _alias_twice,
    _anchor_to_unknown_source,
]


@pytest.mark.parametrize("mutate", MODEL_REJECTS, ids=lambda f: f.__name__.strip("_"))
def test_model_rejects_broken_cross_references(mutate: Callable[[dict[str, object]], None]) -> None:
    data = copy.deepcopy(_raw())
    mutate(data)
    with pytest.raises(ValueError):
        Catalog.model_validate(data)


def test_load_catalog_reports_schema_violations(tmp_path: Path) -> None:
    data = copy.deepcopy(_raw())
    _drop_expectation(data)
    broken = tmp_path / "records.yaml"
    broken.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(CatalogError, match=r"records\.schema\.json"):
        load_catalog(broken)


# ------------------------------------------------------------------ completeness against the seed


def test_seed_copy_is_the_registered_document(catalog: Catalog) -> None:
    doc = catalog.provenance.canonical_document
    assert doc.file == SEED_NAME
    assert hashlib.sha256(SEED_FILE.read_bytes()).hexdigest() == doc.sha256
    assert (FIXTURES / "seeds" / "PROVENANCE.md").is_file()


def test_seed_extraction_sees_the_whole_register() -> None:
    """Guards the extractor itself: the families and the amendment forms it must find are there."""
    ids = canonical_ids_from_seed()
    for sample in ("CMP-7", "OBJ-15", "RTE-10", "CLM-1a", "CLM-1b", "ABS-12", "BAP-6", "OBJ-5/c1",
                   "ABS-2/a1", "BAP-1/a1", "CLM-1/a1", "LOOP-C", "EXT-4", "SRC-6"):
        assert sample in ids
    assert len([i for i in ids if "/a" in i]) == 19
    assert len([i for i in ids if "/c" in i]) == 1


def test_every_canonical_id_is_catalogued(catalog: Catalog) -> None:
    missing = sorted(canonical_ids_from_seed() - set(catalog.ids))
    assert missing == [], f"canonical IDs missing from fixtures/records.yaml: {missing}"


def test_catalog_invents_no_id(catalog: Catalog) -> None:
    seed_ids = {record.id for record in catalog.records if record.kind != "spec"}
    invented = sorted(seed_ids - canonical_ids_from_seed())
    assert invented == [], f"catalog IDs not registered in the seed: {invented}"


def test_anchor_refs_are_quoted_from_the_seed(catalog: Catalog) -> None:
    texts = {"003": _seed_text()}
    misquoted = [
        (record.id, ref)
        for record in catalog.records
        for anchor in record.anchors
        for ref in anchor.refs
        if anchor.seed in texts and ref not in texts[anchor.seed]
    ]
    assert misquoted == []


def test_every_record_of_the_register_has_an_anchor_ref(catalog: Catalog) -> None:
    anchored = catalog.by_kind("cmp", "obj", "rte", "clm", "amendment", "correction")
    bare = [r.id for r in anchored if not any(a.refs for a in r.anchors)]
    assert bare == []


# ------------------------------------------------------------------ amendments, observability, vocabulary


def test_every_amendment_annotates_existing_records(catalog: Catalog) -> None:
    for record in catalog.by_kind("amendment", "correction"):
        assert record.annotates, record.id
        assert record.annotates[0] == record.base_id, record.id
        for target in record.annotates:
            assert target in catalog, (record.id, target)
            assert catalog.get(target).kind not in ("amendment", "correction"), (record.id, target)
        suffix = "/c" if record.kind == "correction" else "/a"
        assert suffix in record.id


def test_annotations_are_found_from_the_parent(catalog: Catalog) -> None:
    assert [r.id for r in catalog.annotations_of("OBJ-4")] == ["OBJ-4/a1", "OBJ-4/a2"]
    assert "OBJ-1/a1" in [r.id for r in catalog.annotations_of("RTE-5")]


def test_every_unobservable_record_says_why(catalog: Catalog) -> None:
    for record in catalog.unobservable():
        assert record.unobservable_reason in catalog.vocabulary.unobservable_reasons, record.id
        assert record.unobservable_note and record.unobservable_note.strip(), record.id
        assert record.expectation is None, record.id


def test_every_observable_record_states_an_expectation(catalog: Catalog) -> None:
    for record in catalog.observable():
        assert record.expectation and len(record.expectation.split()) >= 5, record.id
        assert set(record.channels) <= set(catalog.vocabulary.channels), record.id


def test_observability_partitions_the_catalog(catalog: Catalog) -> None:
    observable = {r.id for r in catalog.observable()}
    unobservable = {r.id for r in catalog.unobservable()}
    assert observable.isdisjoint(unobservable)
    assert observable | unobservable == set(catalog.ids)
    assert {r.id for r in catalog.on_channel("artifact")} <= observable


def test_decisions_the_brief_fixed(catalog: Catalog) -> None:
    """Observability calls made for these records on purpose; a change here is a change of decision."""
    channels = {r.id: set(r.channels) for r in catalog.records}
    assert {"artifact", "wire"} <= channels["CMP-3/a1"]
    assert "artifact" in channels["CMP-6/a1"]
    assert {"artifact", "wire"} <= channels["CMP-2/a1"]
    assert "wire" in channels["ABS-1"]
    assert "wire" in channels["ABS-5"]
    assert channels["ABS-4"] == set()
    assert channels["EXT-2"] == set() and channels["EXT-3"] == set()
    assert "wire" in channels["BAP-2"]
    assert "stderr" in channels["BAP-3"]
    assert "wire" in channels["LOOP-B"]
    assert channels["LOOP-C"] == set()


# ------------------------------------------------------------------ aliases


def test_aliases_are_unique_and_never_canonical(catalog: Catalog) -> None:
    seen: dict[str, str] = {}
    for record in catalog.records:
        for alias in record.aliases:
            keys = [alias.qualified, *([alias.id] if alias.bare else [])]
            for key in keys:
                assert key not in catalog, f"alias {key} of {record.id} is a canonical ID"
                assert key not in seen, f"alias {key} names both {seen[key]} and {record.id}"
                seen[key] = record.id
    assert seen == catalog.aliases()


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("EPI-3", "ABS-12"),
        ("MEM-1", "ABS-11"),
        ("EPI-AMD-8", "OBJ-8/a1"),
        ("MEM-CORR-1", "ABS-2/a1"),
        ("EPI-CORR-1", "OBJ-5/c1"),
        ("001:EPI-9", "CLM-1b"),
        ("000:MEM-1", "OBJ-4/a2"),
        ("000:RTE-7", "RTE-6"),
    ],
)
def test_alias_resolves_to_its_canonical_record(catalog: Catalog, alias: str, canonical: str) -> None:
    assert catalog.by_alias(alias).id == canonical
    assert catalog.resolve(alias).id == canonical


def test_000_numbers_resolve_only_qualified(catalog: Catalog) -> None:
    """000's old numbering reuses canonical-looking IDs for other records; bare, they mean 003's record."""
    assert catalog.resolve("RTE-7").id == "RTE-7"
    assert catalog.resolve("000:RTE-7").id == "RTE-6"


@pytest.mark.skipif(not LENS_DIR.is_dir(), reason=f"lens seeds not found at {LENS_DIR}")
def test_lens_tags_are_all_accounted_for(catalog: Catalog) -> None:
    """Every EPI-*/MEM-* tag a lens defines is an alias or listed unmapped; every alias occurs in its lens."""
    documents = {doc.code: LENS_DIR / doc.file for doc in catalog.provenance.documents if doc.code != "003"}
    texts = {code: path.read_text(encoding="utf-8") for code, path in documents.items()}
    aliases = {(a.seed, a.id) for r in catalog.records for a in r.aliases}
    unmapped = {(u.seed, u.id) for u in catalog.provenance.unmapped_lens_ids}
    for seed in ("001", "002"):
        defined = {(seed, tag) for tag in LENS_TAG.findall(texts[seed])}
        assert defined - aliases - unmapped == set(), f"lens {seed} tags with no canonical record"
    for seed, lens_id in aliases | unmapped:
        assert lens_id in texts[seed], f"{seed}:{lens_id} does not occur in {documents[seed].name}"


# ------------------------------------------------------------------ lookups and the evidences marker


def test_get_refuses_aliases_and_names_the_canonical_id(catalog: Catalog) -> None:
    with pytest.raises(UnknownRecordError, match="ABS-12") as info:
        catalog.get("EPI-3")
    assert info.value.canonical == "ABS-12"
    with pytest.raises(UnknownRecordError) as unknown:
        catalog.get("RTE-99")
    assert unknown.value.canonical is None


def test_by_kind_matches_the_seed_families(catalog: Catalog) -> None:
    seed_ids = canonical_ids_from_seed()
    families: list[tuple[Kind, str]] = [("cmp", "CMP-"), ("rte", "RTE-"), ("abs", "ABS-"), ("bap", "BAP-")]
    for kind, prefix in families:
        expected = {i for i in seed_ids if i.startswith(prefix) and "/" not in i}
        assert {r.id for r in catalog.by_kind(kind)} == expected


def _import_module_source(tmp_path: Path, source: str) -> ModuleType:
    name = f"_evidences_probe_{uuid.uuid4().hex}"
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name, None)
    return module


def test_evidences_marks_functions_and_classes(tmp_path: Path) -> None:
    module = _import_module_source(tmp_path, """
        from conformance.catalog.records import evidences

        @evidences("RTE-3", "RTE-3/a1")
        def test_guard():
            pass

        @evidences("ABS-11")
        class TestMachine:
            pass
    """)
    marks = [m for m in module.test_guard.pytestmark if m.name == "records"]
    assert [m.args for m in marks] == [("RTE-3", "RTE-3/a1")]
    assert [m.args for m in module.TestMachine.pytestmark if m.name == "records"] == [("ABS-11",)]


def test_evidences_fails_at_import_on_unknown_id(tmp_path: Path) -> None:
    with pytest.raises(UnknownRecordError, match="RTE-99"):
        _import_module_source(tmp_path, """
            from conformance.catalog.records import evidences

            @evidences("RTE-3", "RTE-99")
            def test_never_collected():
                pass
        """)


def test_evidences_fails_at_import_on_alias_naming_the_canonical_id(tmp_path: Path) -> None:
    with pytest.raises(UnknownRecordError, match=r"alias .*of ABS-12.*canonical ID 'ABS-12'"):
        _import_module_source(tmp_path, """
            from conformance.catalog.records import evidences

            @evidences("EPI-3")
            def test_never_collected():
                pass
        """)


def test_evidences_needs_distinct_ids() -> None:
    with pytest.raises(ValueError):
        evidences()
    with pytest.raises(ValueError):
        evidences("RTE-3", "RTE-3")


def test_relies_on_marks_beside_evidences(tmp_path: Path) -> None:
    module = _import_module_source(tmp_path, """
        from conformance.catalog.records import evidences, relies_on

        @evidences("OBJ-15")
        @relies_on("RTE-5", "OBJ-4")
        def test_count():
            pass
    """)
    marks = {m.name: m.args for m in module.test_count.pytestmark}
    assert marks == {"records": ("OBJ-15",), "relies": ("RTE-5", "OBJ-4")}


def test_relies_on_fails_at_import_on_unknown_id_or_alias(tmp_path: Path) -> None:
    for name in ("RTE-99", "MEM-1"):
        with pytest.raises(UnknownRecordError, match=name):
            _import_module_source(tmp_path, f"""
                from conformance.catalog.records import relies_on

                @relies_on("RTE-5", "{name}")
                def test_never_collected():
                    pass
            """)
    with pytest.raises(ValueError):
        relies_on()
    with pytest.raises(ValueError):
        relies_on("RTE-5", "RTE-5")


def test_fixtures_resolve_to_the_checkout_when_not_installed() -> None:
    if (Path(__file__).resolve().parents[2] / "conformance" / "_fixtures").exists():
        pytest.skip("an installed-style conformance/_fixtures exists in this checkout")
    assert fixtures_dir() == REPO / "fixtures"


def test_spec_checks_rely_on_the_records_holding_them(catalog: Catalog) -> None:
    """A requirement's `held_by` records are seed records, and its check relies on exactly those: a
    departure of one of them accounts for the requirement's (root causes name the seed record)."""
    import conformance.suite.test_spec_eras as checks

    held = {r.id: set(r.held_by) for r in default_spec_catalog().records}
    assert any(held.values())
    seed = {r.id for r in catalog.records if r.kind != "spec"}
    assert all(ids <= seed for ids in held.values()), held
    relied: dict[str, set[str]] = {}
    for name in dir(checks):
        marks = getattr(getattr(checks, name), "pytestmark", [])
        records = [m.args for m in marks if m.name == MARKER]
        for evidenced in records:
            for record in evidenced:
                relied[record] = {i for m in marks if m.name == RELIES_MARKER for i in m.args}
    assert {r: ids for r, ids in relied.items() if ids} == {r: ids for r, ids in held.items() if ids}
