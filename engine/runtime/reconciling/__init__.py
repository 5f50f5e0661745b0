"""One kind's controller: its reconcile step by step, the caches it reads, its worker, its parents' moves.

Four rooms, one concern each: ``reconcile`` is one parent's reconcile (the controller and its
steps: applying, patching, reporting, deletion, decorating); ``workers`` runs a controller's
reconciles (the work queue, the threads and the retries), knowing nothing of kinds; ``caches``
holds the children, related and referenced objects and wakes the parents their events concern;
``moving`` moves parents to a kind's new revision (``rollouts``) or to another replica
(``handover``).  Beside them, the few modules they share: ``host.Host`` is the engine as a
controller sees it, with what it is handed, ``options`` (how the engine is run), ``memory``
(the bound on what it decodes), ``events`` (Kubernetes Events) and ``revisions`` (a kind's
revisions, kept in the cluster); ``requeuing`` is all a reconcile and its worker say to each
other.
"""
