"""The single-agent wrapper: the learner's own reward, seat rotation, the opponent
pool and action masks reaching MaskablePPO's predict."""
from __future__ import annotations

import numpy as np
import pytest

from parlor.envs.engine.game import ConfigError, IllegalActionError
from parlor.training.learning.opponents import SELF, OpponentPool, PoolEntry
from parlor.training.learning.wrapper import SingleAgentEnv
from tests.training.scripted import FixedAgent, register

register()
FACTORIES = {"fixed": FixedAgent, "lowest": lambda game, seed=None: FixedAgent(game, seed, lowest=True)}


def ledger_env(**kw) -> SingleAgentEnv:
    kw.setdefault("opponents", [PoolEntry("fixed")])
    return SingleAgentEnv("ledger_test", {"rounds": 3}, agent_factories=FACTORIES, seed=0, **kw)


def play(env: SingleAgentEnv, choose) -> tuple[list[float], dict]:
    obs, info = env.reset(options={"learner_seat": env.learner_seats[0]})
    rewards, done = [], False
    while not done:
        obs, r, term, trunc, info = env.step(choose(env.action_masks()))
        rewards.append(r)
        done = term or trunc
    return rewards, info


def test_learner_in_seat_0_gets_only_its_own_rewards_between_its_decisions() -> None:
    env = ledger_env(learner_seats=[0])
    def lowest(m):  # learner: 0, 1, 0; fixed opponent: 2, 3, 2
        return int(np.flatnonzero(m)[0])

    rewards, info = play(env, lowest)
    # each step: own move +a, then the opponent's reply costs the learner 10 * b
    assert rewards == [0 - 20, 1 - 30, 0 - 20]
    assert info["raw_return"] == sum(rewards)
    assert info["stats"] == {"moves": 3.0}


def test_learner_in_seat_1_is_paid_what_it_earned_before_its_first_decision() -> None:
    env = ledger_env(learner_seats=[1])
    def highest(m):  # opponent 2, learner 2, opponent 3, learner 3, opponent 2, learner 2
        return int(np.flatnonzero(m)[-1])

    rewards, info = play(env, highest)
    assert rewards == [-20 + 2 - 30, 3 - 20, 2]
    assert info["raw_return"] == sum(rewards) == 2 + 3 + 2 - 10 * (2 + 3 + 2)


def test_reward_scale_scales_the_step_reward_only() -> None:
    env = ledger_env(learner_seats=[0], reward_scale=0.5)
    rewards, info = play(env, lambda m: int(np.flatnonzero(m)[0]))
    assert rewards == [-10.0, -14.5, -10.0]
    assert info["raw_return"] == -69.0


def test_kuhn_learner_reward_is_its_own_payoff_not_the_opponents() -> None:
    env = SingleAgentEnv("kuhn_test", opponents=[PoolEntry("fixed")], agent_factories=FACTORIES, seed=0)
    for seat, deck, expected in ((0, "K J Q", 2.0), (1, "K J Q", -2.0), (0, "J K Q", -2.0)):
        env.reset(options={"learner_seat": seat, "deck": deck})
        _, r, term, _, info = env.step(1)  # bet (seat 0) / call (seat 1); the fixed opponent bets or calls
        assert term and r == expected and info["learner_seat"] == seat


def test_opponents_can_be_pinned_per_seat_for_an_episode() -> None:
    env = ledger_env(opponents=[PoolEntry("fixed")])
    rewards, info = play(env, lambda m: int(np.flatnonzero(m)[0]))
    assert info["opponents"] == {1: "fixed"}
    env.reset(options={"learner_seat": 0, "opponents": {1: "lowest"}})
    _, r, *_ = env.step(0)
    assert r == 0.0  # the lowest-playing opponent takes 0, costing the learner nothing
    with pytest.raises(ValueError, match="learner_seat=5"):
        env.reset(options={"learner_seat": 5})


