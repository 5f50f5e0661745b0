"""helm is stamped with its own release, in the version package of its own major version."""

from __future__ import annotations

from engine.localcluster.binaries import helm_ldflags


def test_helm_reports_its_release() -> None:
    flags = helm_ldflags("v4.3.1").split(" -X ")
    assert "helm.sh/helm/v4/internal/version.version=v4.3.1" in flags
    assert "helm.sh/helm/v4/internal/version.gitTreeState=clean" in flags

