"""Open Face Chinese poker (RULES.md §1): the config and the Game.

The State (deal, placement, showdown, Fantasyland) lives in ``state.py``, the
showdown arithmetic in ``scoring.py``. Framework-free (numpy only).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from parlor.envs.engine.cards import parse_stacked_deck, standard52, validate_deck
from parlor.envs.engine.config import build, check_bool, check_choice, check_int
from parlor.envs.engine.game import ConfigError
from parlor.envs.ofc import encode as _encode
from parlor.envs.ofc import endgame as _endgame
from parlor.envs.ofc import features as _features
from parlor.envs.ofc import render as _render
from parlor.envs.ofc import rollouts as _rollouts
from parlor.envs.ofc.deal import deal_plan
from parlor.envs.ofc.scoring import FL_CARDS_OPTIONS, FL_STAY_OPTIONS
from parlor.envs.ofc.state import OFCState
from parlor.envs.ofc.view import OFCView

VARIANTS = ("original", "pineapple")
MAX_PLAYERS = {"original": 4, "pineapple": 3}


@dataclass(frozen=True, slots=True, kw_only=True)
class OFCConfig:
    """Options of RULES.md §1 with their defaults."""

    variant: str = "original"
    num_players: int = 2
    num_hands: int = 1
    fl_cards: str = "regular"
    fl_stay: str = "trips_fh_quads"
    features: bool = False

    def __post_init__(self) -> None:
        check_choice("variant", self.variant, VARIANTS)
        check_int("num_players", self.num_players, 2, 4)
        if self.num_players > MAX_PLAYERS[self.variant]:
            raise ConfigError(
                f"num_players={self.num_players} is not allowed for variant={self.variant!r}; "
                f"allowed values: 2..{MAX_PLAYERS[self.variant]}"
            )
        check_int("num_hands", self.num_hands, 1)
        check_choice("fl_cards", self.fl_cards, FL_CARDS_OPTIONS)
        check_choice("fl_stay", self.fl_stay, FL_STAY_OPTIONS)
        check_bool("features", self.features)


class OFCGame:
    """Builds OFC states and encodes/renders their views."""

    name = "ofc"
    num_actions = _encode.NUM_ACTIONS
    observation_bounds = (0.0, 1.0)

    def __init__(self, config: OFCConfig):
        self.config = config
        self.num_players = config.num_players
        self.layout = _encode.Layout(config.num_players)
        self.features = config.features
        # part of a trained policy's signature (training.policy.layout_version)
        self.observation_version = _features.FEATURES_VERSION if config.features else None
        self.max_deals = config.num_hands
        # what guarded_mask() can keep in check (tolerances by name): the outlook's foul
        # rates (read off the feature block) and, in Pineapple, the endgame's exact ones
        self.guarded_stats = (("foul", "opening_foul", "foul_cap") if config.features else ()) + (
            ("endgame_foul", "midgame_foul") if config.variant == "pineapple" else ())
        self._endgame_judge = _endgame.EndgameJudge()
        # the State.stats() entries stat_estimates() predicts (training.wrapper's potential
        # shaping); "STAT:ESTIMATOR" estimates STAT another way
        self.estimated_stats = ("foul", "foul:endgame") if config.variant == "pineapple" else ("foul",)
        self.observation_shape = (self.layout.size + (_features.size(config.num_players) if config.features else 0),)
        self.deck = standard52()
        n = config.num_players
        # watchers[p]: (seat, offset of p's board in that seat's observation) for every other seat
        self.watchers = tuple(tuple((q, self.layout.opponent_base(q, p)) for q in range(n) if q != p) for p in range(n))
        self.no_rewards = np.zeros(config.num_players)
        self.no_rewards.flags.writeable = False
        lay = self.layout
        self.state_constants = (  # unpacked by OFCState.__init__
            n, config.variant, config.num_hands, config.fl_cards, config.fl_stay, lay,
            (lay.unseen_rank, lay.unseen_suit), (lay.pending_left, lay.discards_owed), self.watchers,
        )
        self._hand_cache: dict[tuple[int, tuple[int, ...]], tuple] = {}

    def hand_setup(self, start: int, fl_next: tuple[int, ...]) -> tuple:
        """(turn plan, Fantasyland deal sizes, per-seat observation header) of a hand; cached."""
        key = (start, fl_next)
        setup = self._hand_cache.get(key)
        if setup is None:
            plan, fl_dealt = deal_plan(start, fl_next, self.config.variant)
            in_fl = [k > 0 for k in fl_next]
            headers = []
            for p in range(self.num_players):
                h = np.zeros(self.layout.size, dtype=np.float32)
                _encode.hand_header(self.layout, h, p, 0, self.config.num_hands, in_fl, start)
                headers.append(h)
            setup = self._hand_cache[key] = (tuple(plan), tuple(fl_dealt), tuple(headers))
        return setup

    def new_state(self, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None = None) -> OFCState:
        stacked = []
        for d in decks or ():
            cards = tuple(int(c) for c in d)
            validate_deck(cards, self.deck)
            stacked.append(cards)
        return OFCState(self, rng, stacked)

    def parse_deck(self, deck: str | Sequence[Any]) -> tuple[int, ...]:
        """A full 52-card deck in dealing order (text ``"As Kd ..."`` or ids)."""
        return parse_stacked_deck(deck, self.deck)

    def sample_deck(self, rng: np.random.Generator) -> tuple[int, ...]:
        """A random full deck in dealing order, as ``new_state`` accepts in ``decks``."""
        return tuple(int(c) for c in rng.permutation(52))

    def encode(self, view: OFCView) -> np.ndarray:
        obs = _encode.encode(view, self.layout)
        return np.concatenate((obs, _features.features(view))) if self.features else obs

    def observe(self, state: OFCState, player: int) -> np.ndarray:
        """Fast path: equals ``encode(state.view(player))`` (kept up to date incrementally)."""
        if self.features:
            return np.concatenate((state.obs[player], _features.features(state.view(player))))
        return state.obs[player].copy()

    def stat_estimates(self, state: OFCState, player: int,
                       names: Sequence[str] = ("foul",)) -> dict[str, float | None]:
        """``player``'s foul rate as ``state.stats()`` will report it at the episode's end,
        expected from what the seat knows now: the fouls of its finished hands plus the
        current hand's risk, by the estimators ``names`` asks for:

        - ``foul``: :func:`envs.ofc.rollouts.foul_risk` (the safest plan of the turn,
          completed strongest-first);
        - ``foul:endgame`` (Pineapple): the lowest :func:`envs.ofc.endgame.action_risks`
          of the turn, None while the turn leaves more than four free slots (the
          potential then stays where it was: 0 before the hand's first judged turn).

        Exact once the episode is over; None while the seat has no regular turn to
        judge (no pending card, or a Fantasyland turn)."""
        if state.is_terminal():
            return dict.fromkeys(names, state.stats()["foul"][player])
        view = state.view(player)
        if not view.pending or view.fantasyland[player]:
            return dict.fromkeys(names)
        out: dict[str, float | None] = {}
        for name in names:
            if name == "foul":
                current: float | None = _rollouts.foul_risk(view, _features.turn_key(view))
            elif name == "foul:endgame" and name in self.estimated_stats:
                risks = _endgame.action_risks(view, _features.turn_key(view), self._endgame_judge)
                current = None if risks is None else min(risks.values())
            else:
                raise ValueError(f"{self.name} does not estimate {name!r} with these options; allowed values: "
                                 f"{', '.join(self.estimated_stats)}")
            out[name] = None if current is None else (state.stat_foul[player] + current) / self.config.num_hands
        return out

    def guarded_mask(self, observation: np.ndarray, mask: np.ndarray, guard: Mapping[str, float],
                     view: OFCView | None = None) -> np.ndarray:
        """``mask`` without the actions the guard finds too risky:

        - ``guard["endgame_foul"]`` (Pineapple; needs ``view``): once the turn leaves at
          most four free slots, drop an action whose foul probability under careful
          play (:func:`envs.ofc.endgame.action_risks`: exact from two free slots on,
          over 32 draws of the next turn's cards from four) exceeds the turn's lowest
          among the actions the other guards leave by more than the tolerance.
        - ``guard["midgame_foul"]`` (Pineapple; needs ``view``): a cap for the turn that
          leaves six free slots (the first three-card turn): drop an action none of whose
          plans keeps the foul probability under careful play
          (:func:`envs.ofc.endgame.midgame_action_risks`: over 16 draws of the next
          turn's cards and 4 of the turn after's) within the cap; if no action can, the
          lowest stays.

        The others are judged by the outlook's foul rates (only with ``features=True``:
        the outlook is read from ``observation``):

        - ``guard["foul"]``: a tolerance: drop an action whose foul rate exceeds that of
          the planner's choice by more than it;
        - ``guard["opening_foul"]``: replaces ``foul`` while the seat places its first
          five cards (the opening turn, where most fouls are decided);
        - ``guard["foul_cap"]``: a ceiling: drop an action whose foul rate exceeds both
          it and the planner's choice's (the risk a hand may creep up to, step by step).

        The action of lowest risk (the planner's choice for the outlook's) always
        stays, and a decision the guards do not judge (a Fantasyland turn, an opening)
        keeps every legal action."""
        if guard.keys() & {"foul", "opening_foul", "foul_cap"}:
            mask = self._outlook_guard(observation, mask, guard)
        if "endgame_foul" in guard:  # after the outlook's: its lowest risk is among the actions left
            mask = self._endgame_guard(mask, guard["endgame_foul"], view)
        if "midgame_foul" in guard:  # judges other turns than endgame_foul: the order is free
            mask = self._midgame_guard(mask, guard["midgame_foul"], view)
        return mask

    def _outlook_guard(self, observation: np.ndarray, mask: np.ndarray, guard: Mapping[str, float]) -> np.ndarray:
        block = _features.block_of(observation, self.config.num_players)
        planned = _features.planned_foul(block[-4 * _features.OUTLOOK:])
        if planned is None:
            return mask
        outlook = np.asarray(block[-4 * _features.OUTLOOK:]).reshape(4, _features.OUTLOOK)
        tolerance = guard.get("foul")
        if "opening_foul" in guard and _features.in_opening(block):
            tolerance = guard["opening_foul"]
        ceiling = np.inf if tolerance is None else planned + tolerance
        if "foul_cap" in guard:
            ceiling = min(ceiling, max(planned, guard["foul_cap"]))
        risky = (outlook[:, 0] > 0) & (outlook[:, 1] > ceiling + 1e-9)
        return mask & ~risky

    def _endgame_guard(self, mask: np.ndarray, tolerance: float, view: OFCView | None) -> np.ndarray:
        risks = _endgame.action_risks(_needs_view("endgame_foul", view), _features.turn_key(view), self._endgame_judge)
        return _drop_above(mask, risks, lambda lowest: lowest + tolerance)

    def _midgame_guard(self, mask: np.ndarray, cap: float, view: OFCView | None) -> np.ndarray:
        key = _features.turn_key(_needs_view("midgame_foul", view))
        risks = _endgame.midgame_action_risks(view, key, cap, self._endgame_judge)
        if risks is None:
            return mask
        if not any(p <= cap for a, p in risks.items() if mask[a]):  # none within: the lowest stays
            return _drop_above(mask, _endgame.midgame_action_risks(view, key, 1.0, self._endgame_judge),
                               lambda lowest: lowest)
        return _drop_above(mask, risks, lambda lowest: cap)

    def render(self, view: OFCView) -> str:
        return _render.render(view)

    def action_name(self, action: int) -> str:
        return _encode.action_name(action)


def _needs_view(guard: str, view: OFCView | None) -> OFCView:
    if view is None:
        raise ValueError(f"the {guard} guard needs the seat's view: guarded_mask(..., view=state.view(seat))")
    return view


def _drop_above(mask: np.ndarray, risks: dict[int, float] | None, ceiling) -> np.ndarray:
    """``mask`` without the actions whose risk exceeds ``ceiling(lowest risk among the
    actions it allows)``; unchanged when the decision is not judged (``risks`` None)."""
    if risks is None:
        return mask
    allowed = {a: p for a, p in risks.items() if mask[a]}
    if not allowed:
        return mask
    limit = ceiling(min(allowed.values()))
    risky = [a for a, p in allowed.items() if p > limit + 1e-12]
    if not risky:
        return mask
    mask = mask.copy()
    mask[risky] = False
    return mask


def make_game(**options: Any) -> OFCGame:
    return OFCGame(build(OFCConfig, options))
