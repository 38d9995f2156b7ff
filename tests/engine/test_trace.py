"""The Trace's generator states as JSON: every numpy bit generator round-trips (arrays
included), a state started from any of them serializes, and a bad one is refused by name."""
from __future__ import annotations

import json

import numpy as np
import pytest

from parlor import envs
from parlor.envs.engine.trace import BIT_GENERATORS, rng_from_json, rng_to_json


@pytest.mark.parametrize("name", BIT_GENERATORS)
def test_a_generator_state_survives_json_and_draws_the_same(name: str) -> None:
    rng = np.random.Generator(getattr(np.random, name)(7))
    rng.random(3)
    again = rng_from_json(json.loads(json.dumps(rng_to_json(rng.bit_generator.state))))
    np.testing.assert_array_equal(again.random(5), rng.random(5))


def test_a_state_started_from_another_bit_generator_serializes() -> None:
    game = envs.make_game("ofc_v0")
    state = game.new_state(np.random.Generator(np.random.MT19937(3)))
    state.apply(int(np.flatnonzero(state.legal_mask())[0]))
    restored = game.deserialize_state(game.serialize_state(state))
    np.testing.assert_array_equal(game.observe(restored, 0), game.observe(state, 0))


@pytest.mark.parametrize("bad", [{}, {"bit_generator": "os.system"}, "PCG64", {"bit_generator": "PCG64", "state": 3}])
def test_a_bad_generator_state_is_refused_naming_what_is_allowed(bad) -> None:
    with pytest.raises(ValueError, match="rng: "):
        rng_from_json(bad)
