"""The pure core: what Stencil decides, with no I/O beyond reading a kind folder.

Loading a kind (``kinds``), rendering its children (``rendering``), planning the
writes (``planning``), deriving the parent's status (``status``, ``conditions``,
``health``, ``expressions``), deriving RBAC (``rbac``) and what a CRD would do to a
CR offline (``offline``) are functions of their inputs: time and the cluster come
in as arguments, so every module here is tested without a cluster.  Nothing here
imports ``engine.runtime`` or ``engine.tools`` (an import-linter contract).
"""
