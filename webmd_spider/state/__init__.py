"""What a crawl remembers between runs: the state store and its backends (memory, sqlite,
redis), change detection of incremental recrawls, the JOBDIR resume journal, and when
a page counts as done. Pure: no Scrapy, no Twisted.
"""
