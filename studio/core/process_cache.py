"""A small in-process LRU for things built from immutable data (a finished run's typed results,
its rendered results, the compare page's figures): built once per web process, then served from
memory.

In-process on purpose: the values are Python objects and large strings that a shared cache would
pickle and ship on every read; a restart (a deploy) empties it, so a cached fragment never
outlives the template or chart code that made it. Keys must name everything the value depends
on; callers check permissions before they look anything up (a cache never decides who may see
what)."""

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TypeVar

T = TypeVar("T")


class ProcessCache:
    """Least-recently-used, bounded by entry count, safe across gunicorn's threads."""

    every: list["ProcessCache"] = []  # every cache made, for `clear_all`

    def __init__(self, name: str, max_entries: int):
        self.name = name
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, object] = OrderedDict()
        self._lock = threading.Lock()
        self.builds = 0  # how many values were built (tests count rebuilds with it)
        ProcessCache.every.append(self)

    @classmethod
    def clear_all(cls) -> None:
        """Empty every cache, as a restart does (tests start from it)."""
        for cache in cls.every:
            cache.clear()

    def get_or_build(self, key: Hashable, build: Callable[[], T]) -> T:
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]
        # Built outside the lock: two threads may build the same value once each, which is
        # harmless (the values are equal) and better than serialising every miss.
        value = build()
        with self._lock:
            self.builds += 1
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.builds = 0

    def __len__(self) -> int:
        return len(self._entries)
