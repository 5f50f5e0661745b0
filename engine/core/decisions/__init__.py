"""What a reconcile decides from what it read: pure functions, no I/O.

``planning`` compares desired and observed children (applies, prunes, what the parent
owns); ``ordering`` gates a template's children on the health of those it comes
``after``; ``health`` judges a child (kstatus rules); ``conditions`` and ``status``
derive the parent's status; ``contention`` notices fields another manager keeps taking;
``sharding`` assigns parents to replicas.  Uses the kind model only; never the offline
checks.
"""
