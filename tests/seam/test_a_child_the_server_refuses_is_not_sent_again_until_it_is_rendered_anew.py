"""A child the API server refuses for good (422) is said on the parent in one line with its own
reason and one Warning event, and is not sent again as it is: another reconcile (a child's
event, a resync) sends nothing and asks to look again only after a slow back-off; a new
rendering (the parent's spec changed) is sent at once."""

from pathlib import Path

import pytest

from engine.core.decisions.plans import refusing
from engine.core.model import errors
from engine.core.model.objects import Key
from tests._deadlines import eventually
from tests.seam._fake import FakeKube
from tests.seam._harness import SPEC_VALUE_IN_CONFIG_MAP_A, WIDGET, conditions, engine_for, parent

STRUCT_DUMP = (
    'ConfigMap "w-a" is invalid: data.value: Invalid value: "x": must not be x\n'
    "  core.ConfigMap{\n-  Data: {value: x},\n+  Data: {value: y},\n  }\n"
)
INVALID = {
    "reason": "Invalid",
    "message": STRUCT_DUMP,
    "details": {"causes": [{"reason": "FieldValueInvalid", "field": "data.value", "message": "no x"}]},
}


def applies(fake: FakeKube) -> int:
    return fake.calls.count(("APPLY", "ConfigMap ns/w-a"))


def test_a_refused_child_is_held_until_the_parent_renders_it_anew(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake, value="x")
    fake.fail_apply["w-a"] = errors.api_error(422, INVALID, "apply")
    with engine_for(fake, tmp_path, SPEC_VALUE_IN_CONFIG_MAP_A) as controller:
        with pytest.raises(errors.Refused) as first:
            controller.reconcile(Key("ns", "w"))
        assert applies(fake) == 1
        applied, ready = conditions(fake)["ChildrenApplied"], conditions(fake)["Ready"]
        assert (applied["status"], applied["reason"]) == ("False", refusing.CHILD_REFUSED)
        assert ready["reason"] == refusing.CHILD_REFUSED
        assert applied["message"] == "422 " + STRUCT_DUMP.splitlines()[0]
        assert first.value.retry_after == refusing.FIRST_WAIT

        for _ in range(5):  # woken again and again: nothing is sent, the verdict stands
            with pytest.raises(errors.Refused) as again:
                controller.reconcile(Key("ns", "w"))
            assert again.value.retry_after is not None and 0 < again.value.retry_after <= refusing.FIRST_WAIT
        assert applies(fake) == 1
        warnings = [e for e in fake.events if e.get("reason") == refusing.CHILD_REFUSED]
        assert len(warnings) == 1, warnings
        assert "\n" not in warnings[0]["message"]

        del fake.fail_apply["w-a"]
        fake.add({**fake.objects[WIDGET], "spec": {"value": "y"}})  # the tenant fixes the spec
        eventually(lambda: controller.parents.get("ns", "w")["spec"] == {"value": "y"}, what="the new spec")
        controller.reconcile(Key("ns", "w"))

        assert applies(fake) == 2
        assert conditions(fake)["ChildrenApplied"]["status"] == "True"
