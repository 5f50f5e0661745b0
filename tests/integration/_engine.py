"""Running the engine inside a test, scoped to the test's namespace, and waiting on the cluster."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from engine import controller
from engine.kube import Kube

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


@contextlib.contextmanager
def running_engine(
    kube: Kube, templates: Path, namespace: str, **options: Any
) -> Iterator[controller.Engine]:
    opts = controller.Options(namespace=namespace, workers=2, reload_interval=0.3, **options)
    engine = controller.Engine(kube, templates, opts)
    engine.start()
    try:
        yield engine
    finally:
        engine.stop()


def eventually(probe: Callable[[], T | None], timeout: float = 60.0, what: str = "condition") -> T:
    """The first truthy value ``probe`` returns, polling; fails the test after ``timeout``."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}; last value: {last!r}")


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
