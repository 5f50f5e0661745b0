"""The two languages a kind folder is written in, each read by one set of rules.  Strict YAML:
``yamlrules`` is what every YAML text may hold (JSON data, bounded, no anchors or aliases), and
``documents`` reads a file into documents that keep each field's line, checks them against a
schema and compiles the rules they hold at their lines.  Jinja, as templates and status rules
share it: ``expressions`` compiles a status rule and reads a syntax tree for the
``children.<id>`` it names, ``library`` is the functions both call (``fromyaml``, ``quantity``,
``random_string``...), and ``seedkeys`` the key ``random_string`` draws with.  What an expression
may cost is for ``budgets`` to say, and what kind.yaml means for the rest of the model."""
