"""Page extraction in worker processes: the pool, the worker's entry point, the result it
sends back, and garbage-collector tuning. Pure: no Scrapy, no Twisted.
"""
