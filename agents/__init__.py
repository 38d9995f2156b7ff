"""parlor agents: the Agent protocol, baselines per game, search, the policy agent, and the one
episode loop (:mod:`parlor.agents.episodes`). Agents by name: :func:`make_agent`."""
from parlor.agents.base import Agent, RandomAgent
from parlor.agents.registry import agent_names, make_agent

__all__ = ["Agent", "RandomAgent", "agent_names", "make_agent"]
