"""Web sites read as their pages (``zoomrag index https://…``): :func:`crawl`."""

from .crawl import MAX_PAGES, CrawlOptions, CrawlResult, crawl
from .urls import Scope, is_url, normal, under

__all__ = ["MAX_PAGES", "CrawlOptions", "CrawlResult", "Scope", "crawl", "is_url", "normal", "under"]
