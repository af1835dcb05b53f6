"""The install line of an optional extra names what works: this checkout (issue 31)."""

from __future__ import annotations

from pathlib import Path

from webmd_spider.extras import install_hint
from webmd_spider.service.serve import EXTRA_HINT

REPO = Path(__file__).resolve().parent.parent


def test_an_editable_install_is_told_to_install_the_extra_from_its_checkout() -> None:
    """The package is on no index: never ``webmd-spider[...]``, always this checkout,
    editable as ``make install`` made it."""
    assert install_hint("langchain") == f"pip install -e '{REPO}[langchain]'"
    assert f"pip install -e '{REPO}[serve]'" == EXTRA_HINT
    for extra in ("serve", "mcp", "langchain", "llamaindex", "distributed"):
        # every extra named anywhere is one pyproject.toml defines
        assert f"\n{extra} = [" in (REPO / "pyproject.toml").read_text(encoding="utf-8")
        assert "webmd-spider[" not in install_hint(extra)


def test_the_docs_install_lines_name_extras_that_exist_and_never_an_index_package() -> None:
    """README.md and docs/: every ``pip install ... '.[extra]'`` names an extra of
    pyproject.toml, and none asks an index for ``webmd-spider[...]`` (issue 31)."""
    import re

    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    docs = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    named = set()
    for doc in docs:
        if doc.name == "benchmarks-history.md":
            continue  # the log keeps its commands as they were run
        text = doc.read_text(encoding="utf-8")
        assert "webmd-spider[" not in text, doc.name
        named |= set(re.findall(r"pip install (?:-e )?'\.\[([a-z]+)\]'", text))
    named.discard("extra")  # the placeholder of the README's rule
    assert {"serve", "mcp", "langchain"} <= named
    for extra in named:
        assert f"\n{extra} = [" in pyproject, extra
