"""CPU time of the OFC expert per heads-up hand, by budget, beside the heuristic's (``parlor bench --ofc-expert``).

Each measurement plays ``hands`` heads-up hands (seeded deals, the same for every
agent) with the agent in seat 0 against the heuristic in seat 1 and times the agent's
own decisions (``time.process_time``: CPU of this process, so machine load counts less
than in wall time). The expert's budget is a count of samples, so its play, and the work
behind it, is the same on any machine; only the seconds change. The heuristic, measured
in the same run, is the reference. A warm-up hand first loads the compiled kernels.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from parlor import envs
from parlor.agents.episodes import decide
from parlor.agents.registry import make_agent


@dataclass(frozen=True)
class HandCost:
    """CPU seconds of one agent's decisions per hand, with the slowest turn."""

    agent: str
    hands: int
    mean_s: float
    max_hand_s: float
    by_turn_s: tuple[float, ...]   # mean per hand of the agent's turns, in order


def timed_hands(agent_spec: str, options: dict, hands: int, seed: int = 0,
                clock: Callable[[], float] = time.process_time) -> HandCost:
    """Play ``hands`` hands of ``agent_spec`` (seat 0) against the heuristic; time seat 0."""
    game = envs.make_game("ofc_v0", **options)
    agent = make_agent(agent_spec, game, seed=seed)
    other = make_agent("heuristic", game, seed=seed + 1)
    per_hand, turns = [], []
    for h in range(-1, hands):   # hand -1 warms up (compiles or loads the kernels)
        state = game.new_state(np.random.default_rng(seed * 100_003 + max(h, 0)))
        spent, by_turn = 0.0, []
        while not state.is_terminal():
            p = state.current_player
            if p == 0:
                first = state.pend_pos == 0
                start = clock()
                action = decide(agent, game, state, 0)
                took = clock() - start
                spent += took
                if first:
                    by_turn.append(took)
                else:
                    by_turn[-1] += took
            else:
                action = decide(other, game, state, p)
            state.apply(action)
        if h >= 0:
            per_hand.append(spent)
            turns.append(by_turn)
    width = max(len(t) for t in turns)
    mean_by_turn = tuple(float(np.mean([t[i] if i < len(t) else 0.0 for t in turns])) for i in range(width))
    return HandCost(agent_spec, hands, float(np.mean(per_hand)), float(np.max(per_hand)), mean_by_turn)


def report(costs: Sequence[HandCost], options: dict) -> list[str]:
    lines = [f"OFC {options}, heads-up, agent in seat 0 against the heuristic; CPU seconds of the agent's decisions",
             f"{'agent':16s} {'hands':>6s} {'s/hand':>8s} {'max s':>8s}  per turn (s)"]
    for c in costs:
        turns = " ".join(f"{t:.3f}" for t in c.by_turn_s)
        lines.append(f"{c.agent:16s} {c.hands:6d} {c.mean_s:8.3f} {c.max_hand_s:8.3f}  {turns}")
    return lines
