"""The security tier runs on the integration tier's fixtures: the CRDs installed once, the
Widget and DeployWebService resources."""

from tests.integration.conftest import crds_installed, dws, widgets

__all__ = ["crds_installed", "dws", "widgets"]
