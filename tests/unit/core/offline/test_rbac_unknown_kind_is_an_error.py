"""A kind that is neither built in nor defined by a CRD in crds/ is an error naming it: a plural is
never guessed, since a wrong one would grant nothing and fail at run time."""

from pathlib import Path

import pytest

from engine.core.model import errors
from engine.core.offline import rbac


def test_unknown_kind_raises_naming_kind_and_api_version(tmp_path: Path) -> None:
    resources = rbac.offline_resources(tmp_path)

    with pytest.raises(errors.KindError, match=r"Gadget in example\.com/v1"):
        resources("example.com/v1", "Gadget")


def test_built_in_kinds_resolve_for_any_version(tmp_path: Path) -> None:
    resources = rbac.offline_resources(tmp_path)

    assert resources("autoscaling/v2", "HorizontalPodAutoscaler") == (
        "autoscaling",
        "horizontalpodautoscalers",
    )
    assert resources("autoscaling/v1", "HorizontalPodAutoscaler") == (
        "autoscaling",
        "horizontalpodautoscalers",
    )
    assert resources("v1", "Service") == ("", "services")
