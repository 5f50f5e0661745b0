"""A rendered child, checked and placed before anything is sent: ``placement`` decides where it
lands (its namespace, never one off limits; only a kind the kind may write) and what it carries
back to its parent (Stencil's labels, its lifecycle's annotations, the owner reference);
``patches`` does the same for the fields a ``patch: true`` template sets on an object the kind
does not own; ``confidential`` refuses a value read from a Secret anywhere but in a Secret's
data.  Each refusal is an error at the template line that wrote the field."""
