"""Running the engine inside a test, scoped to the test's namespace, and waiting on the cluster."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from engine import controller
from engine.kube import Kube
from engine.testing import wait_until

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


@contextlib.contextmanager
def running_engine(
    kube: Kube, templates: Path, namespace: str | None, **options: Any
) -> Iterator[controller.Engine]:
    namespaces = (namespace,) if namespace else ()
    opts = controller.Options(**{"namespaces": namespaces, "workers": 2, "reload_interval": 0.3, **options})
    engine = controller.Engine(kube, templates, opts)
    engine.start()
    try:
        yield engine
    finally:
        engine.stop()


def eventually(probe: Callable[[], T | None], timeout: float = 60.0, what: str = "condition") -> T:
    """The first truthy value ``probe`` returns, polling; fails the test after ``timeout``."""
    return wait_until(probe, timeout=timeout, what=what)


def conditions(obj: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    return {c["type"]: c for c in ((obj or {}).get("status") or {}).get("conditions", [])}


def condition_is(
    kube: Kube, res: Any, name: str, namespace: str, type_: str, status: str
) -> Callable[[], Any]:
    def probe() -> Any:
        obj = kube.get(res, name, namespace)
        cond = conditions(obj).get(type_)
        return obj if cond and cond["status"] == status else None

    return probe
