"""One kind's controller: its reconcile step by step, the children it watches, and its worker.

``controller`` reads top to bottom (load → render → plan → apply → prune → status) and
calls one module a step: ``applying`` writes and prunes children, ``reporting`` derives and
writes the status, ``deletion`` holds the finalizer and ``deleteWhen``.  A controller knows
the engine only as a ``host.Host``; ``options`` is how the engine is run, ``memory`` the
bound on what it decodes.  ``children`` caches children and wakes the parents their events
concern; ``events`` sends Kubernetes Events.  ``worker`` runs a controller's reconciles: the
work queue (``queue``), the threads and the retries, knowing nothing of kinds; the two say to
each other only what ``requeuing`` holds.
"""
