"""Golden digests of the OFC advisors' numbers over many positions: the speed work on the
planner, the feature block, the guards and the estimators must leave every number as it was.

Recorded from the code before that work (main at 3abf228) and never regenerated for a
speed change. Each digest hashes, over seeded random-play and heuristic-play positions:

- ``features``: every seat's ``features=True`` observation at every decision (rounded, see
  below), which also has to equal ``encode(view)`` byte for byte;
- ``planner``: the rule-based planner's numbers (``envs.ofc_outlook.rollouts``: candidates,
  ``evaluate_turn``; ``envs.ofc_outlook.outlook``: ``sampled_turn``, ``evaluate_turn_plans``; as float64 bytes), the
  heuristic's ``plan_turn`` and ``agents.ofc.risk.foul_risk``;
- ``guards``: the masks ``guarded_mask`` keeps under several guards (the shipped safe
  policy's among them), each guard with its own advisor as a policy holds it, and the
  endgame judge's risk values (``action_risks``, ``midgame_action_risks``) bit for bit;
- ``estimates``: ``stat_estimates`` (``foul``, ``foul:endgame``) of every seat;
- ``search``: seeded play of the search agent (heuristic playouts).

The planner's float64 statistics are hashed rounded to six decimals (``stats_bytes``): the
kernel is the one production path and sums in its own order, the numpy oracle in numpy's
(they agree to ~1e-15); regenerated once for that (the three ``planner`` digests), every
other digest unchanged. ``test_the_numpy_oracle_gives_the_planners_digest`` shows that
both paths give the same rounded digest. The ``features`` observations are hashed rounded
to five decimals for the same reason (the outlook's float32 entries of the two paths differ
by one float32 step in about 1 observation of 2,900); regenerated once for that (the six
``features`` digests), the others unchanged; ``test_the_numpy_oracle_gives_the_features_digest``
and ``test_rounding_hides_the_one_step_where_the_paths_differ`` show it. Both roundings are
those of ``tests/harness/rounding.py``.

Regenerate only when a change of behaviour is intended:
``python -m tests.agents.ofc.test_advisor_digests``. To record them from another checkout
of the code (``git worktree add /tmp/parlor-ref 3abf228``; the two guard cases were cut to
fewer seeds later and their digests recorded so, from 3abf228, the other cases reproduced):
``python -c "import sys; sys.path[:0] = ['training/benchmarks', '.']; import ofc_advisors, runpy;
ofc_advisors.use_code_tree('/tmp/parlor-ref'); runpy.run_module('tests.agents.ofc.test_advisor_digests',
run_name='__main__')"``.
"""
from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from parlor import envs
from parlor.agents.episodes import play_episode
from parlor.agents.ofc import endgame, risk
from parlor.agents.ofc.advisor import OFCAdvisor
from parlor.agents.ofc.heuristic import OFCHeuristic, plan_turn
from parlor.agents.registry import make_agent
from parlor.envs.ofc.game import OFCGame, make_game
from parlor.envs.ofc.state import OFCState
from parlor.envs.ofc_outlook import rollouts
from parlor.envs.ofc_outlook.features import turn_key
from parlor.envs.ofc_outlook.outlook import evaluate_turn_plans, sampled_turn
from tests.harness.rounding import STATS_DECIMALS, has_kernel_floats, observation_bytes, rounded_bytes

GOLDEN = Path(__file__).with_name("advisor_digests.json")
PINEAPPLE = {"variant": "pineapple", "features": True}
GUARDS = (  # the shipped safe policy's guard first
    {"endgame_foul": 0.0, "midgame_foul": 0.02},
    {"endgame_foul": 0.05},
    {"midgame_foul": 0.1},
    {"foul": 0.1, "opening_foul": 0.0, "foul_cap": 0.3},
)


class RecordedHeuristic(OFCHeuristic):
    """The heuristic that played the recorded positions: its planner valued a Fantasyland
    top at 9 (the rollouts' ``FL_BONUS``) until the heuristic took the measured 17; the
    positions stay those the digests hash, whatever the heuristic's bonus now."""

    fl_bonus = rollouts.FL_BONUS


