"""The install line for an optional extra (``serve``, ``mcp``, ``langchain``, ...).

Pure module (standard library only). The package is installed from its checkout, not
from a package index, so ``pip install 'webmd-spider[serve]'`` finds nothing (issue
31). The line names what works instead: the checkout this code runs from, when it is
one (an editable install, as ``make install`` makes), else ``.`` in the checkout.
"""

from __future__ import annotations

from pathlib import Path

#: the checkout this package runs from, when it runs from one (editable install)
_CHECKOUT = Path(__file__).resolve().parent.parent


def install_hint(extra: str) -> str:
    """The shell command that installs the optional dependencies of ``extra``.

    From an editable install: ``pip install -e '/path/to/checkout[extra]'`` (``-e``
    keeps the install editable); otherwise ``pip install '.[extra]'``, to run in the
    webmd_spider checkout.
    """
    if (_CHECKOUT / "pyproject.toml").is_file() and (_CHECKOUT / "webmd_spider").is_dir():
        return f"pip install -e '{_CHECKOUT}[{extra}]'"
    return f"pip install '.[{extra}]' (in the webmd_spider checkout)"
