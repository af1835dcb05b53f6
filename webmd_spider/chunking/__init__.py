"""Embedding-ready chunks of a page's Markdown. Pure: no Scrapy, no Twisted."""
