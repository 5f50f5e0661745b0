"""The tools: what a person runs.

The ``stencil`` command (``cli``), ``stencil diff`` (``diffing``), reading and
installing manifests and CRDs (``manifests``), and writing ``stencil render``'s YAML
(``yamlwriting``).  Tools use the runtime and the
core; nothing below imports them.
"""
