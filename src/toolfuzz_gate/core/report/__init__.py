"""Report renderers over a diff document: PR-comment Markdown, SARIF, JUnit, annotations (pure).

Every renderer takes the `toolfuzz-diff/1` document and a `ReportContext` and returns text;
the escaping rules for untrusted text all live in `untrusted`.
"""
