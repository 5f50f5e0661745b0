"""The work queue between the informers and the reconcile workers.

It behaves like client-go's rate-limited workqueue, because those rules are what
make a level-triggered controller correct under concurrency:

- a key waiting in the queue is stored once, however often it is added, so a burst
  of events for one parent costs one reconcile;
- a key being processed is never handed to a second worker; if it is added while
  processing it is marked dirty and queued again when the worker calls ``done``,
  so the change that arrived mid-reconcile is never lost;
- ``add_rate_limited`` delays a failing key by ``base_delay * 2**failures``
  (capped at ``max_delay``) until ``forget`` resets it; unlike client-go's default
  controller limiter there is no overall token bucket on top, since the API
  server's own priority and fairness already protects it and a tighter
  client-side limit only slows convergence;
- ``add_after`` schedules a key for later, keeping only the earliest time when a
  key is scheduled twice;
- ``add_when_idle`` queues a key whose work can wait (a status that only says how far
  things got): it is handed out once no other key is waiting, or after a bound at the
  latest, so reporting never delays work that changes the cluster;
- keys are handed out fairly by namespace (a key is an ``objects.Key``): each
  namespace with keys waiting has a FIFO of its own, and the namespaces take turns, one key
  a turn, as the API server's priority and fairness shares its seats among flows.  A tenant
  with 300 parents waiting delays another tenant's parent by one turn, not by 300 keys;
- ``hold`` backs off a key whose work overran its budget (a render stopped at its time or
  size limit): until ``overrun_delay * 2**overruns`` has passed (capped at ``max_delay``),
  adding the key again schedules it for then instead, so a parent that costs a second of
  CPU a try is not tried again at every event; ``forget`` lifts the hold.

It is built on one lock and one condition variable rather than a scheduler thread:
``get`` itself promotes delayed keys whose time has come, which keeps the queue a
passive object that tests can drive with an injected clock.  Delays are measured on
that clock; a ``get`` timeout is real waiting time, so a test that never advances a
fake clock still returns.

Metrics are left to the caller: the queue reports to a ``QueueObserver`` (depth,
adds, time waiting, time processing, retries), which the controller maps onto
Prometheus ``workqueue_*`` series.  The observer is called under the queue's lock
and must not call back into the queue.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

from engine.core.model.objects import Key


class QueueObserver(Protocol):
    """Receives what the queue measures; all durations are in seconds on the queue's clock."""

    def depth(self, depth: int) -> None:
        """The number of keys ready to be handed out has changed."""

    def added(self, key: Key) -> None:
        """A key entered the queue (not counted when it was already waiting)."""

    def waited(self, key: Key, seconds: float) -> None:
        """A key was handed to a worker ``seconds`` after it was added."""

    def processed(self, key: Key, seconds: float) -> None:
        """A worker called ``done`` ``seconds`` after it got the key."""

    def retried(self, key: Key) -> None:
        """A key was re-added with backoff after a failure."""


class _NoObserver:
    def depth(self, depth: int) -> None:
        pass

    def added(self, key: Key) -> None:
        pass

    def waited(self, key: Key, seconds: float) -> None:
        pass

    def processed(self, key: Key, seconds: float) -> None:
        pass

    def retried(self, key: Key) -> None:
        pass


class _Turns:
    """The keys ready to hand out: a FIFO per namespace, the namespaces taking turns."""

    def __init__(self) -> None:
        self._by_namespace: dict[str, deque[Key]] = {}
        self._turns: deque[str] = deque()  # namespaces with keys waiting, the next one first
        self._len = 0

    def append(self, key: Key) -> None:
        namespace = key.namespace
        waiting = self._by_namespace.get(namespace)
        if waiting is None:
            waiting = self._by_namespace[namespace] = deque()
            self._turns.append(namespace)
        waiting.append(key)
        self._len += 1

    def popleft(self) -> Key:
        namespace = self._turns.popleft()
        waiting = self._by_namespace[namespace]
        key = waiting.popleft()
        if waiting:
            self._turns.append(namespace)  # its next key waits for the other namespaces' turns
        else:
            del self._by_namespace[namespace]
        self._len -= 1
        return key

    def __len__(self) -> int:
        return self._len


