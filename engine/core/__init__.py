"""The pure core: what Stencil decides, with no I/O beyond reading a kind folder.

Four rooms, each a package, pointing down only (import-linter contracts name them):

- ``offline``: an offline API server — what a real one would do to a CR or a child
  (defaults, structural schema, CEL rules, child schemas), ``stencil render --status``'s
  preview, ``stencil lint``'s findings and the RBAC a kind needs.  Used by ``render``,
  ``lint``, ``rbac`` and ``test``; never by the reconcile.
- ``templating``: rendering a parent's children from its kind's Jinja templates, in the
  sandbox that keeps a CR's values from changing a manifest's structure.
- ``decisions``: what the reconcile decides from what it read — the plan of applies and
  prunes, the creation order, the parent's status and conditions, children's health,
  contested fields, shard ownership.
- ``model``: the kind model — reading a kind folder (``kind.yaml``, documents, status
  rules), the schemas it is checked against, where children may land, the errors.

``templating`` and ``decisions`` stand side by side: neither imports the other.  Time
and the cluster come in as arguments, so every module here is tested without a
cluster; nothing here imports ``engine.runtime`` or ``engine.tools``.
"""
