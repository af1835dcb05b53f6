"""URL to Markdown file paths for the folder tree output (placeholder; being written)."""
