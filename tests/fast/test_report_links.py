"""The link checker the end-to-end tests run over every report they write finds what points nowhere."""

from __future__ import annotations

from pathlib import Path

from tests.report_links import broken_links, links_of


def test_a_missing_transcript_is_found_and_present_files_anchors_and_urls_pass(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "transcripts").mkdir(parents=True)
    (out / "transcripts" / "reference.jsonl").write_text("{}\n", encoding="utf-8")
    (out / "report.md").write_text(
        "[ok](transcripts/reference.jsonl) [gone](transcripts/npm\\_2026.7.4.jsonl) [top](#records) "
        "[site](https://example.org/x) [json](report.json \"title\")\n"
        "Transcripts: `transcripts/reference.jsonl`, `transcripts/gone.jsonl`\n", encoding="utf-8")
    (out / "report.html").write_text(
        '<a href="transcripts/reference.jsonl">ok</a><a href="transcripts/npm_2026.7.4.jsonl#L1">gone</a>'
        '<a href="#records">top</a><img src="data:image/png;base64,AA"><a href="report%2Ejson">json</a>'
        "<p>Every test's exchange is in <code>transcripts/npm_2026.7.4.jsonl</code>; <code>x = 1</code></p>",
        encoding="utf-8")
    (out / "report.json").write_text("{}", encoding="utf-8")
    assert broken_links(tmp_path) == [
        "out/report.md: transcripts/npm_2026.7.4.jsonl",
        "out/report.md: transcripts/gone.jsonl",
        "out/report.html: transcripts/npm_2026.7.4.jsonl#L1",
        "out/report.html: transcripts/npm_2026.7.4.jsonl",
    ]


def test_markdown_link_targets_are_read_unescaped(tmp_path: Path) -> None:
    page = tmp_path / "report.md"
    page.write_text("see [the transcript](<transcripts/a\\_b.jsonl>) and [x](y.md)", encoding="utf-8")
    assert links_of(page) == ["transcripts/a_b.jsonl", "y.md"]
