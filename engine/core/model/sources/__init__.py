"""A kind's sources, its templates and partials, and what each template says of its children
before any is rendered.  ``folders`` says which file of a kind folder is kind.yaml, a template, a
partial or an example, and the folder's digest; ``dependencies`` what a template waits for
(``after:`` and the ``children.<id>`` it reads) and the order templates render in; ``shapes``
what a template id stands for, one child or a collection, and when its children are ready
(``readyWhen``); ``lifecycle`` what becomes of its children (deletion policy, ``createOnly``,
``applyOnce``, ``adopt``, the update strategy, an ordered teardown).  ``kinds`` reads a folder
with them; nothing here renders."""
