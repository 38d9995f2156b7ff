"""parlor training, split by job: :mod:`.evaluation` (tournaments, duplicate deals,
statistics, reports; no torch), :mod:`.learning` (the single-agent wrapper, configs, warm
start, callbacks, MaskablePPO runs), :mod:`.benchmarks` (what ``parlor bench`` measures)
and :mod:`.cli` (the ``parlor`` command line)."""
