"""The mail and page templates (docs/architecture.md, "Templates"): kept at the top of the
checkout beside engine/ and pbem/, shipped as the package pbem.templates (setup.py)."""
