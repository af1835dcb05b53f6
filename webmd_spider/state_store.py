"""Per-job page state for incremental recrawls (placeholder; being written)."""
