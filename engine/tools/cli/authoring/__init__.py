"""Writing a kind: the commands that check it, render it, draw it and write out what a cluster takes of it.

``lint`` runs every offline check of kind folders; ``render`` prints the children a kind renders
for given CRs, and ``diff`` what they would change in a cluster; ``pictures`` draws a kind
(``graph``) and a parent's family (``tree``); ``crd`` writes the CRD of a kind's ``schema:``,
``rbac`` the least privilege its engine needs, ``bundle`` the objects that drop it into a running
release, and ``argocd`` the health checks Argo CD reads its parents with.  All but ``diff`` and
``tree`` need nothing but the kind folders and the CRDs.
"""

from engine.tools.cli.authoring import argocd, bundle, crd, lint, pictures, rbac, render

__all__ = ["argocd", "bundle", "crd", "lint", "pictures", "rbac", "render"]
