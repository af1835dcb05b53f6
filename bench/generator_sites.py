"""API reference from documentation generators the extractor was not built for (issue 30):
one local folder of HTML per generator family, from Debian documentation packages.

    .venv/bin/python bench/generator_sites.py                  # every family; prints folders
    .venv/bin/python bench/generator_sites.py --sites rustdoc,doxygen --force

Each package is fetched with ``apt-get download`` and unpacked with ``dpkg -x`` into
``bench/results/generator-sites/.cache/`` (no root install; ``apt-get update -qq`` is run
once if a download fails), then the family's folder (or a subset of it) is copied to
``bench/results/generator-sites/<family>/``, with the package's licence file beside it as
``copyright.txt``. Symbolic links that point outside the package (Debian replaces bundled
jQuery, fonts and Sphinx scripts by links to other packages) are left out. A folder that
exists is reused (``--force`` rebuilds it).

Families (see :data:`FAMILIES`):

* ``javadoc17``: JDK 17's ``javadoc`` run here on ``java.util.function``,
  ``java.util.stream``, ``java.util.concurrent.atomic`` and ``java.util.Optional*`` from the
  JDK's ``src.zip`` (the installed one, else the one of the ``openjdk-17-source``
  package): div-based summary tables, ``div.member-signature``, ``package-tree.html``;
* ``javadoc11``: ``libbcel-java-doc`` (javadoc 11, table-based summaries);
* ``rustdoc``: ``rust-doc`` 1.63, a subset of ``core`` and ``alloc`` (primitives, macros,
  ``option``, ``result``, ``cell``, ``mem``, ``vec``, ``string``, ``rc``, ``boxed``) with the
  static files, under a generated hub ``index.html`` that lists them (the crates' own
  index pages link mostly to modules left out);
* ``doxygen``: ``libclipper-doc`` (C++); ``texinfo``: ``octave-doc`` (makeinfo, one node
  per page); ``gtkdoc``: ``gnutls-doc``'s ``api-reference``;
* ``sphinx-pallets``: ``python-flask-doc``; ``sphinx-rtd``: ``python-attr-doc`` (Debian
  builds it with the Read the Docs theme, not furo); ``sphinx-django``:
  ``python-django-doc``'s ``ref/`` (classic theme; the crawl starts at ``ref/index.html``
  and follows only links into ``ref/``: the others lead to pages left out);
  ``sphinx-sphinx13``: ``sphinx-doc``; ``mkdocs``: ``mkdocs-doc``.

javadoc17's crawl starts at the site's root: its ``index.html`` is javadoc's redirect
page (a script, and a ``<meta http-equiv=Refresh>`` inside ``<noscript>``), an
``empty`` diagnostic whose link to ``java.base/module-summary.html`` is followed (before
51d6552 the crawl from the root wrote no page).

A link crawl from each family's start page (:attr:`Family.start`) reaches at least 80
pages, except ``mkdocs`` (23 pages), ``sphinx-rtd`` (17) and ``gtkdoc`` (13), which
have no more.
"""

from __future__ import annotations

import argparse
import fnmatch
import html
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ROOT = REPO / "bench" / "results" / "generator-sites"
CACHE = ROOT / ".cache"

JDK_HOME = Path("/usr/lib/jvm/java-17-openjdk-amd64")
JAVADOC = Path("/usr/bin/javadoc")
JDK_SOURCE_PACKAGE = "openjdk-17-source"
#: where ``src.zip`` is inside the ``openjdk-17-source`` package
JDK_SOURCE_ZIP = "usr/lib/jvm/openjdk-17/lib/src.zip"
#: the sources javadoc17 documents: packages, and single files of ``java.util``
JAVADOC17_PACKAGES = ("java.util.function", "java.util.stream", "java.util.concurrent.atomic")
JAVADOC17_FILES = ("Optional", "OptionalInt", "OptionalLong", "OptionalDouble")


@dataclass(frozen=True)
class Family:
    """One documentation generator: where its HTML comes from and where a crawl starts."""

    name: str
    generator: str
    package: str  # the Debian package holding the HTML (or the sources, for javadoc17)
    source: str  # the HTML folder inside the package ("" for javadoc17: generated)
    #: globs (relative to `source`) of the files to copy; empty: the whole folder
    subset: tuple[str, ...] = ()
    #: the start page of the crawl, relative to the site root ("" = the root's index.html)
    start: str = ""
    #: a hub ``index.html`` listing the subset's pages is written at the root
    hub: bool = False
    #: globs (on the path relative to `source`) of files left out
    exclude: tuple[str, ...] = ()
    #: the crawl's ``include_patterns`` (links elsewhere are not followed); "" = none
    include: str = ""


