"""The crawl's rules of conduct: robots.txt (RFC 9309), politeness delays and Retry-
After, the SSRF address policy, and crawler-trap detection. Pure: no Scrapy, no
Twisted.
"""