def positions(game: OFCGame, seeds: Iterable[int], driver: str) -> Iterator[OFCState]:
    """Every decision of seeded episodes, the acting seat played by uniformly random
    legal actions (``driver="random"``) or by the seeded heuristic as the digests were
    recorded with (:class:`RecordedHeuristic`). In 3-hand Pineapple, heuristic seed 27
    reaches Fantasyland (the only one of seeds 0..59)."""
    for seed in seeds:
        rng = np.random.default_rng(seed)
        state = game.new_state(rng)
        seats = [RecordedHeuristic(game, seed=seed * 10 + p) for p in range(game.num_players)]
        while not state.is_terminal():
            yield state
            p, mask = state.current_player, state.legal_mask()
            if driver == "random":
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                action = seats[p].act(None, mask, state.view(p))
            state.apply(action)


def features_digest(options: dict, seeds: Iterable[int], driver: str) -> str:
    h = hashlib.sha256()
    game = make_game(**options)
    kernel_floats = has_kernel_floats("ofc_v0", options)
    for state in positions(game, seeds, driver):
        for q in range(game.num_players):
            obs = game.observe(state, q)
            assert obs.tobytes() == game.encode(state.view(q)).tobytes(), "observe and encode disagree"
            h.update(observation_bytes(obs, kernel_floats))
    return h.hexdigest()[:16]


def stats_bytes(stats: rollouts.TurnStats) -> bytes:
    """The statistics rounded to ``STATS_DECIMALS``: the compiled path and the numpy oracle sum
    in different orders, and agree to ~1e-15, not bit for bit."""
    return b"".join(rounded_bytes(a, STATS_DECIMALS)
                    for a in (stats.foul, stats.royalty, stats.strength, stats.fantasyland, stats.value))


def planner_digest(options: dict, seeds: Iterable[int], driver: str) -> str:
    h = hashlib.sha256()
    game = make_game(**options)
    for i, state in enumerate(positions(game, seeds, driver)):
        view = state.view(state.current_player)
        if not view.pending or view.fantasyland[view.player]:
            continue
        key = turn_key(view)
        cands = rollouts.turn_candidates(view)
        h.update(repr(cands).encode())
        h.update(stats_bytes(rollouts.evaluate_turn(view, cands, np.random.default_rng(i))))
        _, sampled = sampled_turn(view, key)
        h.update(stats_bytes(sampled))
        actions, best = evaluate_turn_plans(view, key)
        h.update(repr(actions).encode() + stats_bytes(best))
        h.update(repr((plan_turn(view, np.random.default_rng(i)), risk.foul_risk(view, key))).encode())
    return h.hexdigest()[:16]


def guards_digest(options: dict, seeds: Iterable[int], driver: str) -> str:
    h = hashlib.sha256()
    game = make_game(**options)
    advisors = [[OFCAdvisor(game) for _ in range(game.num_players)] for _ in GUARDS]
    judges = [endgame.EndgameJudge() for _ in range(game.num_players)]
    for state in positions(game, seeds, driver):
        p = state.current_player
        view, obs, mask = state.view(p), game.observe(state, p), state.legal_mask()
        for guard, seat_advisors in zip(GUARDS, advisors):
            h.update(seat_advisors[p].guarded_mask(obs, mask, guard, view).tobytes())
        key = turn_key(view)
        h.update(repr(endgame.action_risks(view, key, judges[p])).encode())
        h.update(repr(endgame.midgame_action_risks(view, key, 0.02, judges[p])).encode())
    return h.hexdigest()[:16]


def estimates_digest(options: dict, seeds: Iterable[int], driver: str) -> str:
    h = hashlib.sha256()
    game = make_game(**options)
    advisor = OFCAdvisor(game)
    names = advisor.estimated_stats
    for state in positions(game, seeds, driver):
        for q in range(game.num_players):
            h.update(repr(advisor.stat_estimates(state, q, names)).encode())
    return h.hexdigest()[:16]


def search_digest(options: dict, seeds: Iterable[int]) -> str:
    h = hashlib.sha256()
    game = envs.make_game("ofc_v0", **options)
    for seed in seeds:
        agent_seeds = [seed * 10 + p for p in range(game.num_players)]
        agents = [make_agent("search", game, seed=s) for s in agent_seeds]
        result = play_episode(game, agents, seed=seed, agent_seeds=agent_seeds)
        h.update(repr((result.rewards, sorted(result.stats.items()), result.steps)).encode())
    return h.hexdigest()[:16]


