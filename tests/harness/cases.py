"""The environments the harness runs: every registered env with each of its PRESETS,
plus the test-only Kuhn game (so the adapter is exercised whatever has landed)."""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from parlor import envs
from parlor.envs.aec import entry_points
from parlor.envs.testing import Subject
from tests.harness import kuhn
from tests.harness.hidden import hidden as hidden_of
from tests.tiers import fewer_after_first_of_each_env, shorter_or_twin

KUHN_ENV, KUHN_RAW_ENV = entry_points("kuhn_test", kuhn.make_game)


@dataclass(frozen=True)
class EnvCase:
    env_name: str
    preset: str
    options: dict[str, Any]
    env_fn: Callable[..., Any]
    raw_env_fn: Callable[..., Any]
    playouts: int | None = None   # at most this many random playouts (None: its share, playouts_per_case)
    episodes: int | None = None   # episodes of the no-leak and clone checks (None: theirs, Subject)

    @property
    def id(self) -> str:
        return f"{self.env_name}[{self.preset}]"

    def shorter(self, **options: Any) -> EnvCase:
        """This preset over a shorter match (``options``: fewer deals), its rules unchanged."""
        return replace(self, preset=f"{self.preset}-short", options={**self.options, **options})

    def make(self, **extra):
        return self.env_fn(**self.options, **extra)

    def make_raw(self, **extra):
        return self.raw_env_fn(**self.options, **extra)

    def subject(self) -> Subject:
        """This case for the checks of :mod:`parlor.envs.testing`, with where its game hides
        cards (tests/harness/hidden.py) and its share of the random playouts."""
        hidden = functools.partial(hidden_of, self.env_name)
        share = playouts_per_case(self)
        return Subject(self.env_fn, dict(self.options), hidden, share if self.playouts is None else min(self.playouts, share),
                       self.id, self.episodes)


def all_cases() -> list[EnvCase]:
    cases = [EnvCase("kuhn_test", "default", {}, KUHN_ENV, KUHN_RAW_ENV)]
    for name in envs.ENVS:
        module = envs.load(name)
        for preset, options in module.PRESETS.items():
            cases.append(EnvCase(name, preset, dict(options), module.env, module.raw_env))
    return cases


CASES = all_cases()


def _by_id(cases: list[EnvCase]) -> dict[str, EnvCase]:
    return {c.id: c for c in cases}


# The checks that play whole episodes of each case (tests/harness/test_harness.py,
# test_records.py) spend most of their time on a few long presets. In `make test` those run
# over a shorter match of the same rules, or not at all where another preset plays the same
# code (Pulle's capped preset is its default over 2 deals; Buffalo Bill has no option that
# shortens a match: its sheet is its length); `make test-all` runs them
# whole. Each still plays its random playouts in `make test` (test_random_playouts_keep_invariants).
_CASE = _by_id(CASES)
FAST_TWINS: dict[str, EnvCase | str] = {
    "pulle_v0[default]": "pulle_v0[capped]",                                      # up to 100 deals; capped: 2
    # 3 deals: in the episodes of test_no_leak_determinize 20 buy-back offers, 7 of them determinized
    "pulle_v0[buy_back]": _CASE["pulle_v0[buy_back]"].shorter(max_deals=3),
    "pulle_v0[per_deal_payment]": _CASE["pulle_v0[per_deal_payment]"].shorter(max_deals=2),  # 4 deals
    "buki_v0[default]": _CASE["buki_v0[default]"].shorter(num_deals=2),           # 8 deals
    "buki_v0[raise_before_4th]": _CASE["buki_v0[raise_before_4th]"].shorter(num_deals=2),    # 3 deals
    "buki_v0[features]": _CASE["buki_v0[features]"].shorter(num_deals=1),         # 3 deals
    # seven tiles each: 3 deals, one in make test (several deals: [default-short], [raise_before_4th-short])
    "buki_v0[seven_tiles]": _CASE["buki_v0[seven_tiles]"].shorter(num_deals=1),
    # five and six seats play the default 5 games; two show a game handing over to the next
    # (the whole match of every other Washizu preset plays in make test, 12 in [fixed_suit_long_match])
    "washizu_poker_v0[5p_extra_deck]": _CASE["washizu_poker_v0[5p_extra_deck]"].shorter(num_games=2),
    "washizu_poker_v0[6p_suit_reshuffle]": _CASE["washizu_poker_v0[6p_suit_reshuffle]"].shorter(num_games=2),
    "washizu_poker_v0[6p_random13_fixed]": _CASE["washizu_poker_v0[6p_random13_fixed]"].shorter(num_games=2),
    # OFC's Fantasyland presets play 3 or 4 hands; random play reaches no Fantasyland in the
    # checks' episodes (0 seat-hands in 13 episodes of the two 3-hand presets), so 2 hands play
    # the same code: a match going on to its next hand
    "ofc_v0[fantasyland_regular]": _CASE["ofc_v0[fantasyland_regular]"].shorter(num_hands=2),
    "ofc_v0[fantasyland_progressive]": _CASE["ofc_v0[fantasyland_progressive]"].shorter(num_hands=2),
    "ofc_v0[fantasyland_4p_never_stay]": _CASE["ofc_v0[fantasyland_4p_never_stay]"].shorter(num_hands=2),
    "ofc_v0[pineapple_fantasyland]": _CASE["ofc_v0[pineapple_fantasyland]"].shorter(num_hands=2),
    # the feature block with one seat, and two seats without it
    "buffalo_bill_v0[features]": "buffalo_bill_v0[solitaire_features]",
    # four seats on the short deck (the sheet is public: the extended one plays in its random playouts)
    "buffalo_bill_v0[4p_extended]": "buffalo_bill_v0[short32_4p]",
    # the reward option only picks what the game pays (BuffaloBillGame.final_rewards at the end,
    # or each line as written with 'score'): three seats play [3p], the score paid per line [solitaire]
    "buffalo_bill_v0[reward_win_3p]": "buffalo_bill_v0[3p]",
    "buffalo_bill_v0[reward_score]": "buffalo_bill_v0[solitaire]",
}
PLAYED = shorter_or_twin(CASES, FAST_TWINS)

# The no-leak and clone checks play 5 seeded episodes of each case (the most part of their cost
# is determinize, view and encode over every position). In `make test` each env's first case
# plays all 5 and the others the first FEW_EPISODES (a prefix: episode i is the same either
# way); `make test-all` plays every case's 5. Two episodes still meet positions with hidden
# cards in every preset (the no-leak check fails when it meets none).
FEW_EPISODES = 2
EPISODES_PLAYED = fewer_after_first_of_each_env(PLAYED, lambda case: replace(case, episodes=FEW_EPISODES))


def playouts_per_case(case: EnvCase, total: int = 200) -> int:
    """Split ``total`` random playouts per env over its presets (at least 20 each)."""
    presets = sum(1 for c in CASES if c.env_name == case.env_name)
    return max(20, -(-total // presets))

