"""Writing trial rows as a flat file: CSV, JSON Lines or Parquet (pyarrow, an optional extra); a suite's run
folder gives every problem's rows, problem by problem."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pcg_plugin.core.records.trials import columns


def suite_rows(path: Path | str) -> list[dict[str, Any]]:
    """Every trial of a run folder: a suite's problem by problem (each row names its problem), in the suite's
    order; a single run's as they are."""
    from pcg_plugin.core.results import runs, suite

    return [row for _, member in suite.members(path) for row in runs.load(member).rows()]


FORMATS = ("csv", "jsonl", "parquet")


def _cell(value: Any) -> Any:
    """A CSV cell: nested values as JSON, None as empty."""
    if value is None:
        return ""
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return value


def csv_text(rows: Sequence[Mapping[str, Any]]) -> str:
    out = io.StringIO()
    names = columns(rows)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(names)
    for r in rows:
        writer.writerow([_cell(r.get(c)) for c in names])
    return out.getvalue()


def jsonl_text(rows: Sequence[Mapping[str, Any]]) -> str:
    names = columns(rows)
    return "".join(json.dumps({c: r.get(c) for c in names}, ensure_ascii=False) + "\n" for r in rows)


def write_parquet(rows: Sequence[Mapping[str, Any]], path: Path) -> None:
    """Parquet through pyarrow (``pip install pytest-pcg[parquet]``); nested values as JSON text."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise RuntimeError("--format parquet needs pyarrow: pip install 'pytest-pcg[parquet]'") from None
    names = columns(rows)
    data = {
        c: [json.dumps(v, ensure_ascii=False) if isinstance(v := r.get(c), (dict, list)) else v for r in rows]
        for c in names
    }
    pq.write_table(pa.table(data), path)
