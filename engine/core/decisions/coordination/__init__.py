"""Who acts on what, when several could: which engine holds a kind (``holding``: the claims and
their heartbeats), which replica reconciles which parent (``sharding``: membership, assignment,
the hand-over) and which parents move to a kind's new revision now (``rollout``: the waves of a
progressive rollout, its budget of failures).  Pure rules over what each engine and replica
sees; the Leases and labels they are read from and written to are the runtime's."""
