"""A child kind whose listing hangs holds up only the parents that render it.

The Widget kind renders a Secret and the Gadget kind a ConfigMap; the fake server never
answers the list of Secrets.  Gadgets must converge regardless: no worker of one kind
waits on another kind's network, and the Widget is reconciled as soon as its cache fills.
"""

import threading
from pathlib import Path

from engine.runtime.serving import manager
from tests._deadlines import eventually
from tests.integration._widgets import write_kind
from tests.seam._fake import FakeKube
from tests.seam._harness import NAMESPACE, write_gadget_kind

SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: {{ name }}-s
stringData:
  value: v
"""

CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-c
data:
  value: v
"""


def ready(fake: FakeKube, kind: str, name: str) -> bool:
    obj = fake.objects.get(("tests.stencil.dev/v1", kind, NAMESPACE, name), {})
    found = obj.get("status", {}).get("conditions", [])
    return any(c["type"] == "Ready" and c["status"] == "True" for c in found)


def test_gadgets_converge_while_the_list_of_secrets_hangs(tmp_path: Path) -> None:
    fake = FakeKube()
    answer = fake.hang_lists["secrets"] = threading.Event()
    templates = write_kind(tmp_path / "templates", {"secret.yaml": SECRET})
    write_gadget_kind(templates, {"configmap.yaml": CONFIGMAP})
    for kind in ("Widget", "Gadget"):
        meta = {"name": "p", "namespace": NAMESPACE}
        fake.add({"apiVersion": "tests.stencil.dev/v1", "kind": kind, "metadata": meta})
    options = manager.Options(workers=1, reload_interval=0.1)
    engine = manager.Engine(fake, templates, options)
    engine.start()
    try:
        eventually(lambda: ready(fake, "Gadget", "p"), what="the Gadget Ready")
        assert ("v1", "Secret", NAMESPACE, "p-s") not in fake.objects
        assert not ready(fake, "Widget", "p")

        answer.set()

        eventually(lambda: ready(fake, "Widget", "p"), what="the Widget Ready once Secrets list")
    finally:
        answer.set()
        engine.stop(grace=1)
