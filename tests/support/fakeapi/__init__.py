"""Scripted fake LLM API server on 127.0.0.1 for provider tests (placeholder)."""
