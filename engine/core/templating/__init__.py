"""Rendering: a parent's children from its kind's Jinja templates.

``rendering`` turns a kind, a parent and the observed children into the desired
children, and is the door the rest of the engine comes in by; ``sandbox`` is the
Jinja environment that keeps a CR's values data, never structure.  Behind them:
``tokens`` (each value a template prints, recorded and written as a token),
``context`` (what a template reads), ``substitution`` (the rendered text parsed and
the values put back), ``places`` (a rendered line traced back to its template line)
and ``jinja`` (the only module that reaches into Jinja's internals).  Uses the kind
model only; the reconcile's decisions and the offline checks build on it, never the
other way.
"""
