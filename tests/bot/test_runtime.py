"""The process tuned for serving (``gammonbot run``, once start-up is done): what start-up loaded leaves the garbage
collector's passes, the collector runs full collections rarely, and the GIL goes back to the event loop sooner."""

from __future__ import annotations

import gc
import sys

from bot.runtime import GC_THRESHOLDS, SWITCH_INTERVAL, tune_for_serving


def test_tuning_freezes_what_is_alive_and_can_be_done_again() -> None:
    thresholds, interval = gc.get_threshold(), sys.getswitchinterval()
    try:
        tune_for_serving()
        frozen = gc.get_freeze_count()
        assert frozen > 1000  # the modules, classes and tables loaded so far
        assert gc.get_threshold() == GC_THRESHOLDS and sys.getswitchinterval() == SWITCH_INTERVAL
        alive = [[k] for k in range(500)]  # made after: the collector still looks at these
        assert all(gc.is_tracked(x) for x in alive)
        tune_for_serving()  # again (a bot built anew): what was frozen is collected if dead, then frozen again
        assert gc.get_freeze_count() >= frozen
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        sys.setswitchinterval(interval)
