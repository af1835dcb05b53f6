"""Scrapy feed components: the JSON lines exporter and the feed storage."""
