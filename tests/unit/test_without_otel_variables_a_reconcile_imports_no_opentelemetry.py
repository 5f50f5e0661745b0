"""Without the ``OTEL_*`` variables, tracing costs nothing it could avoid: ``stencil run`` is
handed the shared no-op tracer, and a whole reconcile through it never imports opentelemetry
(in a fresh interpreter, as the engine starts)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RECONCILE = """
import sys, tempfile
from pathlib import Path
from engine.core.model.objects import Key
from engine.runtime.telemetry import tracing
from tests.seam._fake import FakeKube
from tests.seam._harness import SPEC_VALUE_IN_CONFIG_MAP_A, engine_for, parent, worker_of

tracer = tracing.from_environment()
assert tracer is tracing.OFF, tracer
fake = FakeKube()
parent(fake, value="v")
with tempfile.TemporaryDirectory() as folder, engine_for(fake, Path(folder), SPEC_VALUE_IN_CONFIG_MAP_A) as c:
    worker_of(c).process(Key("ns", "w"))
assert ("APPLY", "ConfigMap ns/w-a") in fake.calls, fake.calls
print(sorted(name for name in sys.modules if name.split(".")[0] == "opentelemetry"))
"""


def test_a_reconcile_without_otel_variables_imports_no_opentelemetry() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")} | {"PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", RECONCILE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
