"""A template reads ``children.<id>``: the observed child that template rendered, as status rules do.

The template it reads is rendered first, whatever the kind's order, so what it rendered this
time, matched against what is observed, says which object is its child; the children come out
in the kind's order all the same.
"""

from __future__ import annotations

from typing import Any

from engine.core.templating import rendering
from tests.unit import _kinds

SERVICE_TEMPLATE = "apiVersion: v1\nkind: Service\nmetadata:\n  name: '{{ name }}-svc'\nspec: {}\n"
OBSERVED_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "w-svc", "namespace": "ns", "uid": "u-7"},
    "spec": {"clusterIP": "10.96.0.7"},
}


def render(
    data: str, service: str, observed: list[dict[str, Any]], *, collection: bool = False
) -> list[dict[str, Any]]:
    """The children of a kind whose ConfigMap (``cm``, first) reads the template ``svc``
    (both collections with ``collection``)."""
    kind = _kinds.kind(_kinds.configmap(data), service, names=("cm.yaml", "svc.yaml"), collection=collection)
    return rendering.render(kind, _kinds.parent(), observed)


def test_a_template_reads_the_observed_child_of_another_by_its_id() -> None:
    data = '  ip: "{{ children.svc.spec.clusterIP }}"\n  uid: "{{ children[\'svc\'].metadata.uid }}"\n'

    configmap, service = render(data, SERVICE_TEMPLATE, [OBSERVED_SERVICE])

    assert configmap["data"] == {"ip": "10.96.0.7", "uid": "u-7"}
    assert (configmap["kind"], service["kind"]) == ("ConfigMap", "Service")


def test_the_child_reads_as_none_until_it_is_observed() -> None:
    data = "  ip: \"{{ children.svc.spec.clusterIP if children.svc is not none else 'pending' }}\"\n"

    configmap, _ = render(data, SERVICE_TEMPLATE, [])

    assert configmap["data"] == {"ip": "pending"}


def test_an_observed_object_of_another_name_is_not_that_templates_child() -> None:
    other = {**OBSERVED_SERVICE, "metadata": {**OBSERVED_SERVICE["metadata"], "name": "w-old"}}
    data = '  found: "{{ children.svc is none }}"\n'

    configmap, _ = render(data, SERVICE_TEMPLATE, [other])

    assert configmap["data"] == {"found": "true"}


def test_a_collection_template_reads_as_the_list_of_those_observed() -> None:
    services = SERVICE_TEMPLATE + "---\n" + SERVICE_TEMPLATE.replace("-svc", "-svc2")
    data = "  ips: \"{{ children.svc | map(attribute='spec.clusterIP') | join(',') }}\"\n"

    configmap, *_ = render(data, services, [OBSERVED_SERVICE], collection=True)

    assert configmap["data"] == {"ips": "10.96.0.7"}


def test_a_template_that_renders_nothing_reads_as_none() -> None:
    data = '  none: "{{ children.svc is none }}"\n'

    [configmap] = render(data, "{% if false %}" + SERVICE_TEMPLATE + "{% endif %}", [OBSERVED_SERVICE])

    assert configmap["data"] == {"none": "true"}
