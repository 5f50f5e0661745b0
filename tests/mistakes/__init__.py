"""Kind authors' mistakes as data: each one an edit to a small known-good kind, and what lint must say.

``table`` lists the mistakes, ``base`` the kind they are made in, and ``cases``
builds a case's project folder and runs ``stencil lint`` on it.  The table test
(tests/unit/tools/cli/authoring/test_lint_catches_every_authoring_mistake.py) and ``hack/mistakes-doc``,
which writes the page "Mistakes and what Stencil says" (docs/mistakes.md), both read
the same table, so the page shows what lint prints for the very cases the test holds
it to.
"""
