"""A container mounting a volume its pod does not declare: the API server refuses it, so lint says so
at the mount's line; a StatefulSet's claim templates are volumes of its pods."""

from __future__ import annotations

from pathlib import Path

from tests.unit._lintkinds import line_of
from tests.unit._siblings import deployment, lint_kind, placed

MOUNTS = (
    "          volumeMounts:\n"
    "            - {name: cache, mountPath: /cache}\n"
    "            - {name: data, mountPath: /data}\n"
    "      volumes:\n"
    "        - {name: cache, emptyDir: {}}\n"
)


def test_a_mount_of_no_volume_of_its_pod_is_an_error_at_its_name(tmp_path: Path) -> None:
    template = deployment().replace(
        "          ports:\n", MOUNTS.split("      volumes")[0] + "          ports:\n"
    )
    template += MOUNTS.split("\n", 3)[3]

    folder, findings = lint_kind(tmp_path, {"deployment.yaml": template})

    assert placed(folder, findings) == [("deployment.yaml", line_of(template, "name: data"), "error")]
    assert "container web mounts data, which is no volume of its pod (cache)" in findings[0].message


def test_a_mount_of_a_statefulset_claim_template_is_fine(tmp_path: Path) -> None:
    template = (
        deployment()
        .replace("kind: Deployment", "kind: StatefulSet")
        .replace("spec:\n  selector", "spec:\n  serviceName: web\n  selector")
        .replace(
            "          ports:\n",
            "          volumeMounts: [{name: data, mountPath: /data}]\n          ports:\n",
        )
        + "  volumeClaimTemplates:\n    - metadata: {name: data}\n"
        "      spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n"
    )

    _, findings = lint_kind(tmp_path, {"statefulset.yaml": template})

    assert findings == []
