"""Evidence reports: the report model and its writers (JSON, Markdown, HTML, JUnit)."""
