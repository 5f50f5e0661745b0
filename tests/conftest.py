"""Suite-wide settings; the cluster fixtures come from the ``stencil`` pytest plugin.

The plugin is registered as an entry point, so it is there only when the project
is installed; without it every cluster test would fail with "fixture not found",
which hides the one-line fix, so say it up front.
"""

from __future__ import annotations

import pytest
from hypothesis import settings

# The machines that run this suite are small and shared: a property test that
# is slow once because a compiler took the CPU has not failed.
settings.register_profile("stencil", deadline=None)
settings.load_profile("stencil")


def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.has_plugin("stencil"):
        raise pytest.UsageError("the stencil pytest plugin is missing: run `pip install -e '.[test]'` first")
