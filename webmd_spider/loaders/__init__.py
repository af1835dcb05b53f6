"""Document loaders for RAG frameworks over :func:`webmd_spider.api.crawl`
(optional extras: ``webmd_spider[langchain]``, ``webmd_spider[llamaindex]``).

``from webmd_spider.loaders import WebmdLoader`` (LangChain) or ``WebmdReader``
(LlamaIndex). Each is imported on first use, so one extra works without the other
and ``import webmd_spider.loaders`` needs neither.
"""

from __future__ import annotations

import importlib
from typing import Any

#: exported name -> the module defining it (imported on first access)
_EXPORTS = {
    "WebmdLoader": "webmd_spider.loaders.langchain",
    "WebmdReader": "webmd_spider.loaders.llamaindex",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
