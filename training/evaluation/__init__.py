"""Evaluation: tournaments, duplicate deals, statistics, reports and replays (no torch)."""
