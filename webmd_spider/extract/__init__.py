"""Pure extraction: HTML bytes in, a `Document` (Markdown, text, metadata) out.

No Scrapy or Twisted here (checked by import-linter), so it can be used and
tested on its own.
"""

from webmd_spider.extract.core import extract
from webmd_spider.extract.document import Document, ExtractOptions, Heading, Image, Link

__all__ = ["Document", "ExtractOptions", "Heading", "Image", "Link", "extract"]
