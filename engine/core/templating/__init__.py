"""Rendering: a parent's children from its kind's Jinja templates.

``rendering`` turns a kind, a parent and the observed children into the desired
children; ``sandbox`` is the Jinja environment that keeps a CR's values data, never
structure.  Uses the kind model only; the reconcile's decisions and the offline checks
build on it, never the other way.
"""
