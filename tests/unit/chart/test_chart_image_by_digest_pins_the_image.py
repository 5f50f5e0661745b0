"""image.digest pulls the engine by digest (<repository>@sha256:...), whatever the tag says;
anything but a sha256 digest is refused by the values schema."""

from __future__ import annotations

from tests.unit._chart import pod, render, template

DIGEST = "sha256:" + "0123456789abcdef" * 4


def test_a_digest_replaces_the_tag() -> None:
    engine = pod(
        render("image.repository=registry.example/stencil", "image.tag=1.0", f"image.digest={DIGEST}")
    )

    assert engine["containers"][0]["image"] == f"registry.example/stencil@{DIGEST}"


def test_without_a_digest_the_tag_is_used() -> None:
    engine = pod(render("image.repository=registry.example/stencil", "image.tag=1.0"))

    assert engine["containers"][0]["image"] == "registry.example/stencil:1.0"


def test_a_digest_that_is_not_sha256_is_refused() -> None:
    for digest in ("latest", "sha256:abc", "md5:" + "0" * 32):
        result = template(f"image.digest={digest}")
        assert result.returncode != 0, digest
        assert "image.digest" in result.stderr or "digest" in result.stderr, result.stderr
