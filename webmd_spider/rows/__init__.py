"""The rows a crawl writes, before the feed: a page's row fields from its Document, the
run ledger (counters, refusals, the site rows' numbers) and the Markdown file tree.
Pure: no Scrapy, no Twisted.
"""
