"""What a controller watches and reads beside its parents, and the parents each change wakes.

``children`` caches the children Stencil manages and the related objects a kind observes, one
informer a kind, indexed by the parent that controls them, and routes their events to that
parent; ``referenced`` holds the objects a kind's ``references:`` name only while parents read
them, read as each parent's namespace may, and wakes those parents when one changes.  Waking is
handed in as ``requeuing.Wakes``: the caches know nothing of the controller that reads them.
"""
