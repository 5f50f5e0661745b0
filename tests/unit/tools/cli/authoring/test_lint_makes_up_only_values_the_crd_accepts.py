"""A branch no example takes is rendered for a made-up parent only when the CRD accepts what was made
up: a guard on a field whose plainest value breaks its `format` leaves the branch to the static checks,
and a child field there is not reported from a parent the API server would refuse."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from engine.tools.cli import main
from tests.mistakes.base import WEB, WEB_DEPLOYMENT

# spec.contact is `format: email`: "x", the plainest string, is not one.
GUARDED = "{% if spec.contact is defined %}\n          volumes: []\n{% endif %}\n"


def test_lint_leaves_a_branch_to_the_static_checks_when_its_made_up_parent_is_refused(tmp_path: Path) -> None:
    anchor = "          image: {{ spec.image }}\n"
    template = WEB_DEPLOYMENT.replace(anchor, anchor + GUARDED)
    line = template.splitlines().index("{% if spec.contact is defined %}") + 1
    files = {**WEB, "templates/web/deployment.yaml": template}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)

    result = CliRunner().invoke(main, ["lint", str(tmp_path / "templates" / "web")])

    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        f"{tmp_path}/templates/web/deployment.yaml:{line}: warning: "
        "no example takes this {% if %} branch: only the static checks read it"
    ]
