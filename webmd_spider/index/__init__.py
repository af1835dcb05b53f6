"""The search index and the chunk-level change feed (``webmd crawl --index``,
``--changes``, ``webmd search``). PURE: no Scrapy or Twisted (import-linter checks);
the crawl's pipeline (``pipelines/chunk_sync.py``) calls into it."""
