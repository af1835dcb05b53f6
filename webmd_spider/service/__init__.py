"""Services over the Python API (:mod:`webmd_spider.api`): the ``POST /web/crawl`` HTTP
API (``webmd serve``) and the MCP server for agents (``webmd mcp``). Thin layers: every
crawl is :func:`webmd_spider.api.crawl`, every conversion :func:`webmd_spider.api.convert`."""
