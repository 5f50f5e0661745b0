"""The runtime: what runs against an API server.

The client (``kube``, the one module that talks HTTP), the caches
(``watching``), the work queue (``queue``), the controllers and the engine that
runs them (``controller``), leader election (``leader``), events (``events``) and
metrics, probes and logs (``observability``).  It calls the pure core for every
decision and is never imported by it.
"""
