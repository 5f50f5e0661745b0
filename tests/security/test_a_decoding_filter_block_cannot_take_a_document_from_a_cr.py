"""`{% filter b64decode %}{{ spec.image }}{% endfilter %}` decodes the CR value into one value, not into text.

What a decoder reads out of a CR value is that value's data, so it lands as one
string: a template made only of it renders no Secret, but the error that its
output is not a manifest, at its file and line.
"""

from __future__ import annotations

import base64
from pathlib import Path

from tests.security import _offline

TEMPLATE = "{% filter b64decode %}{{ spec.image }}{% endfilter %}\n"
SECRET = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: stolen\nstringData:\n  token: x\n"


def test_a_decoded_cr_value_is_a_value_not_a_document(tmp_path: Path) -> None:
    file, result = _offline.render(tmp_path, TEMPLATE, {"image": base64.b64encode(SECRET.encode()).decode()})

    assert "Secret" not in result.stdout
    assert result.exit_code != 0
    assert f"{file}:1:" in result.output
