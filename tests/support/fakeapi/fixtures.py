"""pytest fixtures for the fake API server (placeholder)."""
