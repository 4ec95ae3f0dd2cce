"""The process tuned for serving many games on one event loop: ``gammonbot run`` calls :func:`tune_for_serving` once
its start-up is done, and ``benchmarks/stall.py`` does the same where the bot would.

* **The garbage collector.** Each full collection looks at every object the process tracks, with the event loop
  stopped meanwhile. What start-up loaded (modules, classes, plugins, rule sets, the engine's tables: some 70,000
  objects, 50 ms a pass on a loaded 2-core machine) lives as long as the process, so it leaves the collector's passes
  (``gc.freeze``); the games the service holds are kept few and compact for the same reason (bot/service/cache.py).
* **The GIL.** Work that would hold the loop up runs elsewhere: in worker threads (boards, short records, the
  database's answers), and the heaviest in worker processes (exports and replays of long records, bot players,
  analyses: bot/service/pool.py, ``[limits] worker_processes``), which have a GIL and a garbage collector of their
  own. A thread still shares both with the loop: exporting a 10,000-action record in a thread made millions of
  objects, and the collections they set off stopped the loop 40 to 70 ms at a time. The event loop's thread needs the
  GIL back each time it wakes (every database answer is a wake-up). Python lets a thread keep the GIL 5 ms before it
  must hand it over, so with workers busy every wake-up of the loop could wait up to 5 ms, and a request waiting for a
  dozen answers that many times: one player's p99 was 250 ms under load, 40 to 60 ms with the GIL handed over after
  0.5 ms (the workers lose little: they switch more often, not less work gets done).
"""

from __future__ import annotations

import gc
import sys

__all__ = ["GC_THRESHOLDS", "SWITCH_INTERVAL", "tune_for_serving"]

#: Seconds a thread keeps the GIL while another waits for it (Python's default is 0.005).
SWITCH_INTERVAL = 0.0005
#: The collector's thresholds (Python's are 700, 10, 10): the youngest generation collected after 2,000 new objects
#: instead of 700 (fewer objects that live a few milliseconds reach the older generations), and a full collection at
#: most once per 100 collections of the middle generation instead of 10. Under stall.py's load a full collection
#: then comes every 15 s or so instead of every few seconds, and looks at fewer objects.
GC_THRESHOLDS = (2000, 10, 100)


def tune_for_serving() -> None:
    """Hand the GIL over sooner, then collect and move every object alive now to the collector's permanent
    generation, so that no later collection spends time on them. Calling it again (a bot built anew after a network
    failure) first lets the collector see what it froze before."""
    sys.setswitchinterval(SWITCH_INTERVAL)
    gc.set_threshold(*GC_THRESHOLDS)
    gc.unfreeze()
    gc.collect()
    gc.freeze()
