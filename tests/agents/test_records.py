"""Game records of heuristic play through the episode loop, for every env and preset: the
record re-simulates exactly, agrees with the episode's result, and is the record the AEC
adapter makes of the same actions on the same seed and stacked decks."""
from __future__ import annotations

import numpy as np
import pytest

from parlor import envs
from parlor.agents.episodes import play_episode
from parlor.agents.registry import make_agent
from parlor.envs.records import Record, record_episode, replay

CASES = [(name, preset) for name in envs.ENVS for preset in envs.load(name).PRESETS]


@pytest.mark.parametrize("name,preset", CASES, ids=[f"{n}[{p}]" for n, p in CASES])
def test_a_heuristic_game_on_stacked_decks_records_and_resimulates_exactly(name: str, preset: str) -> None:
    options = envs.load(name).PRESETS[preset]
    game = envs.make_game(name, **options)
    deck_rng = np.random.default_rng(8)
    decks = [game.sample_deck(deck_rng) for _ in range(2)]  # the first two deals stacked, the rest shuffled
    agents = [make_agent("heuristic", game, seed=p) for p in range(game.num_players)]
    result = play_episode(game, agents, seed=21, decks=decks)
    labels = [f"heuristic@{p}" for p in range(game.num_players)]
    record = record_episode(game, result.state, seed=21, agents=labels, tags={"deal": 0})
    assert list(record.rewards) == result.rewards
    assert {k: list(v) for k, v in record.stats.items()} == result.stats
    assert len(record.steps) == result.steps and record.truncated == result.truncated
    stacked = min(2, len(record.decks))
    assert record.stacked == stacked and record.decks[:stacked] == tuple(tuple(d) for d in decks[:stacked])
    again = Record.from_json(record.to_json())
    assert again == record and again.agents == tuple(labels) and again.tags == {"deal": 0}
    replay(again)  # rebuilt from the registry by env name and options

    env = envs.make_raw(name, **options)  # the same actions through the AEC adapter
    env.reset(seed=21, options={"decks": decks})
    for step in record.steps:
        assert env.agent_selection == f"player_{step.seat}"
        env.step(step.action)
    assert env.record(agents=labels, tags={"deal": 0}) == record
