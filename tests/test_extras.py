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
