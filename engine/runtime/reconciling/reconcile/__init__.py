"""One parent's reconcile, step by step: what a kind's controller reads, renders, writes and reports.

``controller`` reads top to bottom (load → render → plan → apply → prune → patch → status) and
calls one module a step, each answering with a value the next one reads (``steps``: what was
seen, what was planned, how a reconcile ends): ``applying`` writes and prunes the children,
``patching`` sets and takes off the fields of objects the parent does not own, ``reporting``
derives the status and writes it once, paced, ``deletion`` holds the finalizer, cleans up and
applies ``deleteWhen``, and ``decorating`` finds a decorator's parents among existing objects.
Each step knows the engine only as ``engine.runtime.reconciling.host.Host``, and the queue only
as ``requeuing.Wakes``.
"""
