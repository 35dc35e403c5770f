"""A `cmd:` target started with environment variables keeps its command and each variable apart in compare's
labels: shortened together, agiprolabs-ts' B read "node …/build/agiprolabs-ts/data +TRANSPORT_MODE=stdio", a
data folder in place of the server's entry file, and DATA_PATH's name gone (round 14)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.labels import MAX_ENV_VALUE, default_labels

_names = st.from_regex(r"[A-Z][A-Z0-9_]{0,11}", fullmatch=True)
_values = st.lists(st.text(alphabet="abcdefghij-_", min_size=1, max_size=12), min_size=1, max_size=6).map(
    lambda parts: "/" + "/".join(parts))


@given(env=st.dictionaries(_names, _values, min_size=1, max_size=3),
       depth=st.integers(min_value=1, max_value=8))
def test_a_long_command_keeps_its_entry_file_and_every_variable_s_name(env: dict[str, str],
                                                                       depth: int) -> None:
    folder = "/".join(f"part{i}" for i in range(depth))
    words = " ".join(f"{k}={v}" for k, v in sorted(env.items()))
    _, label = default_labels("npm:0.6.2", f"{words} cmd:node /work/{folder}/build/fork-ts/dist/index.js")
    command, *variables = label.split(" +")
    assert command.startswith("node ") and command.endswith("/dist/index.js"), label
    assert [v.split("=", 1)[0] for v in variables] == sorted(env), label
    for variable in variables:
        value = variable.split("=", 1)[1]
        assert len(value) <= MAX_ENV_VALUE, label
        name = variable.split("=", 1)[0]
        assert env[name].endswith(value.removeprefix("…")), (label, env)


def test_agiprolabs_label() -> None:
    spec = ("DATA_PATH=/work/r14-wild/build/agiprolabs-ts/data TRANSPORT_MODE=stdio "
            "cmd:node /work/r14-wild/build/agiprolabs-ts/dist/index.js")
    assert default_labels("npm:0.6.2", spec) == (
        "0.6.2", "node /work/r14-wild/build/agiprolabs-ts/dist/index.js +DATA_PATH=…/agiprolabs-ts/data "
        "+TRANSPORT_MODE=stdio")