def test_learner_seat_rotates_per_episode_over_the_given_seats() -> None:
    env = SingleAgentEnv("kuhn_test", learner_seats=[1, 0], seed=3)
    seats = []
    for _ in range(4):
        _, info = env.reset()
        seats.append(info["learner_seat"])
        while True:
            *_, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            if term or trunc:
                break
    assert seats == [1, 0, 1, 0]


def test_learner_never_acts_out_of_turn_and_masks_are_the_learners() -> None:
    env = ledger_env()
    for _ in range(10):
        env.reset()
        done = False
        while not done:
            assert env.state.current_player == env.learner
            mask = env.action_masks()
            assert mask.dtype == bool and np.array_equal(mask, env.state.legal_mask())
            *_, term, trunc, _ = env.step(int(np.flatnonzero(mask)[-1]))
            done = term or trunc


def test_illegal_learner_action_raises() -> None:
    env = ledger_env(learner_seats=[0])
    env.reset()
    with pytest.raises(IllegalActionError, match="legal actions: 0"):
        env.step(1)


def test_pool_draws_by_weight_and_self_waits_for_a_snapshot() -> None:
    env = ledger_env()
    pool = OpponentPool([PoolEntry("fixed", 3.0), PoolEntry("lowest", 1.0), PoolEntry(SELF, 4.0)],
                        env.game, FACTORIES)
    rng = np.random.default_rng(0)
    names = [pool.draw(1, rng)[0] for _ in range(4000)]
    assert set(names) == {"fixed", "lowest"}
    assert names.count("fixed") / len(names) == pytest.approx(0.75, abs=0.03)
    pool.add_snapshot(FixedAgent())
    names = [pool.draw(1, rng)[0] for _ in range(4000)]
    assert names.count("self[0]") / len(names) == pytest.approx(0.5, abs=0.03)


def test_bad_pool_and_seats_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="seats 0..1"):
        ledger_env(learner_seats=[2])
    with pytest.raises(ConfigError, match="weight"):
        PoolEntry("fixed", -1.0)
    with pytest.raises(ValueError, match="unknown agent"):
        ledger_env(opponents=[PoolEntry("no_such_agent")])
    env = ledger_env(opponents=[PoolEntry(SELF)])
    with pytest.raises(ConfigError, match="pool is empty"):
        env.reset()


def test_same_seed_same_episode() -> None:
    def trace(seed):
        env = SingleAgentEnv("kuhn_test", opponents=[PoolEntry("random")], seed=None)
        obs, _ = env.reset(seed=seed)
        out = [obs]
        for _ in range(20):
            obs, r, term, trunc, _ = env.step(0)
            out += [obs, r]
            if term or trunc:
                obs, _ = env.reset()
                out.append(obs)
        return np.concatenate([np.ravel(x) for x in out])

    assert np.array_equal(trace(5), trace(5))


def test_masks_reach_maskable_ppo_predict() -> None:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    vec = DummyVecEnv([lambda: ledger_env(), lambda: ledger_env(seat_offset=1)])
    model = MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    model.learn(128)  # the env raises on an illegal action, so masks were used while collecting
    env = ledger_env()
    for _ in range(20):
        obs, _ = env.reset()
        done = False
        while not done:
            mask = env.action_masks()
            action, _ = model.predict(obs, action_masks=mask)
            assert mask[int(action)]
            obs, _, term, trunc, _ = env.step(int(action))
            done = term or trunc
    only = np.zeros(4, dtype=bool)
    only[3] = True
    for _ in range(10):
        assert int(model.predict(obs, action_masks=only)[0]) == 3


def test_subproc_vec_env_passes_the_learners_masks() -> None:
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from parlor import envs

    if "buki_v0" not in envs.ENVS:
        pytest.skip("buki_v0 not registered")
    from functools import partial

    vec = SubprocVecEnv([partial(SingleAgentEnv, "buki_v0", {}, [PoolEntry("random")], [1, 2, 3], seed=s)
                         for s in range(2)])
    try:
        vec.reset()
        assert is_masking_supported(vec)
        for _ in range(30):
            masks = get_action_masks(vec)
            assert masks.shape == (2, vec.action_space.n) and masks.any(axis=1).all()
            vec.step(np.array([np.flatnonzero(m)[0] for m in masks]))
    finally:
        vec.close()