_STATIC = ("*.css", "*.js", "*.svg", "*.woff2", "*.png")
_RUST_DIRS = (
    "core/option", "core/result", "core/cell", "core/mem",
    "alloc/vec", "alloc/string", "alloc/rc", "alloc/boxed",
)  # fmt: skip
_RUST_SUBSET = (
    *_STATIC,
    "core/index.html", "alloc/index.html", "core/sidebar-items*.js", "alloc/sidebar-items*.js",
    "core/primitive.*.html", "core/macro.*[a-z_].html",
    *(f"{folder}/*.html" for folder in _RUST_DIRS),
    *(f"{folder}/*.js" for folder in _RUST_DIRS),
)  # fmt: skip

FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        # index.html is javadoc's redirect page (a script and a <meta refresh> inside
        # <noscript>): an empty row whose link is followed
        Family("javadoc17", "javadoc (JDK 17)", JDK_SOURCE_PACKAGE, ""),
        Family(
            "javadoc11", "javadoc (JDK 11)", "libbcel-java-doc", "usr/share/doc/libbcel-java/api"
        ),
        Family(
            "rustdoc",
            "rustdoc 1.63",
            "rust-doc",
            "usr/share/doc/rust-doc/html",
            subset=_RUST_SUBSET,
            hub=True,
            exclude=("search-index*.js",),
        ),
        Family("doxygen", "Doxygen", "libclipper-doc", "usr/share/doc/libclipper-dev/html"),
        Family("texinfo", "makeinfo (Texinfo)", "octave-doc", "usr/share/doc/octave/octave.html"),
        Family(
            "sphinx-pallets",
            "Sphinx (pallets theme)",
            "python-flask-doc",
            "usr/share/doc/python-flask-doc/html",
        ),
        Family(
            "sphinx-rtd",
            "Sphinx (Read the Docs theme)",
            "python-attr-doc",
            "usr/share/doc/python-attr-doc/html",
        ),
        Family(
            "sphinx-django",
            "Sphinx (classic theme)",
            "python-django-doc",
            "usr/share/doc/python-django-doc/html",
            subset=("ref/**/*", "_static/**/*", "_images/**/*"),
            start="ref/index.html",
            include="*/ref/*",
        ),
        Family(
            "sphinx-sphinx13",
            "Sphinx (sphinx13 theme)",
            "sphinx-doc",
            "usr/share/doc/sphinx-doc/html",
        ),
        Family("mkdocs", "MkDocs (mkdocs theme)", "mkdocs-doc", "usr/share/doc/mkdocs/html"),
        Family("gtkdoc", "gtk-doc", "gnutls-doc", "usr/share/doc/gnutls-doc/api-reference"),
    )
}

#: each package's licence file, inside the package (javadoc17: the JDK's, installed)
LICENCES: dict[str, str] = {
    JDK_SOURCE_PACKAGE: "/usr/share/doc/openjdk-17-jre-headless/copyright",
    **{
        f.package: f"usr/share/doc/{f.package}/copyright"
        for f in FAMILIES.values()
        if f.package != JDK_SOURCE_PACKAGE
    },
}


# -- fetching -------------------------------------------------------------------------
_updated = False


def _download(package: str, into: Path) -> Path:
    """``apt-get download`` the package's candidate .deb into `into`; its path."""
    global _updated
    into.mkdir(parents=True, exist_ok=True)
    found = sorted(into.glob(f"{package}_*.deb"))
    if found:
        return found[-1]
    for attempt in range(2):
        done = subprocess.run(
            ["apt-get", "download", "-qq", package], cwd=into, capture_output=True, text=True
        )
        found = sorted(into.glob(f"{package}_*.deb"))
        if done.returncode == 0 and found:
            return found[-1]
        if attempt or _updated:
            break
        print(f"apt-get download {package} failed: running apt-get update -qq", file=sys.stderr)
        subprocess.run(["apt-get", "update", "-qq"], check=False)
        _updated = True
    raise RuntimeError(f"apt-get download {package} failed: {done.stderr.strip()}")


def fetch(package: str) -> Path:
    """The folder the package is unpacked in (downloaded and ``dpkg -x``-ed if needed)."""
    dest = CACHE / package
    if (dest / ".unpacked").exists():
        return dest
    deb = _download(package, CACHE / "debs")
    print(f"unpacking {deb.name}", file=sys.stderr)
    shutil.rmtree(dest, ignore_errors=True)
    subprocess.run(["dpkg", "-x", str(deb), str(dest)], check=True)
    (dest / ".unpacked").write_text(deb.name + "\n")
    return dest


# -- copying --------------------------------------------------------------------------
def _inside(path: Path, top: Path) -> bool:
    """Whether `path` exists and, links followed, stays under `top`."""
    try:
        return path.exists() and path.resolve().is_relative_to(top.resolve())
    except OSError:
        return False


