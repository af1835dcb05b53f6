"""Markdown folder tree pipeline (placeholder; being written)."""

from __future__ import annotations

from typing import Any


class MarkdownTreePipeline:
    """Passes rows through unchanged until the folder tree is implemented."""

    def process_item(self, item: Any) -> Any:
        return item
