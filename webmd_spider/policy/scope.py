"""Which URLs a crawl's start URLs let in: the ``scope`` option.

Pure module (standard library and the project's URL module only).

Each start URL has a scope on its website, by the ``scope`` option:

* ``site``: the whole website;
* ``directory``: the start's directory and everything below it (``/guide/`` for
  ``/guide/`` and for ``/guide/a.html``);
* ``page``: the start page and what it links inside its directory, one hop (the pages
  it links are fetched, their own links are not followed);
* ``auto`` (the default): ``site`` for a start at the root (``/``, a bare domain),
  ``directory`` for a start whose path ends in ``/``, ``page`` for any other page.

A URL found by a link or listed by a sitemap is in scope when it lies inside the scope
of any start on its website (several starts widen the scope, never narrow it). A
website no start names (one a link added with ``follow_subdomains``) is not
restricted: that option asked for it. Inside a directory means the URL's path starts
with the directory's path, or is that path without its trailing slash (``/guide``,
which servers redirect to ``/guide/``). Paths are compared as :func:`canonicalize`
spells them (percent-escapes normalised, case kept).

When a start redirects (``/docs`` → ``/docs/``), its scope moves to where it landed
(:meth:`StartScopes.moved`): the auto scope of ``/docs`` is a page's, of ``/docs/`` a
directory's. A start at the root keeps the whole website whatever its redirect, and a
start below the root that redirects to the home page keeps its own scope.

Cost: :meth:`StartScopes.admits` is a dict lookup and a few ``str.startswith`` per URL,
and websites with a ``site`` start are not checked at all (:meth:`restricted`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from webmd_spider.urls import canonicalize, site_key

#: what the ``scope`` option may say (``options.SCOPE_MODES``)
AUTO, SITE, DIRECTORY, PAGE = "auto", "site", "directory", "page"
#: the rejection reason of a URL outside every start's scope (the run summary's
#: ``rejected_counts`` key)
OUT_OF_SCOPE = "out-of-scope"


def path_of(url: str) -> str:
    """The path of an absolute URL (``/`` when it has none), without query or
    fragment; no parsing beyond finding the delimiters (it runs once per link)."""
    authority = url.find("//")
    authority = authority + 2 if authority >= 0 else 0
    end = len(url)
    for mark in ("?", "#"):
        at = url.find(mark, authority)
        if 0 <= at < end:
            end = at
    start = url.find("/", authority, end)
    if start < 0:
        return "/"
    return url[start:end]


def directory_of(path: str) -> str:
    """The directory of a path, ending in ``/`` (a path ending in ``/`` is its own)."""
    return path[: path.rfind("/") + 1] or "/"


#: the file names a web server answers a directory's URL with: a start at one is a
#: start at its directory (``/docs/index.html`` is ``/docs/``, ``/index.html`` the root)
_DIRECTORY_INDEXES = frozenset(
    ("index.html", "index.htm", "index.php", "index.shtml", "default.htm", "default.html",
     "default.asp", "default.aspx")
)  # fmt: skip


def start_mode(url: str, option: str) -> str:
    """The scope of one start URL: ``option`` unless it is ``auto``, which picks site
    for the root, directory for a path ending in ``/``, page for any other path. A
    directory's index file (``index.html``, ``default.aspx``...) counts as its
    directory: the user named the directory's home page."""
    if option != AUTO:
        return option
    path = path_of(canonicalize(url))
    folder = directory_of(path)
    if path != folder and path[len(folder) :].lower() in _DIRECTORY_INDEXES:
        path = folder
    if path == "/":
        return SITE
    return DIRECTORY if path.endswith("/") else PAGE


@dataclass(slots=True)
class WebsiteScope:
    """The scope of one website's starts together."""

    #: a start lets in the whole website
    everywhere: bool = False
    #: directories whose pages are in scope at any depth (``directory`` starts)
    trees: tuple[str, ...] = ()
    #: directories whose pages are in scope when a start page links them (``page``)
    hops: tuple[str, ...] = ()


