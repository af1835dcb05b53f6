"""Pure extraction: HTML bytes in, a `Document` (Markdown, text, metadata) out.

No Scrapy or Twisted here (checked by import-linter), so it can be used and
tested on its own.
"""

from webmd_spider.extract.document import Document, ExtractOptions, Heading, Image, Link
from webmd_spider.extract.extractor import extract

#: Bumped whenever a change to the engine changes its output for some page: incremental
#: recrawls compare it with the version their state was written with, and convert every
#: page again when it differs (a stored content hash says nothing about new output).
EXTRACTOR_VERSION = "2026.12.02"

__all__ = ["EXTRACTOR_VERSION", "Document", "ExtractOptions", "Heading", "Image", "Link", "extract"]
