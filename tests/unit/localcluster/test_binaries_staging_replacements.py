"""k8s.io/kubernetes's ./staging replaces become the published v0.Y.Z releases."""

from __future__ import annotations

import pytest

from engine.localcluster.binaries import BuildError, staging_replacements

GOMOD = """module k8s.io/kubernetes

go 1.24.0

require (
	k8s.io/api v0.0.0
	k8s.io/client-go v0.0.0
	sigs.k8s.io/yaml v1.4.0
)

replace (
	k8s.io/api => ./staging/src/k8s.io/api
	k8s.io/client-go => ./staging/src/k8s.io/client-go
	github.com/example/fork => github.com/example/fork v1.2.3
)

replace k8s.io/code-generator => ./staging/src/k8s.io/code-generator
"""


def test_every_staging_replace_maps_to_the_matching_v0_release() -> None:
    assert staging_replacements(GOMOD, "v1.34.4") == {
        "k8s.io/api": "k8s.io/api v0.34.4",
        "k8s.io/client-go": "k8s.io/client-go v0.34.4",
        "k8s.io/code-generator": "k8s.io/code-generator v0.34.4",
    }


def test_a_prerelease_keeps_its_suffix() -> None:
    assert staging_replacements(GOMOD, "v1.35.0-rc.1")["k8s.io/api"] == "k8s.io/api v0.35.0-rc.1"


def test_a_go_mod_without_staging_replaces_is_an_error() -> None:
    with pytest.raises(BuildError, match=r"no \./staging replace"):
        staging_replacements("module example.com/x\n\nreplace a.b/c => ../c\n", "v1.34.4")
