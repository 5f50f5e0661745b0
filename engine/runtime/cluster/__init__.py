"""The API server, spoken to and cached.

``kube`` is the client (the only module that imports the official ``kubernetes``
package, for configuration; plain JSON over ``transport`` for everything else); ``seam``
states the server's verbs as Protocols, so tests can put a fake at that seam; ``store``
keeps an indexed, compact copy of a selection of objects, ``watching`` keeps it current
by list and watch, ``informers`` shares one between kinds; ``nesting`` bounds how deep a
decoded object may be; ``lease`` reads and writes Leases.
"""
