"""Job options: the typed, validated view of spider arguments, WEBMD_* settings and job
files.

Pure module (standard library and the pure chunking limits). One option has three
spellings that all land here: ``-a max_pages=10``, ``-s WEBMD_MAX_PAGES=10`` and
``{"max_pages": 10}`` in a job file given with ``-a input=job.json``. Precedence, lowest
first: settings, job file, arguments. Unknown names and unusable values raise
:class:`OptionsError` with a message that says what is allowed, so a typo never silently
falls back to a default.

The defaults live here only: ``settings.py`` writes its ``WEBMD_*`` settings from
:func:`setting_defaults`, and every option is validated in one place,
:func:`build_options` (the chunk options too: their limits are the chunker's own,
``chunking.markdown_chunks``), before anything reads them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from webmd_spider.chunking.markdown_chunks import (
    MAX_CHUNK_CHARS,
    MAX_CHUNK_TOKENS,
    ChunkOptionsError,
    chunk_budget,
)
from webmd_spider.extract.document import ExtractOptions
from webmd_spider.extract.page_type import PAGE_TYPES
from webmd_spider.state.lastmod import TRUST_MODES

SETTING_PREFIX = "WEBMD_"
#: A smaller cut leaves a page nothing but a heading marker or the start of a fence.
MIN_MAX_CHARS = 200


#: Chunks are on by default (issue 31: "embedding-ready chunks" without a flag);
#: ``chunk_tokens=0`` turns them off, ``chunk_size`` sizes them in characters instead.
DEFAULT_CHUNK_TOKENS = 400
DEFAULT_CHUNK_OVERLAP_TOKENS = 40

#: ``extract_processes`` "auto" (the spider picks the number from the usable cores).
EXTRACT_AUTO = -1
#: ``extract_timeout_secs`` default: offload.pool.EXTRACT_DEADLINE_SECS (the same 30 s;
#: tests/spiders/test_hostile_spider.py checks that they agree).
EXTRACT_TIMEOUT_DEFAULT = 30.0


class OptionsError(ValueError):
    """An argument, setting or job file that cannot be used; the message says why."""


@dataclass(slots=True)
class JobOptions:
    """Everything a crawl job can be told. Defaults are the documented ones."""

    start: list[str] = field(default_factory=list)
    start_file: str = ""
    max_pages: int = 50
    max_depth: int = 3
    max_run_secs: float = 240.0
    crawl_links: bool = True
    #: how a whole website's pages are found: the start page first, then the sitemaps'
    #: URLs, then links (sitemaps+links); only the sitemaps' URLs (sitemaps); only links
    discovery: str = "sitemaps+links"
    #: which links and sitemap entries a start URL lets in: "site" (the whole
    #: website), "directory" (the start's directory and below) or "page" (the start
    #: page and what it links inside its directory); "auto" picks directory for a
    #: start whose path ends in "/" below the root, page for a start at a page below
    #: the root, and site for the root
    scope: str = "auto"
    max_concurrency: int = 8
    max_sitemap_urls: int = 5000
    respect_robots: bool = True
    include_patterns: list[str] = field(default_factory=list)
    exclude_patterns: list[str] = field(default_factory=list)
    #: page types (``extract.page_type.PAGE_TYPES``) written as ``skipped`` diagnostic
    #: rows instead of page rows, their links still followed: "listing,collection" to
    #: index content only
    skip_page_types: list[str] = field(default_factory=list)
    include_html: bool = False
    keep_links: bool = True
    keep_images: bool = True
    max_chars: int = 0
    keep_frames: bool = False
    keep_captions: bool = False
    #: False: each page's whole <body> as Markdown, not only its main content (the
    #: HTTP API's useMainContentOnly=false)
    main_content_only: bool = True
    #: leave out a short paragraph (200 characters or fewer) that already appeared
    #: verbatim on 3 earlier pages of the same website (a banner inside the content);
    #: headings, code and tables never; content_hash is taken before (extract/repeated.py)
    remove_repeated_blocks: bool = False
    #: fetch and convert linked PDF and DOCX documents (false: neither fetched nor
    #: counted as failures)
    parse_documents: bool = True
    #: also follow links to subdomains of a start URL's domain (docs.example.com from
    #: example.com); www and the bare domain are always one website
    follow_subdomains: bool = False
    #: spacing between two requests to one website, seconds ("low-high", jitter only
    #: upward; "0" turns the floor off for your own servers and benchmarks);
    #: AutoThrottle may widen it
    host_delay: str = "0.25-0.6"
    #: destinations allowed despite the SSRF guard: CIDRs, host names or host:port,
    #: e.g. "127.0.0.1:8080" to crawl your own local server
    ssrf_allowlist: str = ""
    #: let loopback and private (RFC 1918, RFC 4193) addresses through the SSRF guard,
    #: for a site on your own machine or network; link-local (cloud metadata) stays
    #: refused. Logged as a warning.
    allow_local: bool = False
    #: a robots.txt Crawl-delay above this fetches one page and stops the website
    max_crawl_delay: float = 10.0
    #: an unavailable robots.txt (5xx, network error) is asked again once after this
    #: long, when the run budget allows (0 = never)
    robots_retry_secs: float = 30.0
    #: the product token matched against robots.txt User-agent lines (before "*")
    robots_token: str = "webmd"
    #: chunks of about this many characters instead of tokens (0: sized by chunk_tokens)
    chunk_size: int = 0
    #: split each page's Markdown into chunks of about this many tokens (0: no chunks);
    #: on by default, as the README promises embedding-ready chunks
    chunk_tokens: int = DEFAULT_CHUNK_TOKENS
    chunk_overlap: int = 0
    #: tokens shared by neighbouring chunks
    chunk_overlap_tokens: int = DEFAULT_CHUNK_OVERLAP_TOKENS
    output_dir: str = "output"
    progress_secs: float = 5.0
    # -- incremental recrawls (state store) and the Markdown folder tree ------------
    incremental: bool = False
    state: str = ""  # state name; empty = derived from the start URLs and scope options
    state_dir: str = ".webmd"
    state_backend: str = "sqlite"  # sqlite | memory | a dotted path to a StateStore class
    #: incremental runs: skip a known page without a request when the sitemap dates it
    #: no later than our last fetch: "auto" (trusted until a random sample shows a
    #: change under an old date; then never again for that website), "always", "never"
    trust_lastmod: str = "auto"
    #: the most pages of that sample per website (at least 5 or 2 % are fetched)
    lastmod_sample_max: int = 50
    #: false: unchanged pages are counted in the site row and the summary, not written
    emit_unchanged: bool = True
    out_dir: str = ""  # write one .md file per page under this folder
    out_dir_removed: str = "delete"  # what happens to a removed page's file: delete | move
    #: write llms.txt and llms-full.txt (llmstxt.org) into this folder at the end
    llms_txt: str = ""
    #: write every page's Markdown into this one file at the end
    combined: str = ""
    #: write the chunk-level change feed (upserts and deletes, docs/design/search-index.md)
    #: to this JSON lines file; implies incremental (the feed is computed against a
    #: ledger beside the state, or against the index)
    changes: str = ""
    #: apply the change feed to this search index file (webmd_spider/index); implies
    #: incremental
    index: str = ""
    #: the index's embedder: "wordllama" (bundled, offline), "sentence-transformers:DIR",
    #: "fastembed:DIR", or "http" with embed_url
    embedder: str = "wordllama"
    #: an OpenAI-compatible embeddings endpoint (POST {"model", "input"}); sets embedder=http
    embed_url: str = ""
    embed_model: str = ""
    #: the environment variable holding the endpoint's key (sent as a Bearer token)
    embed_key_env: str = "WEBMD_EMBED_KEY"
    #: seconds a crawl waits for another run writing the same index before it stops
    index_lock_secs: float = 0.0
    redis_url: str = ""  # a distributed crawl: workers share a frontier in this Redis
    #: convert pages in this many worker processes (0: in the crawl process);
    #: EXTRACT_AUTO ("auto", the default) = one per core beyond the crawl's own
    #: (offload.pool.default_processes)
    extract_processes: int = EXTRACT_AUTO
    #: seconds an extraction process may spend on one page before the page is given up
    #: (an ``extraction-timeout`` row) and the process replaced
    extract_timeout_secs: float = EXTRACT_TIMEOUT_DEFAULT
    #: the garbage collector's young threshold in the crawl and extraction processes
    #: (0: Python's default; see webmd_spider/offload/gc_tuning.py)
    gc_threshold: int = 10_000

    @property
    def extract_options(self) -> ExtractOptions:
        """The extractor's options these job options give (one mapping for the crawl,
        ``convert`` and the API)."""
        return ExtractOptions(
            keep_links=self.keep_links,
            keep_images=self.keep_images,
            include_html=self.include_html,
            max_chars=self.max_chars,
            keep_frames=self.keep_frames,
            keep_captions=self.keep_captions,
            main_content_only=self.main_content_only,
        )

    @property
    def chunk_budget(self) -> tuple[int, int]:
        """(size, overlap) of chunks in characters, (0, 0) without chunking; raises
        ChunkOptionsError for options the chunker cannot use (build_options turns that
        into an OptionsError, so an options object it built never raises here)."""
        return chunk_budget(
            self.chunk_size, self.chunk_tokens, self.chunk_overlap, self.chunk_overlap_tokens
        )


#: (minimum, maximum) for numeric options; None = unbounded on that side.
_RANGES: dict[str, tuple[float | None, float | None]] = {
    "max_pages": (1, None),
    "max_depth": (0, 100),
    "max_run_secs": (1, None),
    "max_concurrency": (1, 64),
    "max_sitemap_urls": (1, 1_000_000),
    "max_chars": (0, None),
    "max_crawl_delay": (0, 3600),
    "robots_retry_secs": (0, 3600),
    # the chunker's limits (chunk_budget checks the rest: a size's minimum, one of
    # size or tokens, an overlap of at most half the size)
    "chunk_size": (0, MAX_CHUNK_CHARS),
    "chunk_tokens": (0, MAX_CHUNK_TOKENS),
    "chunk_overlap": (0, MAX_CHUNK_CHARS // 2),
    "chunk_overlap_tokens": (0, MAX_CHUNK_TOKENS // 2),
    "progress_secs": (0, None),
    "extract_processes": (0, 64),
    "extract_timeout_secs": (1, 3600),
    "gc_threshold": (0, 100_000),
    "index_lock_secs": (0, 86_400),
    "lastmod_sample_max": (1, 100_000),
}

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}

#: values of the ``discovery`` option
DISCOVERY_MODES = ("sitemaps+links", "sitemaps", "links")
#: values of the ``scope`` option
SCOPE_MODES = ("auto", "site", "directory", "page")

OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in fields(JobOptions))
#: Arguments that are not options themselves: ``input`` names a job file.
META_ARGUMENTS = ("input",)


def valid_argument_names() -> list[str]:
    """Every name accepted as ``-a NAME=...``, sorted."""
    return sorted((*OPTION_NAMES, *META_ARGUMENTS))


def split_list(value: Any) -> list[str]:
    """A list option from a list, or from a string separated by commas or whitespace."""
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [str(v).strip() for v in value if str(v).strip()]
    return [part for part in str(value).replace(",", " ").split() if part]


def _coerce(name: str, value: Any, default: Any) -> Any:
    """Convert ``value`` to the type of ``default``, checking ranges."""
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise OptionsError(f"{name} must be true or false, got {value!r}")
    if isinstance(default, int | float):
        kind = int if isinstance(default, int) else float
        low, high = _RANGES.get(name, (None, None))
        bounds = f"{low if low is not None else '-inf'}..{high if high is not None else 'inf'}"
        word = "a whole number" if kind is int else "a number"
        bad = f"{name} must be {word} in the range {bounds}, got {value!r}"
        if name == "extract_processes":
            bad = f"{name} must be auto or {word} in the range {bounds}, got {value!r}"
        # JSON true/false and 10.5 for a whole number are mistakes, not 1/0 and 10.
        if isinstance(value, bool) or (
            kind is int and isinstance(value, float) and not value.is_integer()
        ):
            raise OptionsError(bad)
        try:
            number = kind(value) if not isinstance(value, str) else kind(value.strip())
        except (TypeError, ValueError, OverflowError):
            raise OptionsError(bad) from None
        # "nan" passes every range check and "inf" is no budget at all: both are refused.
        if not math.isfinite(number):
            raise OptionsError(bad)
        if (low is not None and number < low) or (high is not None and number > high):
            raise OptionsError(f"{name} must be in the range {bounds}, got {value!r}")
        return number
    if isinstance(default, list):
        if name.endswith("_patterns"):
            # A /regex/ may hold commas or spaces: urls.split_patterns splits these later.
            if isinstance(value, str):
                return [value] if value.strip() else []
            return [str(v) for v in value]
        return split_list(value)
    return str(value)


def read_job_file(path: str) -> dict[str, Any]:
    """Read a job file: one JSON object whose keys are option names."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise OptionsError(f"cannot read job file {path!r}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise OptionsError(f"job file {path!r} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise OptionsError(
            f"job file {path!r} must hold one JSON object, got {type(data).__name__}"
        )
    return data


