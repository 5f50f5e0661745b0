"""kind.yaml's ``rollout:`` is read as written (a count or a percent; a duration or seconds) and
defaults to Deployment's; a value that is neither is refused at its line, naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model import errors, kinds
from engine.core.model.rollouts import Policy

HEAD = "apiVersion: stencil.dev/v1alpha1\nkind: StencilKind\nparent: {apiVersion: example.com/v1, kind: K}\n"
CHILD = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: '{{ name }}'}\n"


def _load(tmp_path: Path, rollout: str) -> kinds.Kind:
    folder = tmp_path / "k"
    folder.mkdir()
    (folder / "kind.yaml").write_text(HEAD + rollout)
    (folder / "cm.yaml").write_text(CHILD)
    return kinds.load_kind(folder)


@pytest.mark.parametrize(
    ("written", "policy"),
    [
        ("rollout: {maxUnavailable: 10%, progressDeadline: 5m}\n", Policy("10%", 300.0)),
        ("rollout: {maxUnavailable: 3, progressDeadline: 90}\n", Policy(3, 90.0)),
        ("rollout: {progressDeadline: 1h30m}\n", Policy("25%", 5400.0)),
        ("rollout: {}\n", Policy("25%", 600.0, "10%", 1)),
        ("rollout: {maxFailures: 0, maxFailedNamespaces: 3}\n", Policy("25%", 600.0, 0, 3)),
        ("rollout: {maxFailures: 50%}\n", Policy(max_failures="50%")),
        ("", None),
    ],
)
def test_it_is_read_as_written(tmp_path: Path, written: str, policy: Policy | None) -> None:
    assert _load(tmp_path, written).rollout == policy


@pytest.mark.parametrize(
    ("written", "field"),
    [
        ("rollout:\n  maxUnavailable: ten\n", "maxUnavailable"),
        ("rollout:\n  maxUnavailable: 150%\n", "maxUnavailable"),
        ("rollout:\n  progressDeadline: soon\n", "progressDeadline"),
        ("rollout:\n  maxFailures: 101%\n", "maxFailures"),
        ("rollout:\n  maxFailedNamespaces: -1\n", "maxFailedNamespaces"),
    ],
)
def test_a_bad_value_is_refused_at_its_line(tmp_path: Path, written: str, field: str) -> None:
    with pytest.raises(errors.KindError) as refused:
        _load(tmp_path, written)
    assert refused.value.line == 5 and field in str(refused.value)
