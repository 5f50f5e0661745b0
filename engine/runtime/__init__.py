"""The runtime: what runs against an API server.

Four rooms, each a package, pointing down only (import-linter contracts name them):

- ``serving``: the engine process — loading and reloading kinds and running a controller
  for each (``manager``), leader election (``leader``), parents sharded across replicas
  (``sharding``).
- ``reconciling``: one kind's controller and the steps of its reconcile (``controller``,
  ``applying``, ``reporting``, ``deletion``), the few things it asks of the engine
  (``host``, ``options``, ``memory``), the work queue, the children's caches and the
  routing of their events (``children``), Kubernetes Events.
- ``telemetry``: what the engine shows — metrics and probes (``observability``), their
  delegated authentication (``delegation``), logs.
- ``cluster``: the API server, spoken to and cached — the client (``kube``, the one
  module that imports the official client, over ``transport``), the verbs as Protocols
  (``seam``), the caches (``store``, ``watching``, ``informers``), Lease requests.

It calls the pure core for every decision and is never imported by it.
"""
