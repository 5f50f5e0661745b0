"""The release version is stamped where `--version` and the API's /version read it."""

from __future__ import annotations

from engine.localcluster.binaries import version_ldflags


def test_version_is_stamped_into_component_base_and_client_go() -> None:
    flags = version_ldflags("v1.34.4").split(" -X ")
    for package in ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version"):
        assert f"{package}.gitVersion=v1.34.4" in flags
        assert f"{package}.gitMajor=1" in flags
        assert f"{package}.gitMinor=34" in flags
        assert f"{package}.gitTreeState=clean" in flags
