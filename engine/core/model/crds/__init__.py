"""A CRD's schema, as the API server reads it: the structural-schema dialect (``structural``),
its keywords worded for a person (``keywords``), its string formats and RE2 patterns
(``formats``).  The kind model checks kind.yaml and CRs with it; ``crdwriting`` writes one."""
