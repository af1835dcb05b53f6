"""Finding a website's pages: sitemaps (sitemaps.org protocol). Pure: no Scrapy, no
Twisted.
"""
