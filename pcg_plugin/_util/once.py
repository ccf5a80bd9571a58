"""``once_property``: ``functools.cached_property`` that computes its value once even when several threads ask at
the same time (trials in flight share a process's backend, store and classifier; ``cached_property`` took a lock
before Python 3.12 and takes none since)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class once_property(Generic[T]):  # lower case: used as a decorator, like the cached_property it stands for
    """A property computed on first use and kept in the instance's ``__dict__``; the first computation holds a lock
    (one per property, re-entrant: a value may need another of its object's)."""

    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__
        self._lock = threading.RLock()

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, objtype: type | None = None) -> T:
        if obj is None:
            return self  # type: ignore[return-value]  # the descriptor itself, read on the class
        try:
            return obj.__dict__[self.name]
        except KeyError:
            pass
        with self._lock:
            if self.name not in obj.__dict__:
                obj.__dict__[self.name] = self.func(obj)
            return obj.__dict__[self.name]
