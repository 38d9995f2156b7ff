"""OrderEnforcing: PettingZoo's order checks around a ``TableEnv`` (what ``env()`` returns).

PettingZoo's own ``OrderEnforcingWrapper`` reaches every attribute of the env through
``__getattr__``; on these games that lookup costs more than a whole game step, so ``last``,
``step``, ``agents`` and ``agent_iter`` here read the wrapped env directly, with the same
checks and messages.
"""
from __future__ import annotations

from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order checks, with ``last`` and ``step`` delegating straight to the
    env: the inherited versions reach every attribute through ``__getattr__``, which
    costs more than a whole game step."""

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.agent_selection

    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        return self.env.agents

    def last(self, observe: bool = True):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> AgentIterator:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return AgentIterator(self, max_iter)

    def step(self, action: int | None) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)


class AgentIterator:
    """``agent_iter`` with PettingZoo's order check (``step`` or ``reset`` between two
    agents), reading the unwrapped env directly instead of through ``__getattr__``."""

    __slots__ = ("wrapper", "raw", "left")

    def __init__(self, wrapper: OrderEnforcing, max_iter: int):
        self.wrapper, self.raw, self.left = wrapper, wrapper.env, max_iter

    def __iter__(self) -> AgentIterator:
        return self

    def __next__(self) -> str:
        if not self.raw.agents or self.left <= 0:
            raise StopIteration
        self.left -= 1
        if not self.wrapper._has_updated:
            raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
        self.wrapper._has_updated = False
        return self.raw.agent_selection
