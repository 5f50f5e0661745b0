"""A child's apiVersion that is not ``VERSION`` or ``GROUP/VERSION`` (a trailing ``/``, an empty
group) is refused at its template line before anything asks the server of it, where it would
otherwise name a path no cache can list."""

from __future__ import annotations

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds


@pytest.mark.parametrize("api_version", ["apps/v1/", "apps//v1", "/v1", "Apps/v1", "apps/v1 "])
def test_a_malformed_child_api_version_is_an_error_at_its_line(api_version: str) -> None:
    template = f"kind: Deployment\nmetadata:\n  name: web\napiVersion: '{api_version}'\n"
    with pytest.raises(RenderError, match="not VERSION or GROUP/VERSION") as caught:
        rendering.render(_kinds.kind(template), _kinds.parent(), [])
    assert (caught.value.file, caught.value.field) == ("templates/web/t0.yaml", "apiVersion")
    assert "t0.yaml:4" in str(caught.value)


@pytest.mark.parametrize("api_version", ["v1", "apps/v1", "networking.k8s.io/v1", "example.com/v2beta1"])
def test_a_well_formed_api_version_is_not_refused_for_its_form(api_version: str) -> None:
    template = f"apiVersion: {api_version}\nkind: ConfigMap\nmetadata:\n  name: web\n"
    try:
        rendering.render(_kinds.kind(template), _kinds.parent(), [])
    except RenderError as error:
        assert "GROUP/VERSION" not in str(error)
