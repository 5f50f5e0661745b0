"""The engine process: kinds loaded and served, one leader, parents sharded across replicas.

``manager`` is the ``Engine``: it loads and reloads the kinds, keeps the shared caches and
runs one controller per kind.  ``leader`` elects one replica with client-go's Lease rules;
``sharding`` gives each replica its own Lease and, on the elected one, labels parents with
their owner.  ``stencil run`` wires these together.
"""
