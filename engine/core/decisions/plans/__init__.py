"""A reconcile's plan: what it sends the API server and what it holds back.  ``planning``
compares the rendered children with the observed ones and gives the applies, the prunes and the
conflicts, within the parent's reach; ``ordering`` tells which template made which child and
holds back a child whose template waits for others (``after:``); ``lifecycles`` is what a
child's lifecycle changes in a plan (``applyOnce`` fields, letting a child go, an ordered
teardown); ``ownership`` asks ``managedFields`` whether the engine still holds what it applied;
``contention`` backs off from a field another writer keeps changing back, and ``refusing`` from a
child the server refuses for good.  None of it reads the clock or the cluster: both are handed
in."""
