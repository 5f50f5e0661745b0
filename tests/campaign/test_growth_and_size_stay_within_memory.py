"""Class 3 and input sizes: no template operation, CR value or input file makes a command use more
than a gigabyte.  Every case runs as ``stencil render`` in one child process whose address space is
capped at ``_bounded.MEMORY_BYTES``: each case renders or fails in one located line, and the child's
peak memory stays under the cap."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.campaign import _bounded, _hostile

# Each grows a value to a size N taken from the CR (spec.value), so the size is the tenant's to choose.
GROWING = [
    "'x'.ljust(spec.value)",
    "'x'.rjust(spec.value)",
    "'x'.center(spec.value)",
    "'7'.zfill(spec.value)",
    "'a\\tb'.expandtabs(spec.value)",
    "'{:>{w}}'.format(1, w=spec.value)",
    "('{:>' ~ spec.value ~ '}').format(1)",
    "('%' ~ spec.value ~ 'd') % 1",
    "'%*d' % (spec.value, 1)",
    "'x' | indent(spec.value)",
    "'x' | center(spec.value)",
    "['a', 'b'] | join('-' * spec.value)",
    "'abc' | replace('', '-' * spec.value)",
    "'x' * spec.value",
    "['x'] * spec.value",
    "2 ** spec.value",
    "spec.value ** spec.value",
    "range(spec.value) | list",
    "range(spec.value) | join(',')",
    "{'a': 'x' * 1000} | tojson(indent=spec.value)",
    "('a' ~ 'b' * spec.value) | upper",
    "lipsum(spec.value)",
    "'x' | wordwrap(1, wrapstring='-' * spec.value)",
    "(('x' * 1000) ~ ('y' * 1000)) * (spec.value // 2000 + 1)",
]
SIZES = [1_000, 10**7, 10**9, 10**12]


def test_growing_operations_render_or_fail_in_one_line_within_a_gigabyte(tmp_path: Path) -> None:
    cases = []
    for index, expression in enumerate(GROWING):
        template = _hostile.TEMPLATE + f"  grown: '{{{{ (({expression}) | string)[:20] }}}}'\n"
        lab = _hostile.lab(tmp_path / f"op{index}", template=template)
        for size in SIZES:
            cr = lab.cr(f"value: {size}", file=f"cr-{size}.yaml")
            cases.append(["render", str(lab.kind_dir), "--crds", str(lab.crds_dir), "-f", str(cr)])

    outcomes, peak = _bounded.run(cases)

    for case, outcome in zip(cases, outcomes, strict=True):
        try:
            _hostile.assert_clean(outcome)
        except AssertionError as error:
            raise AssertionError(f"{case}: {error}") from error
    assert peak < _bounded.MEMORY_BYTES


def small_mappings(size: int) -> str:
    """A list of one-key mappings filling about ``size`` characters."""
    line = "  - k: v\n"
    return "value:\n" + line * (size // len(line))


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(lambda: "value: " + "x" * (5 * 1024 * 1024), id="5-MiB-scalar"),
        pytest.param(lambda: small_mappings(1024 * 1024), id="1-MiB-of-small-mappings"),
        pytest.param(lambda: "value: [" + "1," * (512 * 1024) + "1]", id="1-MiB-flow-list"),
        pytest.param(lambda: "value: '" + "é" * (1024 * 1024) + "'", id="2-MiB-of-two-byte-characters"),
        pytest.param(lambda: "value: '" + "é" * (2 * 1024 * 1024) + "'", id="4-MiB-of-two-byte-characters"),
        pytest.param(lambda: ("value: " + "[" * 90 + "]" * 90 + "\n") * 1, id="deep-within-the-limit"),
    ],
)
def test_large_cr_files_render_or_fail_in_one_line_within_a_gigabyte(tmp_path: Path, content: object) -> None:
    lab = _hostile.lab(tmp_path)
    assert callable(content)
    cr = lab.cr(content())

    [outcome], peak = _bounded.run(
        [["render", str(lab.kind_dir), "--crds", str(lab.crds_dir), "-f", str(cr)]]
    )

    _hostile.assert_clean(outcome)
    assert peak < _bounded.MEMORY_BYTES


@pytest.mark.parametrize("special", ["/dev/zero", "/dev/urandom", "fifo", "directory-link"])
def test_a_file_that_is_not_regular_is_refused_in_one_line(tmp_path: Path, special: str) -> None:
    lab = _hostile.lab(tmp_path)
    target = Path(special)
    if special == "fifo":
        target = tmp_path / "cr.fifo"
        os.mkfifo(target)
    elif special == "directory-link":
        target = tmp_path / "cr-link.yaml"
        target.symlink_to("/dev/zero")

    result = lab.render(target)

    assert result.exit_code == 1
    _hostile.assert_clean(result)
    assert "not a regular file" in result.output
