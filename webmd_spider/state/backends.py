"""Opening a job's state store by backend name: ``sqlite`` (default), ``memory``,
``redis``, or the dotted path of any :class:`~webmd_spider.state.store.StateStore`
subclass.

PURE: standard library only (the redis backend needs the ``redis`` package, imported
only when asked for). The backends import the store's contract
(``webmd_spider.state.store``) and this module imports them: the contract never
imports a backend, so no module of the package imports itself back.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from webmd_spider.extras import install_hint
from webmd_spider.state.store import (
    MemoryStateStore,
    SqliteStateStore,
    StateStore,
    StateStoreError,
    validate_job_name,
)

__all__ = ["open_store"]


_BACKENDS: dict[str, type[StateStore]] = {
    "sqlite": SqliteStateStore,
    "memory": MemoryStateStore,
}


# Built-in backends imported only when asked for, so their client libraries stay
# optional: name -> (dotted path, the package it needs, the extra that installs it).
_LAZY_BACKENDS: dict[str, tuple[str, str, str]] = {
    "redis": ("webmd_spider.state.redis_store.RedisStateStore", "redis", "distributed"),
}


def _backend_class(backend: str) -> type[StateStore]:
    name = backend.strip()
    if name in _BACKENDS:
        return _BACKENDS[name]
    if name in _LAZY_BACKENDS:
        path, package, extra = _LAZY_BACKENDS[name]
        try:
            importlib.import_module(path.rpartition(".")[0])
        except Exception as exc:
            missing = isinstance(exc, ModuleNotFoundError) and (
                exc.name == package or (exc.name or "").startswith(package + ".")
            )
            if missing:
                raise StateStoreError(
                    f"the {name} backend needs the {package!r} package: {install_hint(extra)}"
                ) from exc
            raise StateStoreError(
                f"cannot import state backend {backend!r}: {type(exc).__name__}: {exc}"
            ) from exc
        name = path
    module_name, _, class_name = name.rpartition(".")
    if not module_name or not class_name:
        raise StateStoreError(
            f"unknown state backend {backend!r}: use 'sqlite', 'memory', 'redis' or a dotted "
            "path package.module.ClassName to a StateStore subclass"
        )
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # ImportError, or whatever the module raises on import
        raise StateStoreError(
            f"cannot import state backend {backend!r}: {type(exc).__name__}: {exc}"
        ) from exc
    cls = getattr(module, class_name, None)
    if cls is None:
        raise StateStoreError(
            f"cannot import state backend {backend!r}: module {module_name!r} has no {class_name!r}"
        )
    if not (isinstance(cls, type) and issubclass(cls, StateStore)):
        raise StateStoreError(f"state backend {backend!r} is not a StateStore subclass")
    return cls


def open_store(
    backend: str, state_dir: str | Path, job: str, *, lock_timeout: float = 0.0
) -> StateStore:
    """Open ``job``'s state under ``state_dir`` with ``backend``.

    ``backend`` is ``"sqlite"`` (default), ``"memory"``, ``"redis"`` (the server in
    ``WEBMD_REDIS_URL``; ``state_dir`` is not used; see
    :mod:`webmd_spider.state.redis_store`), or ``package.module.ClassName`` of a
    :class:`StateStore` subclass (its classmethod ``open(state_dir, job,
    lock_timeout)`` is called). Raises :class:`StateLockedError` if another run holds
    the job after ``lock_timeout`` seconds, :class:`StateStoreError` for an unknown
    backend, an invalid job name, or a store that cannot be opened.
    """
    try:
        validate_job_name(job)
    except ValueError as exc:
        raise StateStoreError(str(exc)) from None
    cls = _backend_class(backend or "sqlite")
    store = cls.open(Path(state_dir), job, lock_timeout)
    if not isinstance(store, StateStore):
        raise StateStoreError(f"state backend {backend!r}: open() did not return a StateStore")
    return store
