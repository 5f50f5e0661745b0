"""A value read from a Secret (a reference, an observed child) may be rendered into a Secret
child's data and nowhere else: a ConfigMap's data, a label, an annotation, a Secret's name are
refused at the template line, naming the field and never quoting the value; a sha256 of it may go
anywhere."""

from __future__ import annotations

import base64

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _references as refs

PASSWORD = "hunter2-very-secret"
SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "db", "namespace": "shop"},
    "data": {"password": base64.b64encode(PASSWORD.encode()).decode()},
}
SECRET_DATA = (
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {name}\n  labels:\n    l: {label}\n"
    "data:\n  password: {{{{ references.config.data.password }}}}\n"
)


def _render(template: str) -> list[dict]:
    kind = refs.kind(refs.reference(kind="Secret"), templates=(template,))
    return rendering.render(kind, refs.parent(configName="db"), [], references={"config": SECRET})


def _refused(template: str) -> RenderError:
    with pytest.raises(RenderError) as caught:
        _render(template)
    assert PASSWORD not in str(caught.value.message)
    assert SECRET["data"]["password"] not in str(caught.value.message)
    return caught.value


@pytest.mark.parametrize(
    ("template", "field", "line"),
    [
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
            "data:\n  p: {{ references.config.data.password | b64decode }}\n",
            "data.p",
            6,
        ),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
            'data:\n  p: "pw={{ references.config.data.password }}"\n',
            "data.p",
            6,
        ),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n"
            "    a: {{ references.config.data.password | b64decode }}\n",
            "metadata.annotations.a",
            6,
        ),
        (SECRET_DATA.format(name="s", label="{{ references.config.data.password }}"), "metadata.labels.l", 6),
        (
            SECRET_DATA.format(name="{{ references.config.data.password | b64decode | lower }}", label="x"),
            "metadata.name",
            4,
        ),
    ],
)
def test_a_secret_value_outside_a_secrets_data_is_refused_at_its_line(
    template: str, field: str, line: int
) -> None:
    error = _refused(template)
    assert (error.file, error.line, error.field) == ("templates/web/t0.yaml", line, field)
    assert "read from a Secret" in error.message


def test_a_secret_value_goes_into_a_secret_childs_data() -> None:
    (child,) = _render(SECRET_DATA.format(name="s", label="x"))
    assert child["data"]["password"] == SECRET["data"]["password"]


def test_a_sha256_of_a_secret_value_may_go_into_an_annotation() -> None:
    template = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n"
        "    checksum: {{ references.config.data | sha256 }}\n"
    )
    (child,) = _render(template)
    assert len(child["metadata"]["annotations"]["checksum"]) == 64


def test_an_observed_secret_childs_value_is_secret_too() -> None:
    kind = refs.kind(
        templates=(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
            "data:\n  p: {{ child('Secret', 'db').data.password }}\n",
        )
    )
    with pytest.raises(RenderError) as caught:
        rendering.render(kind, refs.parent(), [SECRET])
    assert caught.value.field == "data.p"
