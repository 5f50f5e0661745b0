"""An offline API server: what a real one would refuse or default, learnt from files.

``admission`` takes a CR as a CRD would (defaults, ``structural`` schema, CEL rules from
``validation_rules``, scope); ``childschemas`` checks rendered children against the
built-in kinds' OpenAPI snapshot and the CRDs at hand; ``preview`` derives the status a
kind's rules would give; ``linting`` finds mistakes no example reaches; ``rbac`` derives
the rules a kind needs; ``migration`` what ``stencil migrate`` records and makes of each
answer.  Used by ``stencil render``, ``lint``, ``rbac``, ``test`` and ``migrate``,
never by the reconcile.
"""