def _check_names(values: Mapping[str, Any], where: str) -> None:
    unknown = sorted(k for k in values if k not in OPTION_NAMES and k not in META_ARGUMENTS)
    if unknown:
        raise OptionsError(
            f"unknown {where} {', '.join(map(repr, unknown))}; "
            f"valid names: {', '.join(valid_argument_names())}"
        )


def settings_view(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Pick the WEBMD_* entries out of a settings mapping, keyed by option name.

    Raises :class:`OptionsError` for a WEBMD_* name that is not an option.
    """
    picked: dict[str, Any] = {}
    for key, value in settings.items():
        if not key.startswith(SETTING_PREFIX):
            continue
        name = key[len(SETTING_PREFIX) :].lower()
        if name not in OPTION_NAMES:
            valid = ", ".join(SETTING_PREFIX + n.upper() for n in OPTION_NAMES)
            raise OptionsError(f"unknown setting {key!r}; valid WEBMD_* settings: {valid}")
        picked[name] = value
    return picked


def build_options(settings: Mapping[str, Any], arguments: Mapping[str, Any]) -> JobOptions:
    """Merge settings, an optional job file (``input`` argument) and arguments.

    Argument names starting with ``_`` (Scrapyd's ``_job``) are ignored.
    """
    args = {k: v for k, v in arguments.items() if not k.startswith("_")}
    _check_names(args, "argument")
    merged: dict[str, Any] = dict(settings_view(settings))
    if args.get("input"):
        job = read_job_file(str(args["input"]))
        _check_names(job, "job file key")
        if "input" in job:
            raise OptionsError("a job file cannot name another job file ('input')")
        merged.update(job)
    merged.update({k: v for k, v in args.items() if k != "input"})
    defaults = JobOptions()
    auto = str(merged.get("extract_processes", "")).strip().lower() == "auto"
    values = {
        name: _coerce(name, merged[name], getattr(defaults, name))
        for name in OPTION_NAMES
        if name in merged and not (auto and name == "extract_processes")
    }
    if auto:
        values["extract_processes"] = EXTRACT_AUTO
    if values.get("discovery", "sitemaps+links") not in DISCOVERY_MODES:
        raise OptionsError(
            f"discovery must be one of {', '.join(DISCOVERY_MODES)}, got {values['discovery']!r}"
        )
    if values.get("scope", "auto") not in SCOPE_MODES:
        raise OptionsError(
            f"scope must be one of {', '.join(SCOPE_MODES)}, got {values['scope']!r}"
        )
    if values.get("trust_lastmod", "auto") not in TRUST_MODES:
        raise OptionsError(
            f"trust_lastmod must be one of {', '.join(TRUST_MODES)}, "
            f"got {values['trust_lastmod']!r}"
        )
    if "skip_page_types" in values:
        values["skip_page_types"] = _page_types(values["skip_page_types"])
    _settle_chunk_defaults(values)
    if values.get("out_dir_removed", "delete") not in ("delete", "move"):
        raise OptionsError(
            f"out_dir_removed must be delete or move, got {values['out_dir_removed']!r}"
        )
    if 0 < values.get("max_chars", 0) < MIN_MAX_CHARS:
        raise OptionsError(
            f"max_chars must be 0 (no limit) or at least {MIN_MAX_CHARS}, got {values['max_chars']}"
        )
    options = JobOptions(**{**{n: getattr(defaults, n) for n in OPTION_NAMES}, **values})
    try:
        options.chunk_budget  # noqa: B018 - validated here, before anything reads it
    except ChunkOptionsError as exc:
        raise OptionsError(f"invalid-input: {exc}") from None
    _settle_feed(options)
    return options


def _settle_feed(options: JobOptions) -> None:
    """The change feed's options, checked and completed in place: a feed or an index
    needs chunks, and an incremental state to know what changed (turned on); it is not
    computed in a distributed crawl (each worker would diff against its own copy)."""
    if options.embed_url and options.embedder == "wordllama":
        options.embedder = "http"
    if not (options.changes or options.index):
        return
    which = "index" if options.index else "changes"
    if options.chunk_budget == (0, 0):
        raise OptionsError(f"{which} needs chunks: leave chunk_tokens above 0")
    if options.redis_url:
        raise OptionsError(
            f"{which} cannot be used in a distributed crawl (redis_url) yet: "
            "write rows, then run one non-distributed crawl with --index"
        )
    options.incremental = True


def _page_types(names: list[str]) -> list[str]:
    """``skip_page_types`` checked against ``PAGE_TYPES``: lower-cased, each once, in
    the order given. Raises :class:`OptionsError` naming the allowed types for any
    other name (a typo must not skip nothing in silence)."""
    found: list[str] = []
    for name in names:
        kind = name.strip().lower()
        if kind not in PAGE_TYPES:
            raise OptionsError(
                f"skip_page_types: unknown page type {name!r}; allowed types: "
                f"{', '.join(PAGE_TYPES)}"
            )
        if kind not in found:
            found.append(kind)
    return found


def _settle_chunk_defaults(values: dict[str, Any]) -> None:
    """Let a user's own chunk sizing replace the default one, in place.

    The token defaults are always present (settings carry every default), so a
    ``chunk_size`` in characters replaces a ``chunk_tokens`` still at its default
    rather than clashing with it, a ``chunk_overlap`` in characters replaces the
    default token overlap, and with chunking off (``chunk_tokens=0`` and no
    ``chunk_size``) the default overlap has nothing to overlap and is dropped.
    """
    if values.get("chunk_size", 0) and values.get("chunk_tokens") in (None, DEFAULT_CHUNK_TOKENS):
        values["chunk_tokens"] = 0
    overlap_tokens = values.get("chunk_overlap_tokens", DEFAULT_CHUNK_OVERLAP_TOKENS)
    if overlap_tokens == DEFAULT_CHUNK_OVERLAP_TOKENS:
        chunking = values.get("chunk_size", 0) or values.get("chunk_tokens", DEFAULT_CHUNK_TOKENS)
        if values.get("chunk_overlap", 0) or not chunking:
            values["chunk_overlap_tokens"] = 0


def setting_defaults() -> dict[str, Any]:
    """Every ``WEBMD_*`` Scrapy setting with its default, from :class:`JobOptions` (a list
    option as its comma-separated string, ``extract_processes`` as ``"auto"``)."""
    defaults = JobOptions()
    values: dict[str, Any] = {}
    for name in OPTION_NAMES:
        value = getattr(defaults, name)
        if isinstance(value, list):
            value = ",".join(value)
        elif name == "extract_processes" and value == EXTRACT_AUTO:
            value = "auto"
        values[SETTING_PREFIX + name.upper()] = value
    return values