@dataclass
class StartScopes:
    """The scope of every website with a start URL; see the module docstring.

    Build it with :meth:`build`; ask :meth:`admits` per URL found; tell :meth:`moved`
    when a start page redirected."""

    option: str = AUTO
    #: website -> canonical start URL -> its scope mode (``start_mode``)
    starts: dict[str, dict[str, str]] = field(default_factory=dict)
    #: the option was auto for these starts: a redirect re-decides their mode
    _auto: set[str] = field(default_factory=set)
    _scopes: dict[str, WebsiteScope] = field(default_factory=dict)

    @classmethod
    def build(cls, option: str, urls: Iterable[str]) -> StartScopes:
        """The scopes of these start URLs (absolute; a bare domain's first candidate
        root is enough, its path is ``/``) under the ``scope`` option."""
        scopes = cls(option)
        for url in urls:
            scopes._add(canonicalize(url))
        for website in scopes.starts:
            scopes._settle(website)
        return scopes

    def restricted(self, website: str) -> bool:
        """Whether URLs of ``website`` must be checked at all (False: no start names
        it, or one start lets in the whole website)."""
        scope = self._scopes.get(website)
        return scope is not None and not scope.everywhere

    def admits(self, website: str, url: str, linked_from_start: bool) -> bool:
        """Whether ``url`` (absolute, canonical or as found) of ``website`` is in the
        scope of one of its starts. ``linked_from_start``: found as a link on a start
        page (depth 1), which ``page`` starts also let in."""
        scope = self._scopes.get(website)
        if scope is None or scope.everywhere:
            return True
        path = path_of(url)
        folder = path if path.endswith("/") else path + "/"
        for prefix in scope.trees:
            if path.startswith(prefix) or folder == prefix:
                return True
        if linked_from_start:
            for prefix in scope.hops:
                if path.startswith(prefix) or folder == prefix:
                    return True
        return False

    def moved(self, start_url: str, final_url: str) -> bool:
        """A start page's request at ``start_url`` was answered at ``final_url``: its
        scope moves there (auto re-decided on the new path; an explicit mode kept; a
        root start keeps the whole website). True when the scope changed. A redirect
        to another website, or from a URL that is not a start, changes nothing."""
        website = site_key(start_url)
        starts = self.starts.get(website)
        start, final = canonicalize(start_url), canonicalize(final_url)
        if starts is not None and start not in starts:
            # a start typed without a scheme may be answered over the other one (the
            # discovery ladder's http after https): the same start on the same host
            scheme, _, rest = start.partition("://")
            start = f"{'http' if scheme == 'https' else 'https'}://{rest}"
        if starts is None or start not in starts or start == final:
            return False
        if site_key(final) != website or starts[start] == SITE:
            return False
        if path_of(final) == "/":
            # a path that redirects to the home page (a section gone): the scope stays,
            # it does not widen to the whole website
            return False
        mode = start_mode(final, AUTO) if start in self._auto else starts[start]
        del starts[start]
        self._auto.discard(start)
        starts[final] = mode
        if self.option == AUTO:
            self._auto.add(final)
        before = self._scopes.get(website)
        self._settle(website)
        return self._scopes.get(website) != before

    def describe(self, website: str) -> str:
        """The scope of ``website`` in words, for the log (``site`` when unrestricted)."""
        scope = self._scopes.get(website)
        if scope is None or scope.everywhere:
            return "the whole website"
        parts = [f"{prefix} and below" for prefix in scope.trees]
        parts += [f"what start pages link in {prefix}" for prefix in scope.hops]
        return ", ".join(parts)

    def _add(self, url: str) -> None:
        website = site_key(url)
        self.starts.setdefault(website, {})[url] = start_mode(url, self.option)
        if self.option == AUTO:
            self._auto.add(url)

    def _settle(self, website: str) -> None:
        """Recompute the website's scope from its starts."""
        trees: list[str] = []
        hops: list[str] = []
        everywhere = False
        for url, mode in self.starts[website].items():
            folder = directory_of(path_of(url))
            if mode == SITE:
                everywhere = True
            elif mode == DIRECTORY:
                trees.append(folder)
            else:
                hops.append(folder)
        if "/" in trees:
            everywhere = True
        self._scopes[website] = WebsiteScope(
            everywhere, tuple(dict.fromkeys(trees)), tuple(dict.fromkeys(hops))
        )
