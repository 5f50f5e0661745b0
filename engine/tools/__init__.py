"""The tools: what a person runs.

The ``stencil`` command (``cli``), ``stencil diff`` (``diffing``) and reading and
installing manifests and CRDs (``manifests``).  Tools use the runtime and the
core; nothing below imports them.
"""
