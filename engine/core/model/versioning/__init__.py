"""A kind's API over time: the versions it serves beside its hub, and conversion between them.

``versions`` reads kind.yaml's ``versions:`` into the CRD's versions and into a ``Conversion``;
``conversion`` converts an object from any version to any other through the hub, by the field
mappings each version says, keeping what a version cannot hold so a round trip loses nothing."""