class WorkQueue:
    """A deduplicating, delaying, per-key rate-limited queue of keys."""

    def __init__(
        self,
        base_delay: float = 0.005,
        max_delay: float = 300.0,
        overrun_delay: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        *,
        observer: QueueObserver | None = None,
    ) -> None:
        self._base_delay = base_delay
        self._max_delay = max_delay
        self._overrun_delay = overrun_delay
        self._clock = clock
        self._observer: QueueObserver = observer or _NoObserver()
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._queue = _Turns()
        # Keys that need processing: those in _queue plus those re-added while processing.
        self._dirty: set[Key] = set()
        self._processing: dict[Key, float] = {}  # key -> when a worker got it
        self._added_at: dict[Key, float] = {}
        # Delayed keys: a heap of (ready_at, seq, key) with stale entries skipped on pop;
        # _delayed holds each key's current ready_at.
        self._heap: list[tuple[float, int, Key]] = []
        self._delayed: dict[Key, float] = {}
        self._seq = itertools.count()
        self._failures: dict[Key, int] = {}
        self._held: dict[Key, float] = {}  # keys whose work overran its budget -> not before when
        self._idle: dict[Key, None] = {}  # keys waiting for an empty queue, in order
        self._shutting_down = False

    # -- adding -----------------------------------------------------------

    def add(self, key: Key) -> None:
        """Queue ``key`` now, unless it is already waiting (or held: then once its hold ends)."""
        with self._lock:
            held = self._held.get(key)
            if held is not None and held > self._clock():
                self._schedule_locked(key, held)
            else:
                self._add_locked(key)

    def add_after(self, key: Key, delay: float) -> None:
        """Queue ``key`` after ``delay`` seconds (on the queue's clock)."""
        if delay <= 0:
            self.add(key)
            return
        with self._lock:
            self._schedule_locked(key, max(self._clock() + delay, self._held.get(key, 0.0)))

    def add_when_idle(self, key: Key, within: float) -> None:
        """Queue ``key`` once no other key is waiting, or after ``within`` seconds at the latest."""
        with self._lock:
            if self._shutting_down or key in self._dirty:
                return  # queued already: its reconcile comes anyway
            self._idle.setdefault(key, None)
        self.add_after(key, within)

    def add_rate_limited(self, key: Key) -> None:
        """Queue ``key`` after its exponential backoff, and count the failure."""
        with self._lock:
            failures = self._failures.get(key, 0)
            self._failures[key] = failures + 1
            self._observer.retried(key)
        self.add_after(key, self.backoff(failures))

    def backoff(self, failures: int) -> float:
        """The delay after ``failures`` earlier failures: ``base * 2**failures``, capped."""
        # Past 2**1100 a float overflows; the cap is reached far earlier anyway.
        if failures > 1000:
            return self._max_delay
        return float(min(self._base_delay * 2.0**failures, self._max_delay))

    def hold(self, key: Key) -> None:
        """``key``'s work overran its budget: count it, and have adds of the key wait out its
        backoff, ``overrun_delay * 2**overruns`` capped at ``max_delay``."""
        with self._lock:
            failures = self._failures.get(key, 0)
            self._failures[key] = failures + 1
            self._observer.retried(key)
            delay = self._max_delay if failures > 1000 else self._overrun_delay * 2.0**failures
            self._held[key] = self._clock() + min(delay, self._max_delay)

    def forget(self, key: Key) -> None:
        """Reset ``key``'s failure count and lift its hold (after a successful reconcile)."""
        with self._lock:
            self._failures.pop(key, None)
            self._held.pop(key, None)

    def num_requeues(self, key: Key) -> int:
        with self._lock:
            return self._failures.get(key, 0)

    # -- taking -------------------------------------------------------------

    def get(self, timeout: float | None = None) -> Key | None:
        """The next key, blocking; ``None`` on timeout or once the queue is shut down.

        The caller owns the key until it calls ``done(key)``.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while True:
                if self._shutting_down:
                    return None
                next_delayed = self._promote_due_locked()
                if not self._queue and self._idle:
                    self._add_locked(next(iter(self._idle)))  # nothing more urgent is waiting
                if self._queue:
                    return self._hand_out_locked()
                wait = None if deadline is None else deadline - time.monotonic()
                if wait is not None and wait <= 0:
                    return None
                if next_delayed is not None:
                    until_due = max(next_delayed - self._clock(), 0.0)
                    wait = until_due if wait is None else min(wait, until_due)
                self._ready.wait(wait)

    def done(self, key: Key) -> None:
        """The worker finished ``key``; if it was added meanwhile, queue it again."""
        with self._lock:
            started = self._processing.pop(key, None)
            if started is None:
                return
            now = self._clock()
            self._observer.processed(key, now - started)
            held = self._held.get(key, 0.0)
            if key in self._dirty and held > now:  # added meanwhile, and held since: after the hold
                self._dirty.discard(key)
                self._added_at.pop(key, None)
                self._schedule_locked(key, held)
            elif key in self._dirty and not self._shutting_down:
                self._queue.append(key)
                self._observer.depth(len(self._queue))
                self._ready.notify()

    # -- lifecycle and introspection ----------------------------------------

    def shutdown(self) -> None:
        """Stop handing out keys: every blocked and later ``get`` returns ``None``."""
        with self._lock:
            self._shutting_down = True
            self._ready.notify_all()

    @property
    def shutting_down(self) -> bool:
        return self._shutting_down

    def len(self) -> int:
        """Keys ready to be handed out (not those delayed or being processed)."""
        with self._lock:
            return len(self._queue)

    __len__ = len

    def waiting_besides(self, key: Key) -> int:
        """Keys ready to be handed out, ``key`` itself not counted."""
        with self._lock:
            queued = key in self._dirty and key not in self._processing
            return len(self._queue) - queued

    @property
    def depth(self) -> int:
        return self.len()

    def processing(self) -> int:
        """Keys handed to a worker and not yet ``done``."""
        with self._lock:
            return len(self._processing)

    def unfinished_work_seconds(self) -> float:
        """Total time the keys now being processed have been running (a stuck-worker signal)."""
        with self._lock:
            now = self._clock()
            return sum(now - started for started in self._processing.values())

    def longest_running_seconds(self) -> float:
        with self._lock:
            now = self._clock()
            return max((now - started for started in self._processing.values()), default=0.0)

    # -- internals -----------------------------------------------------------

    def _add_locked(self, key: Key) -> None:
        if self._shutting_down or key in self._dirty:
            return
        if self._idle.pop(key, 0) is None:  # it waited for an empty queue: its bound is moot now
            self._delayed.pop(key, None)
        self._dirty.add(key)
        self._added_at[key] = self._clock()
        self._observer.added(key)
        if key in self._processing:
            return  # queued again by done()
        self._queue.append(key)
        self._observer.depth(len(self._queue))
        self._ready.notify()

    def _schedule_locked(self, key: Key, ready_at: float) -> None:
        """Queue ``key`` at ``ready_at`` on the queue's clock, unless it is due earlier already."""
        if self._shutting_down:
            return
        current = self._delayed.get(key)
        if current is not None and current <= ready_at:
            return
        self._delayed[key] = ready_at
        heapq.heappush(self._heap, (ready_at, next(self._seq), key))
        # A getter may be sleeping until a later delayed key; let it recompute.
        self._ready.notify()

    def _promote_due_locked(self) -> float | None:
        """Move delayed keys whose time has come into the queue; the next ready time left."""
        now = self._clock()
        while self._heap:
            ready_at, _, key = self._heap[0]
            if self._delayed.get(key) != ready_at:
                heapq.heappop(self._heap)  # superseded by an earlier schedule
                continue
            if ready_at > now:
                return ready_at
            heapq.heappop(self._heap)
            del self._delayed[key]
            self._add_locked(key)
        return None

    def _hand_out_locked(self) -> Key:
        key = self._queue.popleft()
        self._dirty.discard(key)
        now = self._clock()
        self._processing[key] = now
        self._observer.depth(len(self._queue))
        self._observer.waited(key, now - self._added_at.pop(key, now))
        return key
