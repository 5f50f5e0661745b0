"""A volume of a ConfigMap, Secret or claim the kind does not render is a warning at its name (it may be
made outside the kind, and the message says so); one the kind renders is fine."""

from __future__ import annotations

from pathlib import Path

from tests.unit._lintkinds import configmap, line_of
from tests.unit._siblings import deployment, lint_kind, placed

VOLUMES = (
    "      volumes:\n"
    "        - {name: config, configMap: {name: '{{ name }}'}}\n"
    "        - {name: settings, configMap: {name: '{{ name }}-settings'}}\n"
    "        - {name: certs, secret: {secretName: tls}}\n"
    "        - {name: maybe, secret: {secretName: absent, optional: true}}\n"
    "        - {name: data, persistentVolumeClaim: {claimName: data}}\n"
)


def test_each_volume_naming_an_object_the_kind_does_not_render_is_a_warning(tmp_path: Path) -> None:
    template = deployment(pod=VOLUMES)

    folder, findings = lint_kind(tmp_path, {"deployment.yaml": template, "cm.yaml": configmap("  x: y\n")})

    assert placed(folder, findings) == [
        ("deployment.yaml", line_of(template, fragment), "warning")
        for fragment in ("name: settings", "name: certs", "name: data")
    ]
    said = findings[0].message
    assert "volume settings names ConfigMap small-settings, which the kind does not render" in said
    assert "if it is made outside the kind, declare it as an external reference" in said
