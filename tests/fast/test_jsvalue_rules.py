"""reference_server.jsvalue's rules that need no oracle: undefined, NaN and infinities, the plain object's
inherited members and key order, the string length limit (checked against node: tests/e2e/test_jsvalue.py)."""

from __future__ import annotations

import math

import pytest

from reference_server import jsvalue
from reference_server.jsvalue import (
    OBJECT_PROTOTYPE_KEYS,
    UNDEFINED,
    InheritedMember,
    JSRangeError,
    PlainObject,
    json_number,
    number_to_string,
    to_string,
    truthy,
    typeof,
)


def test_truthiness_of_undefined_and_nan() -> None:
    assert not truthy(UNDEFINED)
    assert not truthy(math.nan)
    assert truthy(math.inf)


def test_typeof_undefined() -> None:
    assert typeof(UNDEFINED) == "undefined"
    assert typeof(None) == "object"


def test_string_of_undefined() -> None:
    assert to_string(UNDEFINED) == "undefined"


def test_non_finite_numbers() -> None:
    assert number_to_string(math.nan) == "NaN"
    assert number_to_string(-math.inf) == "-Infinity"
    assert json_number(math.inf) == json_number(math.nan) == "null"
    assert number_to_string(-0.0) == json_number(-0.0) == "0"


def test_inherited_members_are_truthy_and_not_arrays() -> None:
    branches = PlainObject()
    for key in OBJECT_PROTOTYPE_KEYS:
        member = branches.get(key)
        assert isinstance(member, InheritedMember)
    assert branches.get("nope") is UNDEFINED
    with pytest.raises(ValueError, match="prototype"):
        branches.set("__proto__", [])


def test_keys_version_changes_only_on_new_keys() -> None:
    branches = PlainObject()
    branches.set("a", [])
    version = branches.version
    branches.set("a", [])
    assert branches.version == version
    branches.set("7", [])
    assert branches.version == version + 1
    assert branches.keys() == ["7", "a"]


def test_join_past_max_string_length_is_a_range_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The length rule, exercised on a small bound (V8's is 2**29-24: not worth allocating here)."""
    monkeypatch.setattr(jsvalue, "MAX_STRING_LENGTH", 10)
    assert to_string(["abcd", "efgh"]) == "abcd,efgh"
    with pytest.raises(JSRangeError, match="Invalid string length"):
        to_string(["abcde", "efghij"])