FL_SEED = 27
CASES: dict[str, Callable[[], str]] = {
    "features pineapple 2 hands random": lambda: features_digest({**PINEAPPLE, "num_hands": 2}, range(40), "random"),
    "features pineapple heuristic": lambda: features_digest({**PINEAPPLE, "num_hands": 3}, [*range(6), FL_SEED],
                                                            "heuristic"),
    "features pineapple 3p random": lambda: features_digest({**PINEAPPLE, "num_players": 3}, range(8), "random"),
    "features original random": lambda: features_digest({"features": True}, range(10), "random"),
    "features original 4p heuristic": lambda: features_digest({"features": True, "num_players": 4}, range(3),
                                                              "heuristic"),
    "features progressive heuristic": lambda: features_digest(
        {**PINEAPPLE, "num_hands": 3, "fl_cards": "progressive"}, [FL_SEED, 1, 2], "heuristic"),
    "planner pineapple heuristic": lambda: planner_digest({**PINEAPPLE, "num_hands": 3}, [*range(4), FL_SEED],
                                                          "heuristic"),
    "planner pineapple random": lambda: planner_digest({**PINEAPPLE, "num_players": 3}, range(4), "random"),
    "planner original": lambda: planner_digest({"features": True}, range(6), "heuristic"),
    "guards pineapple heuristic": lambda: guards_digest({**PINEAPPLE, "num_hands": 3}, [FL_SEED, 0], "heuristic"),
    "guards pineapple random": lambda: guards_digest(PINEAPPLE, range(2), "random"),
    "guards pineapple 3p heuristic": lambda: guards_digest({**PINEAPPLE, "num_players": 3}, range(2), "heuristic"),
    "estimates pineapple heuristic": lambda: estimates_digest({"variant": "pineapple"}, range(4), "heuristic"),
    "estimates original random": lambda: estimates_digest({}, range(4), "random"),
    "search pineapple": lambda: search_digest({"variant": "pineapple"}, range(1)),
    "search original": lambda: search_digest({}, range(1)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_advisor_numbers_are_unchanged(case: str) -> None:
    assert CASES[case]() == json.loads(GOLDEN.read_text())[case]


@contextmanager
def numpy_oracle(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The numpy oracle (``tests/ofc_outlook/oracle.py``) in place of the compiled turn kernel,
    for the planner and the outlook; the turns completed on either path are forgotten."""
    from parlor.envs.ofc_outlook import outlook
    from tests.ofc_outlook.oracle import OracleKernel

    with monkeypatch.context() as patched:
        patched.setattr(rollouts, "kernel", OracleKernel)
        patched.setattr(outlook, "kernel", OracleKernel)
        outlook._TURNS.clear()   # turns completed by the kernel
        try:
            yield
        finally:
            outlook._TURNS.clear()


def test_the_numpy_oracle_gives_the_planners_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rounded digest does not depend on the path: the planner's numbers taken with the
    numpy oracle in place of the compiled kernel hash the same."""
    case = "planner pineapple random"
    with numpy_oracle(monkeypatch):
        assert CASES[case]() == json.loads(GOLDEN.read_text())[case]


def test_the_numpy_oracle_gives_the_features_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rounded digest does not depend on the path: the ``features=True`` observations
    taken with the numpy oracle in place of the compiled kernel hash the same."""
    case = "features pineapple 2 hands random"
    with numpy_oracle(monkeypatch):
        assert CASES[case]() == json.loads(GOLDEN.read_text())[case]


ONE_STEP_SEED = 102  # 2-hand Pineapple, random play: one outlook entry differs by a float32 step between the paths


def test_rounding_hides_the_one_step_where_the_paths_differ(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the kernel and the oracle give observations one float32 step apart, the rounded
    features digest is the same on both paths."""
    options, seeds = {**PINEAPPLE, "num_hands": 2}, [ONE_STEP_SEED]
    game = make_game(**options)

    def observations() -> list[np.ndarray]:
        return [game.observe(s, q) for s in positions(game, seeds, "random") for q in range(game.num_players)]

    kernel, digest = observations(), features_digest(options, seeds, "random")
    with numpy_oracle(monkeypatch):
        oracle, oracle_digest = observations(), features_digest(options, seeds, "random")
    differ = [(x, y) for x, y in zip(kernel, oracle) if x.tobytes() != y.tobytes()]
    assert len(kernel) == len(oracle) and len(differ) == 1   # the position the rounding is for
    x, y = differ[0]
    assert np.count_nonzero(x != y) == 1 and np.abs(x - y).max() <= np.spacing(np.float32(1.0))
    assert oracle_digest == digest


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps({name: run() for name, run in CASES.items()}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}", file=sys.stderr)
