"""Every way a trace comes in (OTLP, span-tree JSON, transcripts) ends in ingest.services."""
