"""Operating the engine: running it against a cluster, and changing a kind it serves.

``run`` is the engine process, optionally leader-elected and sharded, and ``holds`` what it does
while it holds a Lease (its kinds' claims, its heartbeat); ``shards`` prints how the parents are
shared among the replicas; ``changes`` is a kind's change before it is served (``plan``: what it
would do to every parent) and while it rolls out (``rollout``: status, resume, undo); ``migrate``
stores every object of a CRD again at its storage version, so an old version may leave it.
"""

from engine.tools.cli.operating import changes, holds, migrate, run, shards

__all__ = ["changes", "holds", "migrate", "run", "shards"]
