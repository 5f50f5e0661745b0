"""A parent moving: to a new revision of its kind, or to another replica.

``rollouts`` says which revision of its kind each parent is rendered from, and moves the parents
to a new one in waves, pausing past the kind's failure budget and recording each move before the
children change; the revisions themselves are ``engine.runtime.reconciling.revisions``.
``handover`` is both ends of a shard hand-over as a controller sees them: the parent's children
relabelled for the replica it goes to, and a parent taken in only once its children have arrived
in the new owner's cache.  Either way, no parent is moved twice or skipped when an engine dies.
"""
