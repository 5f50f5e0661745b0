"""What a reconcile decides from what it read: pure functions, no I/O.

``plans`` decides what to send the API server (applies, prunes, what waits, what is held
back); ``health`` judges a child (kstatus rules) and ``readiness`` a template's children;
``conditions`` and ``status`` derive the parent's status, with ``progress`` (``Reconciling``
and ``Stalled``), the kind's rules read for the parent (``rules``, in the scope ``context``
gives a rule) and where its references point (``referencing``); ``coordination`` decides who
acts on what: the engine that holds a kind, the replica that reconciles a parent, the parents a
rollout moves.  Uses the kind model only; never the offline checks.
"""
