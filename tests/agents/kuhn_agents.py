"""Test-only agents for the Kuhn game (importable by spec ``tests.agents.kuhn_agents:KuhnRule``)."""
from __future__ import annotations


class KuhnRule:
    """Bet or call with the king, fold or check the jack, check-call nothing with the queen."""

    def __init__(self, game=None, seed=None):
        pass

    def reset(self, seed=None):
        pass

    def act(self, observation, action_mask, view, sample_world=None) -> int:
        return 1 if view.card == 2 else 0


class AlwaysBet:
    def __init__(self, game=None, seed=None):
        pass

    def reset(self, seed=None):
        pass

    def act(self, observation, action_mask, view, sample_world=None) -> int:
        return 1
