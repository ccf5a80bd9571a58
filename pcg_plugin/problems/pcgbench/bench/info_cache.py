"""Caching a variant's `info` by content: trials of one instance often get the same content back, and a
simulation problem's info costs milliseconds (talakat) to a second (arcade)."""

from __future__ import annotations

import copy
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

Info = dict[str, Any]


def cached(info: Callable[[Any], Info], size: int = 256) -> Callable[[Any], Info]:
    """`info` behind a least-recently-used cache keyed by the content's canonical JSON; each call gets its own
    copy, so a caller that edits an info cannot change what the next one receives. Trials in flight share it: the
    cache is read and written under a lock, ``info`` computed outside it (two threads may compute the same once)."""
    store: OrderedDict[str, Info] = OrderedDict()
    lock = threading.Lock()

    def lookup(content: Any) -> Info:
        key = json.dumps(content, sort_keys=True, default=int)
        with lock:
            found = store.get(key)
            if found is not None:
                store.move_to_end(key)
        if found is None:
            found = info(content)
            with lock:
                store[key] = found
                if len(store) > size:
                    store.popitem(last=False)
        return copy.deepcopy(found)

    return lookup
