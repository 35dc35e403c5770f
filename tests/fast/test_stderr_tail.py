"""The stderr a stop quotes starts at a line: a tail cut inside a line (a server retrying past the 2,000 bytes
quoted) showed the fragment as the server's first line (`drivers/capture.HeadTail.last_lines`)."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from conformance.drivers.capture import HeadTail
from conformance.targets.specs import resolve_target

LINE = st.text(alphabet="abcdefghij :'-", min_size=0, max_size=120)


@given(st.lists(LINE, min_size=1, max_size=80), st.integers(min_value=16, max_value=4000),
       st.integers(min_value=1, max_value=400), st.integers(min_value=1, max_value=500), st.booleans())
def test_the_last_lines_start_at_a_line_the_server_wrote(lines: list[str], store: int, limit: int, chunk: int,
                                                         ended: bool) -> None:
    written = ("\n".join(lines) + ("\n" if ended else "")).encode()
    kept = HeadTail(store)
    for at in range(0, len(written), chunk):
        kept.append(written[at:at + chunk])
    quoted = kept.last_lines(limit)
    assert written.endswith(quoted), (written, quoted)
    start = len(written) - len(quoted)
    raw = kept.last(limit)
    if b"\n" in raw:
        assert start == 0 or written[start - 1:start] == b"\n", (written, quoted)
    if written[len(written) - len(raw) - 1:len(written) - len(raw)] in (b"\n", b"") and written.endswith(raw):
        assert quoted == raw, (raw, quoted)


def test_a_server_retrying_past_the_quoted_bytes_is_quoted_by_whole_lines(tmp_path: Path) -> None:
    """enhanced-mcp-memory under --call-timeout 60 wrote a minute of retries: the stop's first quoted line
    began mid-line. Every line quoted now is one the server wrote whole."""
    from conformance.cli.runner.preflight import preflight

    never = Path(__file__).resolve().parent.parent / "servers" / "never_answers.py"
    seen = preflight(resolve_target(f"cmd:{sys.executable} {never} --chatty"), tmp_path, 2.0, None).preflight
    written = {f"retry-{n:02d}:waiting-for-models.invalid/all-MiniLM-L6-v2/resolve/main/modules.json;"
               "next-in-1s" for n in range(1, 41)}
    assert seen.stderr_lines and set(seen.stderr_lines) <= written, seen.stderr_lines
    assert seen.stderr_tail.splitlines()[0] in written, seen.stderr_tail[:200]
