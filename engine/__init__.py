"""Stencil: a Kubernetes operator engine in which a custom-resource kind is a folder of templates."""
