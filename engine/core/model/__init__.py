"""The kind model: what a kind folder says, read and checked, before anything is rendered.

``kinds`` loads ``kind.yaml`` with its templates and status rules, each other section of it read
by a module of its own (``references``, ``rollouts``, ``decorators``, ``statusrules``).  Below
it, ``language`` reads YAML strictly into documents with their lines and compiles the Jinja of
status rules, with the functions templates and rules share; ``budgets`` bounds what a template
or rule may cost; ``crds`` checks a value against a structural schema (``kind.yaml`` against its
own, a CR against its CRD's) and ``crdwriting`` writes the CRD a kind's ``schema:`` says;
``sources`` knows the files of a kind folder and what each template says of its children.  Above
it, ``children`` places a rendered child, ``bundles`` carries a kind folder as one ConfigMap and
``claimants`` decides which kind serves a parent kind two kinds claim.  ``apis`` knows the
built-in kinds' scope and plural, ``identity`` which object a child is; ``errors`` is the
exception tree; ``objects`` is the type of a raw Kubernetes object, for the core and the runtime
alike.  Nothing here renders, plans or talks to a cluster.
"""
