"""The conversion webhook's decisions, pure: what the API server is answered, and what the engine keeps.

``review`` answers a ConversionReview with the kinds' conversions; ``certificates`` says how
long the webhook's certificates live, when one is renewed and what it names; ``crdconfig`` says
what a kind's CRD must hold for the API server to reach the webhook and trust it (its caBundle,
its clientConfig), as the patch that makes it so, or none.  Uses the kind model only.
"""
