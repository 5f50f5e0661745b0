"""On the real plane, function-go-templating's "conditions" example as ported
(examples/crossplane/conditions): the XR is Ready with its three conditions beside Ready, one of
them False, since each is ``gatesReady: false``.  The same kind without the mark on the False one
is not Ready, and its Ready says that condition's reason and message."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine.runtime.cluster.kube import Kube
from engine.tools import manifests
from tests.integration import _examples
from tests.integration._engine import ROOT, condition_is, conditions, eventually, running_engine

KIND = ROOT / "examples" / "crossplane" / "conditions"
EXAMPLE = KIND / "examples" / "example-xr.yaml"
INFORMS = "      message: \"'the installation failed'\"\n      gatesReady: false\n"


def marked(gates: bool) -> Callable[[str], str]:
    """kind.yaml as shipped; with ``gates``, TestCondition holds Ready back."""

    def rewrite(text: str) -> str:
        assert INFORMS in text, "the example no longer marks TestCondition gatesReady: false"
        return text.replace(INFORMS, INFORMS.splitlines(keepends=True)[0]) if gates else text

    return rewrite


@pytest.mark.parametrize("gates", [False, True])
def test_a_false_condition_that_only_informs_leaves_the_xr_ready(
    kube: Kube, namespace: str, tmp_path: Path, gates: bool
) -> None:
    templates = _examples.served(kube, KIND, tmp_path, marked(gates))
    xrs = kube.resource("conditions.crossplane.examples.stencil.dev/v1", "XR")
    with running_engine(kube, templates, namespace):
        manifests.apply_all(kube, manifests.read([EXAMPLE]), namespace)
        if not gates:
            xr = eventually(condition_is(kube, xrs, "example-xr", namespace, "Ready", "True"), what="Ready")
            found = {t: (c["status"], c["reason"]) for t, c in conditions(xr).items()}
            assert found["TestCondition"] == ("False", "InstallFail"), found
            assert found["ConditionTrue"] == ("True", "TrueCondition"), found
            assert found["DatabaseReady"] == ("True", "Ready"), found
        else:
            held = condition_is(kube, xrs, "example-xr", namespace, "TestCondition", "False")
            xr = eventually(held, what="TestCondition False")
            ready = conditions(xr)["Ready"]
            said = (ready["status"], ready["reason"], ready["message"])
            assert said == ("False", "InstallFail", "the installation failed"), ready
