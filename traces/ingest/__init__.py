"""Every way a trace comes in ends in ingest.store.spans_store.

- OTLP/HTTP at /v1/traces (otlp.py): protobuf or JSON, gzip allowed; token in
  `Authorization: Bearer`, `x-api-key` or Basic auth's password; the project as every way in
  chooses it (traces/projects.py): `x-evalsite-project` or Basic auth's username, else the
  resource attribute `evalsite.project`, else "default".
- Span-tree JSON at POST /api/traces/ (span_tree.py) and transcripts (transcripts.py).
- JSONL, one trace per line (jsonl.py): POST /api/traces/bulk/, the trace list upload, and
  `manage.py ingest`.

Attribute names of every convention are read through one table (conventions.py).
"""
