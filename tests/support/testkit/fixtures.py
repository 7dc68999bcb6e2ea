"""pytest fixtures shared across the suite (placeholder)."""
