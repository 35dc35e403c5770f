"""A call's late stderr is waited for until its box is whole, whatever style a fork draws it in: a relay of a
fork drawing double-line boxes once cut its box at the quiet period (the flap benchmark's one flap)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.drivers.wire import box_open, boxes_complete, settle

_STYLES = {"light": "┌─┐│└─┘", "double": "╔═╗║╚═╝", "rounded": "╭─╮│╰─╯", "heavy": "┏━┓┃┗━┛"}


def _box(style: str, text: str) -> bytes:
    tl, h, tr, v, bl, _, br = _STYLES[style]
    return f"{tl}{h * 8}{tr}\n{v} {text:<6} {v}\n{bl}{h * 8}{br}\n".encode()


@given(st.sampled_from(sorted(_STYLES)), st.text("abc ", min_size=1, max_size=6))
def test_a_box_of_any_style_is_open_until_its_bottom_arrives(style: str, text: str) -> None:
    whole = _box(style, text)
    top_and_body = whole[: whole.rindex(b"\n", 0, len(whole) - 1) + 1]
    assert box_open(top_and_body) and not boxes_complete(top_and_body, 1)
    assert boxes_complete(whole, 1) and not box_open(whole)


@given(st.sampled_from(sorted(_STYLES)))
def test_settle_waits_past_the_quiet_period_for_a_late_bottom(style: str) -> None:
    """The top arrives, then nothing for longer than the quiet period, then the bottom: the wait goes on to
    the limit while the box is open, so the call's stderr is the whole box."""
    whole = _box(style, "late")
    cut = whole.rindex(b"\n", 0, len(whole) - 1) + 1
    held = bytearray(whole[:2])
    chunks: list[bytes | None] = [whole[2:cut], b"", b"", whole[cut:]]

    def read_within(seconds: float) -> bytes | None:
        chunk = chunks.pop(0) if chunks else None
        held.extend(chunk or b"")
        return chunk

    assert settle(read_within, lambda: bytes(held), due=1, quiet=0.0, limit=5.0)
    assert bytes(held) == whole
