"""The kind model: what a kind folder says, read and checked, before anything is rendered.

``kinds`` loads ``kind.yaml`` with its templates and status rules; ``documents`` reads files
as documents with their lines, by the one set of YAML rules in ``yamlrules``; ``expressions``
compiles status rules; ``library`` is the functions templates and rules call alike
(``fromyaml``, ``quantity``...); ``budgets`` bounds what a template or rule may cost;
``structural`` checks a value against a structural schema (``kind.yaml`` against its own, a CR
against its CRD's); ``apis`` knows the built-in kinds' scope and plural; ``placement`` decides
where a child may land; ``errors`` is the exception tree; ``objects`` is the type of a raw
Kubernetes object, for the core and the runtime alike.  Nothing here renders, plans or talks to a
cluster.
"""
