"""A release has one version: the package's (pyproject.toml), the chart's `version` and
`appVersion`, the image tag (values.yaml's `image.tag` is empty, so the chart's appVersion, or
says the same), the tag the install instructions name, and the CHANGELOG's latest release,
whose link is at the bottom. Bumping one and not the others fails here."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "charts" / "stencil"
INSTALL_DOCS = ("README.md", "docs/install.md")
# `--set image.tag=0.1.0` and `docker build -t <your registry>/stencil:0.1.0`.
IMAGE_TAG = re.compile(r"image\.tag=([^\s`]+)|/stencil:([^\s`]+)")
RELEASE = re.compile(r"^## \[(?P<version>[^\]]+)\] - \d{4}-\d{2}-\d{2}$", re.MULTILINE)


def package_version() -> str:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert isinstance(version, str)
    return version


def latest_release(changelog: str) -> str:
    releases = RELEASE.findall(changelog)
    assert releases, "CHANGELOG.md has no release heading `## [X.Y.Z] - YYYY-MM-DD`"
    return str(releases[0])


def test_the_chart_says_the_packages_version() -> None:
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())

    assert (chart["version"], chart["appVersion"]) == (package_version(), package_version())


def test_the_image_tag_is_the_charts_app_version() -> None:
    values = yaml.safe_load((CHART / "values.yaml").read_text())

    assert values["image"]["tag"] in ("", package_version())


def test_the_install_instructions_name_the_packages_image_tag() -> None:
    named = {
        (doc, tag or built)
        for doc in INSTALL_DOCS
        for tag, built in IMAGE_TAG.findall((ROOT / doc).read_text())
    }

    assert named, "the install instructions name no image tag"
    assert {tag for _, tag in named} == {package_version()}, sorted(named)


def test_the_changelogs_latest_release_is_the_packages_version_and_has_its_link() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text()
    version = latest_release(changelog)

    assert version == package_version()
    assert changelog.index("## [Unreleased]") < changelog.index(f"## [{version}]")
    assert re.search(rf"^\[{re.escape(version)}\]: \S+$", changelog, re.MULTILINE)
    assert re.search(rf"^\[Unreleased\]: \S*v{re.escape(version)}\.\.\.HEAD$", changelog, re.MULTILINE)
