"""The CRD a kind writes for itself from kind.yaml's ``schema:``: ``schemafields`` reads each
field's line (a type, then markers such as ``default=1 minimum=0``) into its OpenAPI schema and
checks its default against it, and ``simpleschema`` puts the CustomResourceDefinition around them
(its names, the status the engine writes, its printer columns and CEL rules).  The dialect both
keep to is ``crds``'; a kind with a hand-written CRD needs neither."""