def copy_files(
    source: Path, dest: Path, patterns: tuple[str, ...] = (), exclude: tuple[str, ...] = ()
) -> int:
    """Copy `source`'s files (those matching `patterns`, or all, but none matching
    `exclude`) to `dest`, links that resolve inside the package followed, others left
    out; the number of files copied."""
    top = source
    while top.parent != top and top.name != "usr":
        top = top.parent
    top = top.parent  # the package's unpacked root
    if patterns:
        files = sorted({p for pattern in patterns for p in source.glob(pattern)})
        files = [p for p in files if p.is_file() or p.is_symlink()]
    else:
        files = sorted(p for p in source.rglob("*") if p.is_file() or p.is_symlink())
    copied = 0
    for path in files:
        if path.is_symlink() and not _inside(path, top):
            continue  # a link to another package's jQuery, fonts, ...
        if not path.is_file():
            continue
        relative = path.relative_to(source)
        if any(fnmatch.fnmatch(relative.as_posix(), pattern) for pattern in exclude):
            continue
        target = dest / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        copied += 1
    return copied


def write_hub(dest: Path, title: str) -> int:
    """An ``index.html`` at `dest` linking to every page under it, module index pages
    first, then one page of each folder in turn; the number of pages listed."""
    pages = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*.html"))
    groups: dict[str, list[str]] = {}
    for page in pages:
        if page.endswith("/index.html"):
            groups.setdefault("", []).append(page)
            continue
        folder, _, name = page.rpartition("/")
        kind = name.split(".", 1)[0] if name.count(".") > 1 else ""
        groups.setdefault(f"{folder}/{kind}", []).append(page)
    ordered = groups.pop("", [])
    queues = list(groups.values())
    while any(queues):
        for queue in queues:
            if queue:
                ordered.append(queue.pop(0))
    items = "".join(f'<li><a href="{html.escape(p)}">{html.escape(p)}</a></li>\n' for p in ordered)
    (dest / "index.html").write_text(
        f"<!DOCTYPE html>\n<html><head><title>{html.escape(title)}</title></head>\n"
        f"<body><h1>{html.escape(title)}</h1>\n<ul>\n{items}</ul></body></html>\n",
        encoding="utf-8",
    )
    return len(ordered)


def jdk_src_zip() -> Path:
    """The JDK 17 ``src.zip``: the installed one, else the ``openjdk-17-source`` one."""
    installed = JDK_HOME / "lib" / "src.zip"
    if installed.is_file():
        return installed
    return fetch(JDK_SOURCE_PACKAGE) / JDK_SOURCE_ZIP


def build_javadoc17(dest: Path) -> None:
    """Run JDK 17's javadoc on a few ``java.base`` packages into `dest`."""
    if not JAVADOC.exists():
        raise RuntimeError(f"{JAVADOC} (JDK 17) is needed for javadoc17")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "java.base"
        folders = [f"java.base/{p.replace('.', '/')}/" for p in JAVADOC17_PACKAGES]
        files = [f"java.base/java/util/{name}.java" for name in JAVADOC17_FILES]
        with zipfile.ZipFile(jdk_src_zip()) as archive:
            for member in archive.namelist():
                if member in files or (
                    member.endswith(".java") and member.rpartition("/")[0] + "/" in folders
                ):
                    archive.extract(member, tmp)
        command = [
            str(JAVADOC), "-d", str(dest), "-Xdoclint:none", "-quiet", "-notimestamp",
            "-encoding", "UTF-8", "--patch-module", f"java.base={src}", "-sourcepath", str(src),
            "-doctitle", "Java SE 17 (a few packages)", "-windowtitle", "Java SE 17",
            *JAVADOC17_PACKAGES, *(str(src / f.partition("/")[2]) for f in files),
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"javadoc failed: {done.stderr[-2000:]}")


def prepare(name: str, force: bool = False) -> Path:
    """The folder of family `name`, built if missing (or `force`)."""
    family = FAMILIES[name]
    dest = ROOT / name
    if dest.is_dir() and not force:
        return dest
    building = ROOT / f".{name}.building"
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    if name == "javadoc17":
        build_javadoc17(building)
        licence = Path(LICENCES[family.package])
    else:
        unpacked = fetch(family.package)
        copied = copy_files(unpacked / family.source, building, family.subset, family.exclude)
        if not copied:
            raise RuntimeError(f"{name}: nothing copied from {family.package}:{family.source}")
        licence = unpacked / LICENCES[family.package]
        if family.hub:
            write_hub(building, f"{family.generator}: {family.package} (a subset)")
    if licence.is_file():
        shutil.copyfile(licence, building / "copyright.txt")
    shutil.rmtree(dest, ignore_errors=True)
    os.replace(building, dest)
    return dest


def page_count(folder: Path) -> int:
    return sum(1 for _ in folder.rglob("*.html"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", default=",".join(FAMILIES), help="families, comma-separated")
    parser.add_argument("--force", action="store_true", help="rebuild existing folders")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.sites.split(",") if n.strip()]
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        parser.error(f"unknown families {unknown}; known: {', '.join(FAMILIES)}")
    for name in names:
        folder = prepare(name, force=args.force)
        start = FAMILIES[name].start or "index.html"
        print(f"{name:16} {folder}  ({page_count(folder)} pages, start {start})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
