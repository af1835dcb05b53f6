"""Scrapy download components: the HTTP download handler, the downloader, the SSRF-
guarded DNS resolver and the request fingerprinter.
"""
