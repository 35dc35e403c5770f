"""Files the harness reads may come from a fork's pull request: whatever a baseline, a report.json, an
atlas.json or a fork's package.json holds (binary, endless, deep, aliased, markup, control characters), the
command answers with a documented exit status and one line naming the file, never a traceback."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from unittest.mock import patch

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.core import inputs
from conformance.core.errors import InputError
from conformance.core.inputs import MAX_DEPTH, parse_json, parse_yaml, read_bytes
from conformance.drivers.errors import TargetError
from conformance.gate.baseline import load_baseline
from conformance.gate.exit_status import USAGE
from conformance.report.json import load_report
from conformance.targets.specs import resolve_target
from tests.cli import REPO, Ran, assert_one_clean_error_line, cli_here

REPORT = REPO / "reports" / "npm-0.6.2" / "report.json"
DEEP = 100_000

nasty_text = st.lists(
    st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(["\x1b[31m", "\u202e", "\n# heading", "<script>", "](javascript:x)", "\x00", "*a"]),
    ),
    max_size=12,
).map("".join)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | nasty_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(nasty_text, inner, max_size=4),
    max_leaves=20,
)


def deep_json(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def deep_yaml(depth: int) -> str:
    return "".join("  " * level + "- \n" for level in range(depth - 1)) + "  " * (depth - 1) + "- 1\n"


LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
)
HOSTILE: dict[str, bytes] = {
    "binary": bytes(range(256)) * 4,
    "latin-1": "déviation".encode("latin-1"),
    "deep-json": deep_json(DEEP).encode(),
    "deep-array": b"[" * DEEP,
    "deep-yaml": deep_yaml(2 * MAX_DEPTH).encode(),
    "yaml-flow-deep": b"[" * DEEP + b"]" * DEEP,
    "billion-laughs": LAUGHS.encode(),
    "empty": b"",
    "a-list": b"[1, 2, 3]\n",
    "nul": b"\x00" * 100,
}


def clean_refusal(ran: Ran, path: Path) -> None:
    assert ran.code == USAGE, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert str(path) in ran.stderr


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_report_is_refused_by_diff_and_baseline(name: str, tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_bytes(HOSTILE[name])
    clean_refusal(cli_here("diff", str(path), str(REPORT)), path)
    clean_refusal(cli_here("baseline", str(path)), path)


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_baseline_is_refused_and_left_as_it_was(name: str, tmp_path: Path) -> None:
    path = tmp_path / "baseline.yaml"
    path.write_bytes(HOSTILE[name])
    clean_refusal(cli_here("baseline", str(REPORT), "--refresh", str(path)), path)
    assert path.read_bytes() == HOSTILE[name]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_atlas_is_refused_by_merge(name: str, tmp_path: Path) -> None:
    part = tmp_path / "part"
    part.mkdir()
    (part / "atlas.json").write_bytes(HOSTILE[name])
    out = tmp_path / "out"
    ran = cli_here("atlas", "--merge", str(part), "--out", str(out), "--no-compare")
    clean_refusal(ran, part / "atlas.json")
    assert not out.exists()


def test_a_device_is_refused_before_it_is_read_and_a_file_is_read_no_further_than_its_limit(
    tmp_path: Path,
) -> None:
    with pytest.raises(InputError, match=r"baseline /dev/zero is not a regular file \(a character device\)"):
        load_baseline(Path("/dev/zero"))
    with pytest.raises(InputError, match=r"is not a regular file \(a character device\)"):
        read_bytes(Path("/dev/urandom"), limit=1024)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 1025)
    with pytest.raises(InputError, match=r"is larger than 1024 bytes"):
        read_bytes(big, limit=1024)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=json_values, as_yaml=st.booleans())
def test_any_document_is_a_baseline_or_one_line_naming_the_file(
    tmp_path: Path, document: object, as_yaml: bool
) -> None:
    path = tmp_path / "baseline.yaml"
    path.write_text(yaml.safe_dump(document) if as_yaml else json.dumps(document), encoding="utf-8")
    try:
        load_baseline(path)
    except InputError as exc:
        assert "\n" not in str(exc) and str(path) in str(exc)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=json_values)
def test_any_document_is_a_report_or_one_line_naming_the_file(tmp_path: Path, document: object) -> None:
    path = tmp_path / "report.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(InputError) as refused:
        load_report(path)
    assert "\n" not in str(refused.value) and str(path) in str(refused.value)


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=300))
def test_any_bytes_parse_or_fail_as_input_errors(data: bytes) -> None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    for parse in (parse_json, parse_yaml):
        try:
            parse(text, "file")
        except InputError as exc:
            assert "\n" not in str(exc)


@given(depth=st.integers(1, 3 * MAX_DEPTH))
def test_nesting_is_refused_exactly_beyond_the_limit(depth: int) -> None:
    for parse, text in ((parse_json, deep_json(depth)), (parse_yaml, deep_yaml(depth))):
        if depth <= MAX_DEPTH:
            parse(text, "file")
        else:
            with pytest.raises(InputError, match="nests deeper"):
                parse(text, "file")


@pytest.mark.parametrize("name", ["binary", "deep-json", "deep-array", "a-list"])
def test_a_forks_hostile_package_json_is_refused_in_one_line_or_names_no_project(
    name: str, tmp_path: Path
) -> None:
    (tmp_path / "package.json").write_bytes(HOSTILE[name])
    (tmp_path / "dist").mkdir()
    script = tmp_path / "dist" / "index.js"
    script.write_text("", encoding="utf-8")
    spec = f"cmd:{sys.executable} {script}"
    if name == "a-list":
        assert resolve_target(spec).identity.package_name is None
        return
    with pytest.raises(TargetError) as refused:
        resolve_target(spec)
    assert "\n" not in str(refused.value) and str(tmp_path / "package.json") in str(refused.value)


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _nodes(value: object) -> int:
    if isinstance(value, dict):
        return 1 + len(value) + sum(map(_nodes, value.values()))
    if isinstance(value, list):
        return 1 + sum(map(_nodes, value))
    return 1


escapes = st.lists(st.sampled_from(['"', "\\", "[", "]", "{", "}", ",", ":", "\\u", "a"]), max_size=8).map(
    "".join
)
tricky_values = st.recursive(
    st.none() | st.integers() | nasty_text | escapes,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(nasty_text | escapes, inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(document=tricky_values, chunk=st.integers(1, 12), indent=st.sampled_from([None, 1]))
def test_the_linear_scan_measures_nesting_exactly_wherever_its_chunks_end(
    document: object, chunk: int, indent: int | None
) -> None:
    """The scan that refuses deep or crowded JSON before it is parsed skips strings (escaped quotes and
    backslashes included) chunk by chunk: whatever the chunk size, it finds the document's own depth, and
    counts at most two values for each value or key the document holds (an empty container counts twice)."""
    text = json.dumps(document, indent=indent)
    depth = _depth(document)
    with patch.object(inputs, "_CHUNK", chunk):
        assert parse_json(text, "file", depth=depth, values=2 * _nodes(document) + 1) == document
        if depth > 0:
            with pytest.raises(InputError, match=f"nests deeper than {depth - 1} levels"):
                parse_json(text, "file", depth=depth - 1)


@given(items=st.integers(0, 200), limit=st.integers(1, 200))
def test_values_beyond_the_limit_are_refused_before_parsing(items: int, limit: int) -> None:
    text = json.dumps([[0]] * items)
    counted = 2 * items if items else 1  # each `[` and `,` outside strings
    if counted < limit:
        assert parse_json(text, "file", values=limit) == [[0]] * items
    else:
        with pytest.raises(InputError, match=f"holds more than {limit:,} values"):
            parse_json(text, "file", values=limit)


@given(text=st.lists(st.characters(codec="utf-8") | st.sampled_from(["\ud800", "\udfff", "\ud83d\ude00"]))
       .map("".join))
def test_a_json_string_is_read_exactly_when_it_is_unicode_text(text: str) -> None:
    """`"\\ud800"` is valid JSON yet no UTF-8 text: refused, as no writer could write it back (an escaped
    pair, `"\\ud83d\\ude00"`, is one character and read)."""
    escaped = json.dumps([text, {text: 1}])
    loaded = json.loads(escaped)
    try:
        json.dumps(loaded, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        with pytest.raises(InputError, match="lone surrogate"):
            parse_json(escaped, "file")
    else:
        assert parse_json(escaped, "file") == loaded


@pytest.mark.parametrize("text", [
    "a: 1\nb: 2\na: 3\n",
    "- {x: 1, x: 1}\n",
    "outer:\n  inner: 1\n  inner: 2\n",
    "{'a': 1, \"a\": 2}\n",
])
def test_a_yaml_key_given_twice_is_refused(text: str) -> None:
    with pytest.raises(InputError, match="appears twice in one mapping"):
        parse_yaml(text, "file")


@given(items=st.integers(0, 100), limit=st.integers(1, 100))
def test_yaml_values_beyond_the_limit_are_refused_as_they_are_composed(items: int, limit: int) -> None:
    text = yaml.safe_dump([0] * items)
    if items + 1 <= limit:
        assert parse_yaml(text, "file", values=limit) == [0] * items
    else:
        with pytest.raises(InputError, match=f"holds more than {limit:,} values"):
            parse_yaml(text, "file", values=limit)
