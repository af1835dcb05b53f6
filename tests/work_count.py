"""Work counted, not timed (issue 35 item 5: no clock in tests): the Python lines a piece
of product code runs. A count is the same on a quiet machine and on a busy one, so a
test can bound it where it once bounded seconds: linear work doubles with its input, a
quadratic walk quadruples, and a loop over a hostile attribute's full value (a colspan
of a million) shows as a million lines more.

What is not counted: work inside C (lxml's own walks, ``str.join``). A test that bounds
such work counts what the Python code hands to it instead (calls, elements, sizes).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

PACKAGE = Path(__file__).resolve().parent.parent / "webmd_spider"


@dataclass
class Lines:
    """Lines run so far in the watched files."""

    count: int = 0


def _files(modules: tuple[ModuleType | Path, ...]) -> Callable[[str], bool]:
    folders = [m.resolve() for m in modules if isinstance(m, Path)]
    names = {str(Path(m.__file__ or "").resolve()) for m in modules if isinstance(m, ModuleType)}

    def watched(filename: str) -> bool:
        if filename in names:
            return True
        path = Path(filename).resolve()
        return any(path.is_relative_to(folder) for folder in folders)

    return watched


@contextmanager
def lines_run(*modules: ModuleType | Path) -> Iterator[Lines]:
    """Count the lines run, in this thread, by the code of ``modules`` (a module, or a
    folder for every module under it) while the block runs."""
    watched = _files(modules)
    known: dict[str, bool] = {}
    lines = Lines()

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            lines.count += 1
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        filename = frame.f_code.co_filename
        seen = known.get(filename)
        if seen is None:
            seen = known[filename] = watched(filename)
        return local if seen else None

    previous = sys.gettrace()
    sys.settrace(calls)
    try:
        yield lines
    finally:
        sys.settrace(previous)


def lines_of(call: Callable[[], object], *modules: ModuleType | Path) -> int:
    """The lines ``call()`` runs in ``modules`` (default: the whole webmd_spider
    package)."""
    with lines_run(*(modules or (PACKAGE,))) as lines:
        call()
    return lines.count