def test_shaping_adds_weight_times_a_statistic_at_the_episode_end_only() -> None:
    shaped = SingleAgentEnv("ofc_v0", {"variant": "pineapple"}, [PoolEntry("random")], seed=4, shaping={"foul": -6.0})
    plain = SingleAgentEnv("ofc_v0", {"variant": "pineapple"}, [PoolEntry("random")], seed=4)
    fouls = 0
    for _ in range(12):
        shaped.reset(), plain.reset()
        done = False
        while not done:
            action = int(np.flatnonzero(shaped.action_masks())[-1])
            _, ra, term, trunc, ia = shaped.step(action)
            _, rb, _, _, ib = plain.step(action)
            done = term or trunc
            extra = -6.0 * ia["stats"]["foul"] if done else 0.0
            assert ra == pytest.approx(rb + extra)
        assert ia["raw_return"] == ib["raw_return"]  # the game's own return is untouched
        fouls += ia["stats"]["foul"]
    assert fouls > 0  # the always-last-legal placement fouls some hands: the shaping was exercised
    with pytest.raises(ConfigError, match="allowed values: fantasyland, foul, royalties"):
        SingleAgentEnv("ofc_v0", {}, [PoolEntry("random")], shaping={"fouls": -1.0})


def test_potential_shaping_pays_the_final_statistic_as_its_estimate_moves() -> None:
    # Same games, same actions: the shaped env's extra reward per step is the change of
    # -10 x the estimated foul rate, and an episode's extra rewards sum to -10 x the
    # final foul flag minus the potential at the first decision (they telescope).
    options = {"variant": "pineapple", "features": True}
    shaped = SingleAgentEnv("ofc_v0", options, [PoolEntry("heuristic")], seed=4, shaping={"foul": -10.0},
                            shaping_mode="potential")
    plain = SingleAgentEnv("ofc_v0", options, [PoolEntry("heuristic")], seed=4)
    fouls = early = 0
    for episode in range(8):
        shaped.reset()
        plain.reset()
        first = shaped._potentials["foul"]
        extras, done = [], False
        while not done:
            legal = np.flatnonzero(shaped.action_masks())
            action = int(legal[-1] if episode % 2 else legal[0])  # the careless extremes foul often
            _, ra, term, trunc, ia = shaped.step(action)
            _, rb, _, _, ib = plain.step(action)
            done = term or trunc
            extras.append(ra - rb)
        assert ia["raw_return"] == ib["raw_return"]  # the game's own return is untouched
        assert sum(extras) == pytest.approx(-10.0 * ia["stats"]["foul"] - first, abs=1e-9)
        fouls += ia["stats"]["foul"]
        early += any(x != 0.0 for x in extras[:-1])
    assert fouls > 0 and early == 8  # fouls happened, and the shaping was paid before the last step


