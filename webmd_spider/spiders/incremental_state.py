"""The site spider's view of the incremental state store for one run.

Opens the job's store (``-a incremental=true``; named by ``-a state=NAME`` or derived
from the start URLs and scope options), checks that the stored content hashes are
comparable (same extraction settings and extractor version), and answers the spider's
questions: which URLs of a website are known, what is stored for one, and records what
a page looked like this time. A store that cannot be read or written never fails the
run: the problem is logged and added to the run summary's warnings, and from then on
every page is treated as new.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from typing import Any

from webmd_spider.extract import ExtractOptions
from webmd_spider.index.sync import StoredPage, reconcile
from webmd_spider.items import Row, utc_now_iso
from webmd_spider.options import JobOptions, OptionsError
from webmd_spider.rows.ledger import RunLedger, SiteState
from webmd_spider.spiders.responses import content_key
from webmd_spider.state.backends import open_store
from webmd_spider.state.changes import CHANGED, UNCHANGED, change_of, settings_fingerprint
from webmd_spider.state.store import (
    PageState,
    StateLockedError,
    StateStore,
    StateStoreError,
    job_key,
    validate_job_name,
)
from webmd_spider.urls import site_key

logger = logging.getLogger(__name__)

FINGERPRINT_KEY = "settings_fingerprint"
#: Same-website links kept per page in the state (how a 304 still leads on).
MAX_STORED_LINKS = 1000


class IncrementalState:
    """Page state of one incremental job; inert (``enabled`` false) otherwise."""

    def __init__(
        self,
        store: StateStore | None = None,
        fingerprint: str = "",
        ledger: RunLedger | None = None,
    ) -> None:
        self.store = store
        self.fingerprint = fingerprint
        self.ledger = ledger
        self.name = store.job if store is not None else ""
        #: incremental was asked for (rows then always carry a ``change``)
        self.requested = store is not None
        #: the Markdown tree has no files yet: no validators, unchanged rows keep content
        self.fill_tree = False
        self._known: dict[str, set[str]] = {}

    @property
    def enabled(self) -> bool:
        """Whether this run records and compares page state."""
        return self.store is not None

    @classmethod
    def open(
        cls,
        options: JobOptions,
        inputs: Sequence[str],
        extract_options: ExtractOptions,
        ledger: RunLedger,
    ) -> IncrementalState:
        """The run's state: inert unless ``options.incremental``.

        Raises :class:`OptionsError` for an unusable state name or when another run
        holds the same state (two runs writing one state would corrupt each other's
        view of what changed); any other store problem only warns.
        """
        if not options.incremental:
            return cls()
        try:
            name = state_name(options, inputs)
            validate_job_name(name)
        except ValueError as exc:
            raise OptionsError(f"state: {exc}") from None
        # the chunk options shape the rows as much as the extraction options do: a run
        # with other chunk sizes must re-chunk every page, not call it unchanged
        chunking = options.chunk_budget
        fingerprint = settings_fingerprint({**asdict(extract_options), "chunks": list(chunking)})
        store: StateStore
        try:
            if options.redis_url:
                # a distributed crawl: every worker shares the job's state in Redis (no
                # exclusive lock: the workers are one run)
                from webmd_spider.state.redis_store import RedisStateStore

                store = RedisStateStore.connect(options.redis_url, name, exclusive=False)
            else:
                store = open_store(options.state_backend, options.state_dir, name)
        except StateLockedError as exc:
            raise OptionsError(str(exc)) from None
        except StateStoreError as exc:
            _warn(ledger, f"incremental state unavailable, every page is treated as new: {exc}")
            inert = cls(ledger=ledger)
            inert.requested = True
            return inert
        state = cls(store, fingerprint, ledger=ledger)
        try:
            stored = store.get_meta(FINGERPRINT_KEY)
            if stored and stored != fingerprint:
                # each page's own fingerprint then keeps validators off (site.py)
                _warn(
                    ledger,
                    f"state {name!r} was written with other extraction or chunk settings "
                    "or another extractor version: every page is fetched, converted and "
                    "chunked again, and reported as changed",
                )
            store.set_meta(FINGERPRINT_KEY, fingerprint)
            store.set_meta("description", " ".join(inputs)[:500])
            store.set_meta("last_run", utc_now_iso())
        except StateStoreError as exc:
            state._fail(exc)
        logger.info("Incremental crawl: state %r in %s", name, options.state_dir)
        return state

    def _fail(self, exc: StateStoreError) -> None:
        """The store broke mid-run: warn once and carry on without it."""
        _warn(self.ledger, f"incremental state failed, the rest is treated as new: {exc}")
        store, self.store = self.store, None
        self._known.clear()
        if store is not None:
            with contextlib.suppress(StateStoreError):
                store.close()

    def known(self, website: str) -> set[str]:
        """Canonical URLs stored for ``website`` (loaded once per run)."""
        if self.store is None:
            return set()
        urls = self._known.get(website)
        if urls is None:
            try:
                urls = self.store.urls(website)
            except StateStoreError as exc:
                self._fail(exc)
                return set()
            self._known[website] = urls
        return urls

    def reload_known(self) -> None:
        """Forget the known URLs read so far: the next :meth:`known` reads the store
        again (a distributed crawl's other workers record and forget pages)."""
        self._known.clear()

    def meta(self, key: str) -> str | None:
        """Job-level metadata of the state (None when unset or without a store)."""
        if self.store is None:
            return None
        try:
            return self.store.get_meta(key)
        except StateStoreError as exc:
            self._fail(exc)
            return None

    def set_meta(self, key: str, value: str) -> None:
        """Set job-level metadata (a website's lastmod distrust, with its evidence)."""
        if self.store is None:
            return
        try:
            self.store.set_meta(key, value)
        except StateStoreError as exc:
            self._fail(exc)

    def lookup(self, url: str) -> PageState | None:
        """What was stored for the canonical ``url``, if anything."""
        if self.store is None:
            return None
        try:
            return self.store.get(url)
        except StateStoreError as exc:
            self._fail(exc)
            return None

    def record(
        self,
        url: str,
        website: str,
        content_hash: str | None,
        headers: dict[str, str | None],
        links: Iterable[str] = (),
    ) -> None:
        """Store a page as seen now; validators from ``headers`` (lower-case names)."""
        if self.store is None:
            return
        state = PageState(
            url=url,
            website=website,
            etag=headers.get("etag"),
            last_modified=headers.get("last-modified"),
            content_hash=content_hash,
            last_seen=utc_now_iso(),
            settings_fingerprint=self.fingerprint,
            links=list(links),
        )
        try:
            self.store.put(state)
        except StateStoreError as exc:
            self._fail(exc)
            return
        self._known.setdefault(website, set()).add(url)

    def seen_unchanged(self, url: str, website: str, headers: dict[str, str | None]) -> None:
        """A stored page answered 304: seen now, with the validators of ``headers``
        (lower-case names) where it sent some; its hash, links and settings stay (the
        body and its links were not sent again, and the stored hash is still the one
        made with the stored settings)."""
        if self.store is None:
            return
        try:
            self.store.touch(url, utc_now_iso(), headers.get("etag"), headers.get("last-modified"))
        except StateStoreError as exc:
            self._fail(exc)
            return
        self._known.setdefault(website, set()).add(url)

    def compare(
        self,
        website: str,
        row: Row,
        key: str,
        final_key: str,
        links: list[str],
        validators: dict[str, str | None],
    ) -> None:
        """Set a page row's ``change`` against the stored page and store what it is now:
        under `key` (the URL as discovered) and `final_key` (after redirects), so a later
        run knows it whichever way it comes; with the page's same-website `links` (at
        most MAX_STORED_LINKS: how a 304 still leads on). Other extraction settings make
        an unchanged page ``changed`` (the rows a consumer holds are not this run's). An
        unchanged page's row carries no Markdown or text (nothing to re-embed)."""
        stored = self.lookup(key)
        if stored is None and final_key != key:
            stored = self.lookup(final_key)
        row.change = change_of(stored, row.content_hash or "")
        if (
            row.change == UNCHANGED
            and stored is not None
            and stored.settings_fingerprint != self.fingerprint
        ):
            row.change = CHANGED
        for each in {key, final_key}:
            self.record(each, website, row.content_hash, validators, links[:MAX_STORED_LINKS])
        if row.change == UNCHANGED and not self.fill_tree:
            row.markdown = row.text = row.html = None
            row.tables = row.chunks = row.chunk_count = None

    def stored_content(self, site: SiteState) -> dict[bytes, str]:
        """Content hash key (``responses.content_key``) -> canonical URL of the website's
        pages stored with today's extraction settings (read once per website and run,
        kept on `site`; its size is the state's)."""
        index = site.stored_content
        if index is None:
            index = site.stored_content = {}
            store = self.store
            try:
                for state in store.iterate(site.website) if store is not None else ():
                    digest = content_key(state.content_hash)
                    if digest and state.settings_fingerprint == self.fingerprint:
                        index.setdefault(digest, state.url)
            except StateStoreError as exc:
                logger.warning("incremental state: stored content hashes not read: %s", exc)
        return index

    def reconcile(self, target_pages: Mapping[str, str]) -> tuple[int, int]:
        """Make the state agree with a change feed's target before the crawl
        (``index.sync.reconcile``): a page whose stored hash the target does not hold
        loses its hash and validators (fetched whole, reported changed); a page the
        target holds and the state does not is stored without them (asked again; a 404
        removes its chunks). Returns (forgotten, asked)."""
        store = self.store
        if store is None:
            return 0, 0
        states: dict[str, PageState] = {}

        def forget_content(url: str) -> None:
            state = states[url]
            state.content_hash = state.etag = state.last_modified = None
            store.put(state)

        def ask_again(url: str) -> None:
            store.put(PageState(url=url, website=site_key(url), last_seen=utc_now_iso()))

        def stored() -> Iterable[StoredPage]:
            for state in store.iterate():
                states[state.url] = state
                yield StoredPage(state.url, state.content_hash)

        try:
            counts = reconcile(list(stored()), target_pages, forget_content, ask_again)
            store.flush()
        except StateStoreError as exc:
            self._fail(exc)
            return 0, 0
        self._known.clear()
        return counts

    def forget(self, url: str, website: str) -> None:
        """A page is gone (404/410, now disallowed): its state leaves the store."""
        if self.store is None:
            return
        try:
            self.store.delete(url)
        except StateStoreError as exc:
            self._fail(exc)
            return
        self._known.get(website, set()).discard(url)

    def close(self) -> None:
        """Flush and release the store (its lock); safe to call twice."""
        store, self.store = self.store, None
        if store is None:
            return
        try:
            store.close()
        except StateStoreError as exc:
            _warn(self.ledger, f"incremental state could not be saved: {exc}")


def state_name(options: JobOptions, inputs: Sequence[str]) -> str:
    """The name of a job's state and of its distributed crawl: ``-a state=NAME``, else
    derived from the start URLs and the scope options (the same inputs and scope find the
    same state again)."""
    scope = {
        "include": options.include_patterns,
        "exclude": options.exclude_patterns,
        "max_depth": options.max_depth,
        "crawl_links": options.crawl_links,
    }
    if options.follow_subdomains:
        # a wider scope is another job: its subdomains' pages are checked and removed
        # with it (only when on, so the names of existing states do not change)
        scope["follow_subdomains"] = True
    if options.skip_page_types:
        # another set of page rows is another job (only when set, as above): a page of
        # a skipped type must not stay known, and answer 304 as `unchanged`, from a run
        # that wrote it
        scope["skip_page_types"] = sorted(options.skip_page_types)
    return options.state or job_key(inputs, scope)


def _warn(ledger: RunLedger | None, message: str) -> None:
    logger.warning(message)
    if ledger is not None:
        ledger.warn(message)


def validators_of(headers: Any) -> dict[str, str | None]:
    """ETag and Last-Modified of a Scrapy ``Headers`` object, decoded (or None)."""
    found: dict[str, str | None] = {}
    for name in ("ETag", "Last-Modified"):
        value = headers.get(name)
        found[name.lower()] = value.decode("latin-1") if value else None
    return found
