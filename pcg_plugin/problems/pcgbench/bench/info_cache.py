"""Caching a variant's `info` by content: trials of one instance often get the same content back, and a
simulation problem's info costs milliseconds (talakat) to a second (arcade)."""

from __future__ import annotations

import copy
import json
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

Info = dict[str, Any]


def cached(info: Callable[[Any], Info], size: int = 256) -> Callable[[Any], Info]:
    """`info` behind a least-recently-used cache keyed by the content's canonical JSON; each call gets its own
    copy, so a caller that edits an info cannot change what the next one receives."""
    store: OrderedDict[str, Info] = OrderedDict()

    def lookup(content: Any) -> Info:
        key = json.dumps(content, sort_keys=True, default=int)
        if key in store:
            store.move_to_end(key)
        else:
            store[key] = info(content)
            if len(store) > size:
                store.popitem(last=False)
        return copy.deepcopy(store[key])

    return lookup
