"""helm is stamped with its own version and the Kubernetes version of its client-go."""

from __future__ import annotations

import pytest

from engine.localcluster.binaries import BuildError, helm_ldflags

HELM_GOMOD = """module helm.sh/helm/v3

go 1.24.0

require (
	github.com/Masterminds/semver/v3 v3.4.0
	k8s.io/api v0.34.2
	k8s.io/client-go v0.34.2
)
"""


def test_helm_reports_its_release_and_renders_for_the_kubernetes_of_its_client_go() -> None:
    flags = helm_ldflags("v3.19.5", HELM_GOMOD).split(" -X ")
    assert "helm.sh/helm/v3/internal/version.version=v3.19.5" in flags
    assert "helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1" in flags
    assert "helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=34" in flags
    assert "helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=34" in flags


def test_a_go_mod_without_client_go_is_an_error() -> None:
    with pytest.raises(BuildError, match="client-go"):
        helm_ldflags("v3.19.5", "module helm.sh/helm/v3\n")
