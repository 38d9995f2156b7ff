"""parlor training, split by job: :mod:`.evaluation` (tournaments, duplicate deals,
statistics, reports; no torch), :mod:`.learning` (the single-agent wrapper, configs, warm
start, callbacks, MaskablePPO and RLlib runs), :mod:`.rllib` (RLlib from a user's own
script: env, masked module, PPOConfig, policy export), :mod:`.benchmarks` (what ``parlor
bench`` measures) and :mod:`.cli` (the ``parlor`` command line)."""