def test_potential_shaping_with_the_endgame_estimator_pays_the_final_foul() -> None:
    # "foul:endgame": no potential before the hand's first judged turn (0), then the
    # turn's lowest exact risk; the extra rewards telescope to -10 x the final foul flag.
    options = {"variant": "pineapple"}
    shaped = SingleAgentEnv("ofc_v0", options, [PoolEntry("heuristic")], seed=6,
                            shaping={"foul:endgame": -10.0}, shaping_mode="potential")
    plain = SingleAgentEnv("ofc_v0", options, [PoolEntry("heuristic")], seed=6)
    fouls = 0
    for episode in range(8):
        shaped.reset()
        plain.reset()
        assert shaped._potentials["foul:endgame"] == 0.0
        extras, done = [], False
        while not done:
            legal = np.flatnonzero(shaped.action_masks())
            action = int(legal[-1] if episode % 2 else legal[0])
            _, ra, term, trunc, ia = shaped.step(action)
            _, rb, _, _, ib = plain.step(action)
            done = term or trunc
            extras.append(ra - rb)
        assert ia["raw_return"] == ib["raw_return"]
        assert sum(extras) == pytest.approx(-10.0 * ia["stats"]["foul"], abs=1e-9)
        assert all(x == 0.0 for x in extras[:5])  # the opening turn is not judged
        fouls += ia["stats"]["foul"]
    assert fouls > 0
    with pytest.raises(ConfigError, match="does not estimate 'foul:endgame'.*allowed values: foul$"):
        SingleAgentEnv("ofc_v0", {}, [PoolEntry("random")], shaping={"foul:endgame": -1.0}, shaping_mode="potential")
    with pytest.raises(ConfigError, match="'fouls:endgame' is not a statistic"):
        SingleAgentEnv("ofc_v0", options, [PoolEntry("random")], shaping={"fouls:endgame": -1.0})


def test_potential_shaping_needs_an_estimated_statistic() -> None:
    with pytest.raises(ConfigError, match="does not estimate 'royalties'.*allowed values: foul$"):
        SingleAgentEnv("ofc_v0", {}, [PoolEntry("random")], shaping={"royalties": 1.0}, shaping_mode="potential")
    with pytest.raises(ConfigError, match="shaping_mode='dense'.*'final', 'potential'"):
        SingleAgentEnv("ofc_v0", {}, [PoolEntry("random")], shaping={"foul": -1.0}, shaping_mode="dense")


def test_adapter_options_other_than_the_illegal_action_policy_are_refused() -> None:
    with pytest.raises(ConfigError, match="render_mode.*allowed values: the game's own options and illegal_action"):
        SingleAgentEnv("ledger_test", {"render_mode": "ansi"}, agent_factories=FACTORIES,
                       opponents=[PoolEntry("fixed")])
    with pytest.raises(ConfigError, match="illegal_action='ignore'"):
        SingleAgentEnv("ledger_test", {"illegal_action": "ignore"}, agent_factories=FACTORIES,
                       opponents=[PoolEntry("fixed")])


def penalty_env(**kw) -> SingleAgentEnv:
    options = {"rounds": 3, "illegal_action": "penalty", "illegal_reward": -5.0}
    return SingleAgentEnv("ledger_test", options, agent_factories=FACTORIES, seed=0,
                          opponents=[PoolEntry("fixed")], **kw)


@pytest.mark.parametrize("bad", [1, None])
def test_penalty_mode_an_illegal_action_ends_the_episode_with_the_penalty(bad) -> None:
    env = penalty_env(learner_seats=[1], reward_scale=0.5)
    env.reset()
    assert not env.action_masks()[1]  # the learner's first turn: only even actions
    obs, reward, terminated, truncated, info = env.step(bad)
    # the opponent's opening move cost the learner 20 (paid with its first step), then the penalty
    assert (terminated, truncated) == (True, False)
    assert reward == 0.5 * (-20 - 5)
    assert info["illegal_action"] is True and info["raw_return"] == -25.0 and "stats" not in info
    assert env.action_masks().all()  # a finished episode: never an empty mask
    with pytest.raises(RuntimeError, match="finished episode"):
        env.step(0)
    env.reset()  # and the next episode plays normally
    assert env.step(0)[2] is False


def test_raise_mode_an_illegal_action_raises_and_no_integer_is_cast() -> None:
    env = ledger_env(learner_seats=[0])
    env.reset()
    with pytest.raises(IllegalActionError, match="legal actions: 0 .*, 2 "):
        env.step(1)
    with pytest.raises(IllegalActionError, match="illegal action None"):
        env.step(None)
    for bad in (0.0, "0", True, np.array([0])):
        with pytest.raises(TypeError, match="is not an integer"):
            env.step(bad)
    env.step(np.array(0))  # a 0-d integer array is an integer (SB3's predict returns one)
