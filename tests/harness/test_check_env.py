"""The public harness's entry point and the registration a game from another package uses:
``check_env`` runs every check and names the one that fails; ``envs.register`` and
``registry.register_agents`` refuse what they cannot take, naming it."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from parlor import envs
from parlor.agents import registry
from parlor.envs.testing import CHECKS, Subject, check_env
from tests.harness import kuhn
from tests.harness.cases import KUHN_ENV
from tests.harness.hidden import hidden

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def kuhn_hidden(state, p):
    return hidden("kuhn_test", state, p)


def test_check_env_runs_every_check_on_a_sound_game() -> None:
    assert check_env(KUHN_ENV, hidden=kuhn_hidden, playouts=20) == {}


def test_check_env_names_the_check_that_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    # a determinize that hands back the true state leaks the other card: only no_leak can tell
    monkeypatch.setattr(kuhn.KuhnState, "determinize", lambda self, player, rng: self.clone())
    with pytest.raises(AssertionError, match="kuhn_test: check 'no_leak' failed: AssertionError: .*determinize does not "
                                             "resample them"):
        check_env(KUHN_ENV, hidden=kuhn_hidden, playouts=20, skip=tuple(c for c in CHECKS if c != "no_leak"))
    # told nothing about what is hidden, the check cannot catch it
    assert check_env(KUHN_ENV, playouts=20, skip=tuple(c for c in CHECKS if c != "no_leak")) == {}


def test_check_env_names_an_unknown_check_to_skip_and_a_bad_playout_count() -> None:
    with pytest.raises(ValueError, match="unknown check.*no_such_check; allowed values: pettingzoo_api"):
        check_env(KUHN_ENV, skip=("no_such_check",))
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match=f"playouts={bad!r}: a positive integer"):
            check_env(KUHN_ENV, playouts=bad)


def _seeds_reset(seeds: list) -> object:
    """KUHN_ENV whose raw env records the seed of each reset."""
    def env_fn(**options):
        env = KUHN_ENV(**options)
        raw, reset = env.unwrapped, env.unwrapped.reset
        raw.reset = lambda seed=None, options=None: (seeds.append(seed), reset(seed=seed, options=options))[1]
        return env
    return env_fn


@pytest.mark.parametrize("check, first, default", [("clone", 500, 5), ("no_leak", 1000, 20)])
def test_a_subjects_episodes_set_how_many_episodes_the_whole_episode_checks_play(check, first, default) -> None:
    # default: the clone check's 5, the no-leak check's tenth of the 200 playouts; else the first `episodes`
    for episodes, played in ((None, default), (2, 2), (7, 7)):
        seeds: list = []
        CHECKS[check](Subject(_seeds_reset(seeds), hidden=kuhn_hidden, episodes=episodes))
        assert seeds == list(range(first, first + played)), (episodes, seeds)


def test_a_subject_refuses_a_bad_episode_count() -> None:
    for bad in (0, -1, 2.5, True, "2"):
        with pytest.raises(ValueError, match=f"episodes={bad!r}: a positive integer"):
            Subject(KUHN_ENV, episodes=bad)


def test_check_env_names_options_the_env_refuses() -> None:
    with pytest.raises(AssertionError, match="check 'build' failed: .*ConfigError: ante=0 is out of range"):
        check_env(KUHN_ENV, {"ante": 0})


def test_check_env_names_a_broken_invariant(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self):
        raise AssertionError("a card went missing")

    monkeypatch.setattr(kuhn.KuhnState, "check_invariants", broken)
    with pytest.raises(AssertionError, match="kuhn_test: check 'random_playouts' failed: AssertionError: a card went missing"):
        check_env(KUHN_ENV, playouts=2, skip=("pettingzoo_api", "seed", "protocol"))


@pytest.fixture
def registries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registries as they are, restored after the test."""
    monkeypatch.setattr(envs, "_REGISTRY", (list(envs.BUILTIN), {}))
    for table in ("HEURISTICS", "SEARCH_DEFAULTS", "EXTRAS"):
        monkeypatch.setattr(registry, table, dict(getattr(registry, table)))


def test_register_adds_an_env_from_another_module(registries) -> None:
    envs.register("kuhn_v7", "tests.harness.kuhn_entry")
    envs.register("kuhn_v7", "tests.harness.kuhn_entry")  # again: a no-op
    assert "kuhn_v7" in envs.ENVS and envs.ENVS == sorted(envs.ENVS)
    with pytest.raises(ModuleNotFoundError):
        envs.load("kuhn_v7")  # loaded only when asked for (no such module here)


@pytest.mark.parametrize("name,module,error", [
    ("Kuhn", "my.kuhn", "must look like <game>_v<N>"),
    ("kuhn_v1", "my.kuhn:env", "must be an import path"),
    ("tonk_v0", "my.tonk", "already registered \\(entry module parlor.envs.tonk_v0\\)"),
])
def test_register_refuses_a_bad_name_module_or_taken_name(registries, name: str, module: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        envs.register(name, module)
    envs.register("kuhn_v1", "my.kuhn")
    with pytest.raises(ValueError, match="already registered \\(entry module my.kuhn\\)"):
        envs.register("kuhn_v1", "my.other_kuhn")


def test_register_agents_names_the_heuristic_extras_and_search_defaults(registries) -> None:
    registry.register_agents("kuhn_test", heuristic="tests.agents.kuhn_agents:KuhnRule",
                             search=(4, "heuristic", "episode", None), extras={"bettor": "tests.agents.kuhn_agents:AlwaysBet"})
    game = kuhn.make_game()
    assert registry.agent_names("kuhn_test") == ["random", "heuristic", "bettor", "search", "ppo:<zip>"]
    assert type(registry.make_agent("bettor", game)).__name__ == "AlwaysBet"
    agent = registry.make_agent("search", game, seed=0)
    state = game.new_state(np.random.default_rng(0))
    view = state.view(0)
    action = agent.act(game.encode(view), np.ones(2, dtype=np.int8), view, lambda rng: state.determinize(0, rng))
    assert agent.budget == 4 and action in (0, 1)


@pytest.mark.parametrize("search,error", [
    ((0, "heuristic", "episode", None), "search defaults of kuhn_test: search budget 0: an integer in 1"),
    ((4, "greedy", "episode", None), "search rollout 'greedy'; allowed values: heuristic, random"),
    ((4, "random", "forever", None), "search horizon 'forever'; allowed values: episode, reward"),
    ((4, "random", "episode", 0), "search max_candidates 0: None or an integer >= 1"),
    ((4, "random", "episode", None, 9), "search defaults of kuhn_test: .*positional arguments"),
])
def test_register_agents_refuses_bad_search_defaults(registries, search, error) -> None:
    with pytest.raises(ValueError, match=error):
        registry.register_agents("kuhn_test", search=search)


def test_our_own_suite_runs_every_check_of_the_public_harness() -> None:
    here = Path(__file__).parent
    used = set(re.findall(r'CHECKS\["(\w+)"\]\(case\.subject\(\)\)', "".join(
        (here / name).read_text(encoding="utf-8") for name in ("test_harness.py", "test_records.py"))))
    assert used == set(CHECKS)
