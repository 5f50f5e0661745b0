"""A document whose ``{% if %}`` branches each spell out a child kind derives every one of them:
the kind may write (and its role grants) the Job of one branch and the Deployment of the other."""

from engine.core.model.children import placement

TEMPLATE = """\
{% if spec.job %}
apiVersion: batch/v1
kind: Job
metadata: {name: "{{ name }}-job"}
{% else %}
apiVersion: apps/v1
kind: Deployment
metadata: {name: "{{ name }}-pods"}
{% endif %}
"""


def test_both_branches_kinds_are_derived() -> None:
    assert placement.literal_child_kinds(TEMPLATE) == {("batch/v1", "Job"), ("apps/v1", "Deployment")}
