"""The links and images of a rendered region: each ``href`` and image source resolved
against the page, same-page references kept apart, and every page linked and every
image listed once (`Document.links`, `Document.images`), a link marked internal when
it stays on the page's site.
"""

from __future__ import annotations

import re

from lxml import etree

from webmd_spider.extract.document import Image, Link
from webmd_spider.extract.inline import image_source, is_http, resolve
from webmd_spider.urls import site_key

MAX_IMAGES = 100
_STRING = etree.XPath("string()")
_WORDY = re.compile(r"\w").search
#: a URL that names its scheme ("mailto:", "ftp:") or its host ("//cdn.example/")
_NOT_RELATIVE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|//").match


class Targets:
    """What the links and images of one region lead to, with the lists they make."""

    def __init__(self, *, base_url: str, page_site: str, keep_links: bool) -> None:
        self.base_url = base_url
        self.page_url = base_url.split("#", 1)[0]
        self.page_site = page_site
        self.keep_links = keep_links
        self.links: list[Link] = []
        self.images: list[Image] = []
        self._seen_links: set[str] = set()
        self._seen_images: set[str] = set()
        self._sites: dict[str, str] = {}

    def _site(self, url: str) -> str:
        cut = url.find("/", url.find("//") + 2)
        origin = url if cut < 0 else url[:cut]
        site = self._sites.get(origin)
        if site is None:
            try:
                site = site_key(origin)
            except ValueError:
                site = ""
            self._sites[origin] = site
        return site

    def _listable(self, url: str) -> bool:
        """Whether ``url`` is a link or image to keep: http(s); or, on a page without a
        base URL (``webmd convert`` without ``--url``), a relative reference as written."""
        return is_http(url) or (not self.base_url and _NOT_RELATIVE(url) is None)

    def link(self, el: etree._Element) -> tuple[str, Link | None] | None:
        """(URL, the page's new `Link` if it is one) of the link `el`; None when it
        leads nowhere the Markdown could keep."""
        href = el.get("href")
        if not href:
            return None
        in_page = href.lstrip()[:1] == "#"
        if in_page:
            # a same-page reference ("see Defining Functions") keeps its target: the page's
            # URL and the fragment. Not a link of the page (`links`): never a crawl target.
            fragment = href.strip()[1:]
            if not fragment or not self.page_url or not self.keep_links:
                return None
            if not _WORDY(str(_STRING(el))):
                return None  # a back-reference mark ("^", "↑"): a control, no reference
            url: str | None = f"{self.page_url.partition('#')[0]}#{fragment}"
        else:
            url = resolve(self.base_url, href)
        if url is None:
            return None
        page, _, fragment = url.partition("#")
        in_page = in_page or bool(fragment and page == self.page_url)
        listed: Link | None = None
        if not in_page and self._listable(page) and page not in self._seen_links:
            self._seen_links.add(page)
            site = self._site(page)
            # a relative link (no base to resolve it against) stays on the page's site
            internal = not is_http(page) or (bool(site) and site == self.page_site)
            listed = Link(text="", url=page, internal=internal)
            self.links.append(listed)
        return url, listed

    def image(self, el: etree._Element) -> tuple[str, str] | None:
        """(URL, alt text) of the image `el`, listed once (up to `MAX_IMAGES`); None
        without an http(s) source."""
        raw = image_source(el)
        url = resolve(self.base_url, raw) if raw else None
        if not url or not self._listable(url):
            return None
        alt = " ".join((el.get("alt") or "").split())
        if url not in self._seen_images and len(self.images) < MAX_IMAGES:
            self._seen_images.add(url)
            self.images.append(Image(src=url, alt=alt))
        return url, alt
