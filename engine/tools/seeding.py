"""Rendering against a live cluster as the engine renders: under its seed key, when the user may
read it.

``random_string`` draws under the engine's key (``engine.core.model.language.seedkeys``), kept in a Secret
of the engine's namespace (``engine.runtime.cluster.seedsecret``).  A command that compares what it
renders with what is live (``stencil diff``, ``stencil plan``) reads that Secret as the person
running it: whoever may read it renders generated values as the engine does, and whoever may not
is told that generated values are drawn under the offline key, so they differ from the live ones.
The key is never written anywhere by these commands.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from engine.core.model import errors, kinds
from engine.core.model.language import seedkeys
from engine.runtime.cluster import seedsecret
from engine.runtime.cluster.seam import Api


@contextlib.contextmanager
def as_the_engine(kube: Api, kind: kinds.Kind, where: str) -> Iterator[str | None]:
    """Render ``kind`` in the block under the key of the Secret ``where`` (namespace/name); the
    block gets None, or why it renders under the offline key instead (no such Secret, no right to
    read it).  A kind that never calls ``random_string`` needs no key: nothing is read for it."""
    if not draws(kind):
        yield None
        return
    namespace, _, name = where.partition("/")
    try:
        found = kube.get(kube.resource("v1", "Secret"), name, namespace)
        key = seedsecret.key_of(found, where) if found is not None else None
        why = None if found is not None else f"there is no Secret {where}"
    except errors.StencilError as error:  # forbidden, or no key in it
        key, why = None, f"the Secret {where} could not be read: {error}"
    if key is None:
        yield f"random_string values are drawn under the offline key and differ from the engine's: {why}"
        return
    with seedkeys.keyed(key):
        yield None


def draws(kind: kinds.Kind) -> bool:
    """Whether a template, partial or status rule of ``kind`` names ``random_string``."""
    rules = [f.value for f in kind.fields]
    rules += [rule for c in kind.conditions for rule in c.rules]
    texts = [source.text for source in kind.sources] + [rule.text for rule in rules]
    return any("random_string" in text for text in texts)
