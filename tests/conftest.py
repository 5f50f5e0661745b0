"""Suite-wide settings; the cluster fixtures come from Stencil's opt-in pytest plugin.

The plugin (``engine.testing.plugin``) is enabled here, as any project that tests
its kinds against a real control plane enables it: it gives ``local_cluster``,
``kube`` and ``namespace``, and marks the tests that use them ``cluster``.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from hypothesis import settings

from engine.core.offline import validation_rules

pytest_plugins = ["engine.testing.plugin"]

# celpy raises the interpreter's recursion limit once, when its first Environment is made (on the
# first rule that needs it).  Made here, before any test runs, rather than inside the first property
# test that reaches a CEL rule, where hypothesis warns that the limit changed under it (an error here).
validation_rules.environment()

# The machines that run this suite are small and shared: a property test that
# is slow once because a compiler took the CPU has not failed.
settings.register_profile("stencil", deadline=None)
settings.load_profile("stencil")


@pytest.fixture(autouse=True)
def _no_connection_outlives_its_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """A cluster test's unclosed connection fails that test, not whichever later test the
    collector happens to run in: the collector runs as the test ends (cluster tests only,
    where connections are made and a collection costs little beside the test)."""
    yield
    if request.node.get_closest_marker("cluster") is not None:
        gc.collect()
