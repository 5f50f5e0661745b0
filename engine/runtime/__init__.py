"""The runtime: what runs against an API server.

The client (``kube``, the one module that talks HTTP), the caches (``store``
holds objects, ``watching`` keeps them current by list and watch, ``informers``
shares them between kinds), the work
queue (``queue``), the reconcile of one kind (``controller``), the caches of
children and the routing of their events (``children``), the engine that loads
the kinds and runs the controllers (``manager``), leader election (``leader``),
events (``events``) and metrics, probes and logs (``observability``).  It calls
the pure core for every decision and is never imported by it.
"""
