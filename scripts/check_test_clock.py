"""Fail on a test assertion that reads the clock (issue 35 item 5: no clock in tests).

CI machines are shared and busy: a test that asserts on wall or CPU time turns red when
the machine is slow, not when the code is wrong. A test counts work instead (elements
walked, requests made, renewals recorded), and a readiness wait polls for the state it
needs under a generous overall timeout that only turns a hang into a failure (a loop
ending in ``pytest.fail`` or ``raise``, not an ``assert`` on the clock).

An AST walk over ``tests/`` (or the paths given): an ``assert`` statement fails the
check when its condition reads the clock, directly (``time.<anything>``,
``perf_counter``, ``process_time``, ``monotonic``, ``thread_time``, ``datetime.now``,
``utcnow``, ``today``) or through a local name assigned from such a reading, in the
same function (``started = time.perf_counter()`` ... ``elapsed = ... - started``
... ``assert elapsed < 2``), or through a call to a function of the same file that
returns one. The assertion's message is not looked at: printing a duration is fine.

Prints ``file:line: <assert>`` for each one and exits 1; exits 0 when there is none.
Usage: ``python scripts/check_test_clock.py [PATH ...]`` (default: ``tests``).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

#: functions (of ``time`` or imported from it) that read a clock
CLOCK_FUNCTIONS = frozenset(
    {
        "perf_counter",
        "perf_counter_ns",
        "process_time",
        "process_time_ns",
        "monotonic",
        "monotonic_ns",
        "thread_time",
        "thread_time_ns",
        "time_ns",
    }
)
#: methods of ``datetime`` / ``date`` that read the clock
DATETIME_NOW = frozenset({"now", "utcnow", "today"})
DATETIME_NAMES = frozenset({"datetime", "date"})


class _Imports(ast.NodeVisitor):
    """The names a file binds to the ``time`` module and to its clock functions."""

    def __init__(self) -> None:
        self.time_modules: set[str] = {"time"}
        self.clock_names: set[str] = set(CLOCK_FUNCTIONS)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name == "time":
                self.time_modules.add(alias.asname or "time")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module == "time":
            for alias in node.names:
                self.clock_names.add(alias.asname or alias.name)


class _Clock:
    """Whether an expression reads the clock, given the names known to hold a reading."""

    def __init__(self, imports: _Imports) -> None:
        self.imports = imports

    def direct(self, node: ast.AST) -> bool:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and sub.id in self.imports.clock_names:
                return True
            if isinstance(sub, ast.Attribute):
                if sub.attr in CLOCK_FUNCTIONS:
                    return True
                if isinstance(sub.value, ast.Name) and sub.value.id in self.imports.time_modules:
                    return True  # time.<anything>
                if sub.attr in DATETIME_NOW and _last_name(sub.value) in DATETIME_NAMES:
                    return True
        return False


def _last_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _names(node: ast.AST) -> set[str]:
    return {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name)}


def _called(node: ast.AST) -> set[str]:
    return {
        sub.func.id
        for sub in ast.walk(node)
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name)
    }


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function or module body, not those of the functions inside it."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))


def _targets(node: ast.AST) -> list[tuple[ast.AST, ast.AST | None]]:
    """(target, value) pairs an assignment binds; value None when unknown."""
    if isinstance(node, ast.Assign):
        return [(target, node.value) for target in node.targets]
    if isinstance(node, ast.AnnAssign | ast.AugAssign) and node.value is not None:
        return [(node.target, node.value)]
    if isinstance(node, ast.NamedExpr):
        return [(node.target, node.value)]
    if isinstance(node, ast.For | ast.AsyncFor):
        return [(node.target, node.iter)]
    if isinstance(node, ast.withitem) and node.optional_vars is not None:
        return [(node.optional_vars, node.context_expr)]
    if isinstance(node, ast.comprehension):
        return [(node.target, node.iter)]
    return []


class _Checker:
    def __init__(self, tree: ast.Module) -> None:
        imports = _Imports()
        imports.visit(tree)
        self.clock = _Clock(imports)
        self.functions = {
            node.name: node
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        #: function name -> None (returns no reading), True (returns one), or a tuple of
        #: booleans (returns a tuple whose marked items are readings)
        self.returns: dict[str, bool | tuple[bool, ...] | None] = {}
        for _ in range(len(self.functions) + 1):  # to a fixed point across helpers
            changed = False
            for name, function in self.functions.items():
                result = self._returns(function)
                if self.returns.get(name) != result:
                    self.returns[name] = result
                    changed = True
            if not changed:
                break

    def _reads(self, node: ast.AST, tainted: set[str]) -> bool:
        if self.clock.direct(node) or _names(node) & tainted:
            return True
        return any(self.returns.get(name) for name in _called(node))

    def _tainted(self, scope: ast.AST) -> set[str]:
        """The local names of ``scope`` that hold a clock reading (flow-insensitive)."""
        tainted: set[str] = set()
        nodes = list(_own_nodes(scope))
        while True:
            before = len(tainted)
            for node in nodes:
                for target, value in _targets(node):
                    if value is None:
                        continue
                    tainted |= self._bound(target, value, tainted)
            if len(tainted) == before:
                return tainted

    def _bound(self, target: ast.AST, value: ast.AST, tainted: set[str]) -> set[str]:
        if isinstance(target, ast.Tuple | ast.List):
            items = self._items(value, len(target.elts), tainted)
            found: set[str] = set()
            for element, reads in zip(target.elts, items, strict=True):
                if reads:
                    found |= {n.id for n in ast.walk(element) if isinstance(n, ast.Name)}
            return found
        if isinstance(target, ast.Name) and self._reads(value, tainted):
            return {target.id}
        return set()

    def _items(self, value: ast.AST, count: int, tainted: set[str]) -> list[bool]:
        """Which items of a ``count``-tuple ``value`` hold a clock reading."""
        if isinstance(value, ast.Tuple | ast.List) and len(value.elts) == count:
            return [self._reads(element, tainted) for element in value.elts]
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            returned = self.returns.get(value.func.id)
            if isinstance(returned, tuple) and len(returned) == count:
                arguments = any(self._reads(arg, tainted) for arg in value.args)
                return [reads or arguments for reads in returned]
        return [self._reads(value, tainted)] * count

    def _returns(self, function: ast.AST) -> bool | tuple[bool, ...] | None:
        tainted = self._tainted(function)
        result: bool | tuple[bool, ...] | None = None
        for node in _own_nodes(function):
            if not isinstance(node, ast.Return | ast.Yield) or node.value is None:
                continue
            if isinstance(node.value, ast.Tuple):
                items = tuple(self._reads(element, tainted) for element in node.value.elts)
                if not any(items):
                    continue
                if isinstance(result, tuple) and len(result) == len(items):
                    items = tuple(a or b for a, b in zip(result, items, strict=True))
                result = items if result is None or isinstance(result, tuple) else True
            elif self._reads(node.value, tainted):
                result = True
        return result

    def findings(self, tree: ast.Module) -> Iterator[ast.Assert]:
        scopes: list[ast.AST] = [tree, *self.functions.values()]
        for scope in scopes:
            tainted = self._tainted(scope)
            for node in _own_nodes(scope):
                if isinstance(node, ast.Assert) and self._reads(node.test, tainted):
                    yield node


def check(paths: Iterable[Path]) -> list[str]:
    """``file:line: assert ...`` for every assertion reading the clock under ``paths``."""
    problems: list[str] = []
    for root in paths:
        files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
        for path in files:
            source = path.read_text(encoding="utf-8")
            tree = ast.parse(source, filename=str(path))
            for node in _Checker(tree).findings(tree):
                text = ast.get_source_segment(source, node) or "assert ..."
                first = text.splitlines()[0]
                problems.append(f"{path}:{node.lineno}: {first}")
    return sorted(set(problems), key=_order)


def _order(line: str) -> tuple[str, int]:
    path, number, _ = line.split(":", 2)
    return path, int(number)


def main(argv: list[str]) -> int:
    paths = [Path(arg) for arg in argv] or [Path("tests")]
    problems = check(paths)
    for line in problems:
        print(line)
    if problems:
        print(
            f"{len(problems)} assertion(s) read the clock: count work instead, and poll "
            "under a generous timeout that ends in pytest.fail (scripts/check_test_clock.py)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
