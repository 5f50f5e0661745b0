"""The workers around a controller: a queue of keys, the threads that take them, and the retries.

``queue`` is the work queue (client-go's rules: a key stored once, never handed to two workers at
once, backed off while it fails, delayed, taken fairly by namespace); ``worker`` hands its keys
to threads, one at a time a key, and reads how each reconcile ended to say when it comes back.
Neither knows anything of kinds, templates or parents: a reconciler is anything that takes a
key and answers a ``requeuing.Result``.
"""
