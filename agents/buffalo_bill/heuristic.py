"""Buffalo Bill baselines: a rule-based player and a Monte Carlo exchange evaluator.

Both read the View (all hands are public; only the stock order is hidden) and
share one idea: writing a hand on line k gives up the chance to fill k later, so
each line has a *par* (what a round dedicated to that line usually yields, see
:func:`line_pars`) and a line is worth ``value - par`` now.

* :class:`BuffaloBillHeuristic` keeps the cards that build toward the most
  promising open line (groups for pair lines, 4-to-a-flush, open runs, high or
  number cards...), exchanges the rest, pays a chip only when the hand is poor
  and chips are plentiful for the rounds left, and scores the line with the best
  ``value - par`` (so with nothing made it scratches the line of lowest par).
* :class:`BuffaloBillMonteCarlo` evaluates every legal exchange by ``samples``
  sampled draws from the unseen cards (common random numbers across exchanges)
  against the best open line after the draw, minus a chip price, and compares
  with scoring now.

Their solitaire scores (every agent on the same deals, 95% confidence intervals)
come from ``parlor eval``, e.g. ``parlor eval buffalo_bill_v0 --option num_players=1
--agents random,heuristic,montecarlo --games 2000``.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from parlor.agents.base import SeededAgent, legal_actions
from parlor.envs.buffalo_bill.categories import CARD_VALUE, FACE_RANKS, NUMBER_RANKS
from parlor.envs.buffalo_bill.encode import EXCHANGE_POSITIONS, HAND_SIZE, NUM_EXCHANGES, exchange_action, score_action
from parlor.envs.buffalo_bill.features import FeatureBlock, line_pars
from parlor.envs.buffalo_bill.game import BuffaloBillGame

PAIR_LINES = {"four of a kind", "full house", "three of a kind", "two pair", "one pair"}
SUIT_LINES = {"straight flush", "flush", "four flush", "big bobtail", "little bobtail", "bobtail", "flush or gang"}
RUN_LINES = {"straight", "four straight", "sequence", "straight flush", "big bobtail", "little bobtail", "bobtail"}
COLOR_LINES = {"gang", "flush or gang"}
HIGH_LINES = {"high card", "face cards", "blaze", "four blaze"}
NUMBER_LINES = {"puritan", "number cards"}
def _exchange_values(game: BuffaloBillGame, hand: Sequence[int], pool: np.ndarray, samples: int, rng) -> np.ndarray:
    """int[31, samples, L]: line values after each exchange, the same sampled draws for all."""
    draws = pool[np.argsort(rng.random((samples, len(pool))), axis=1)[:, :HAND_SIZE]]
    hands = np.tile(np.asarray(hand), (NUM_EXCHANGES, samples, 1))
    for a, positions in enumerate(EXCHANGE_POSITIONS):
        hands[a][:, positions] = draws[:, : len(positions)]
    return game.evaluator.batch(hands.reshape(-1, HAND_SIZE)).reshape(NUM_EXCHANGES, samples, -1)


class _Base(SeededAgent):
    par_scale = 1.0  # lines kept for later compete with each other: count this share of their par

    def __init__(self, game: BuffaloBillGame, seed: int | None = None):
        self.game = game
        super().__init__(seed)
        self.par = self.par_scale * line_pars(game)

    def _best_score(self, view) -> tuple[int, float]:
        """(line, value - par) of the best open line for the current hand."""
        values = view.line_values[view.player]
        line = max(view.open_lines(), key=lambda k: values[k] - self.par[k])
        return line, values[line] - self.par[line]

    def _spare_chips(self, view) -> float:
        """Chips per round still to play (this one included)."""
        rounds_left = view.num_rounds - view.round
        return view.chips[view.player] / max(rounds_left, 1)


class BuffaloBillHeuristic(_Base):
    """Rule-based player (see the module docstring)."""

    score_margin = 14.0  # with a free exchange left, stand when the best line beats its par by this much
    paid_margin = 8.0  # pay a chip only when the best line beats its par by less than this ...
    spare_chips = 0.8  # ... and at least this many chips per remaining round are left

    def act(self, observation, action_mask, view, sample_world=None) -> int:
        line, gain = self._best_score(view)
        me = view.player
        if not action_mask[:NUM_EXCHANGES].any():
            return score_action(line)
        if view.exchanges[me] == 0:
            if gain >= self.score_margin:
                return score_action(line)
        elif gain >= self.paid_margin or self._spare_chips(view) < self.spare_chips:
            return score_action(line)
        keep = self.keep(view)
        if len(keep) == HAND_SIZE:
            return score_action(line)
        return exchange_action([i for i in range(HAND_SIZE) if i not in keep])

    def keep(self, view) -> list[int]:
        """Positions to keep, by the first rule whose target line is still open."""
        hand = view.hands[view.player]
        open_names = {view.lines[k] for k in view.open_lines()}
        ranks = [c >> 2 for c in hand]
        suits = [c & 3 for c in hand]
        counts = Counter(ranks)
        grouped = [i for i, r in enumerate(ranks) if counts[r] >= 2]
        suit, in_suit = Counter(suits).most_common(1)[0]
        run = _best_run_positions(ranks)
        black = [i for i, s in enumerate(suits) if s in (0, 3)]
        colour = black if len(black) >= 3 else [i for i in range(HAND_SIZE) if i not in black]
        if in_suit >= 4 and open_names & SUIT_LINES:
            return [i for i in range(HAND_SIZE) if suits[i] == suit]
        if len(run) >= 4 and open_names & RUN_LINES:
            return run
        if grouped and open_names & PAIR_LINES:
            return grouped
        if len(colour) >= 4 and open_names & COLOR_LINES:
            return colour
        if in_suit >= 3 and open_names & SUIT_LINES:
            return [i for i in range(HAND_SIZE) if suits[i] == suit]
        if len(run) >= 3 and open_names & RUN_LINES:
            return run
        if open_names & NUMBER_LINES and not open_names & HIGH_LINES:
            return [i for i in range(HAND_SIZE) if ranks[i] in NUMBER_RANKS]
        if open_names & {"face cards", "blaze", "four blaze"} and not open_names & {"high card"}:
            return [i for i in range(HAND_SIZE) if ranks[i] in FACE_RANKS]
        if "one pair" in open_names or "high card" in open_names:
            return [i for i in range(HAND_SIZE) if CARD_VALUE[ranks[i]] >= 10]  # fish for high pairs / totals
        return grouped


def _best_run_positions(ranks: Sequence[int]) -> list[int]:
    """Positions of the most distinct ranks inside one 5-rank window (ace high or low)."""
    best: list[int] = []
    for low in range(-1, 9):  # window low..low+4; -1 stands for the low ace
        window = {12 if r == -1 else r for r in range(low, low + 5)}
        chosen: dict[int, int] = {}
        for i, r in enumerate(ranks):
            if r in window and r not in chosen:
                chosen[r] = i
        if len(chosen) > len(best):
            best = sorted(chosen.values())
    return best


class BuffaloBillMonteCarlo(_Base):
    """Evaluates each legal exchange by ``samples`` sampled draws (see the module docstring)."""

    par_scale = 0.8

    def __init__(self, game: BuffaloBillGame, seed: int | None = None, samples: int = 48, chip_price: float = 2.0):
        super().__init__(game, seed)
        self.samples = samples
        self.chip_price = chip_price

    def act(self, observation, action_mask, view, sample_world=None) -> int:
        me = view.player
        line, stand = self._best_score(view)
        legal = legal_actions(action_mask)
        if not action_mask[:NUM_EXCHANGES].any():
            return score_action(line)
        seen = {c for h in view.hands for c in h} | set(view.discards)
        stock = np.array([c for c in self.game.deck if c not in seen])
        pool = stock if len(stock) >= HAND_SIZE else np.array([c for c in self.game.deck if c not in set(view.hands[me])])
        values = _exchange_values(self.game, view.hands[me], pool, self.samples, self.rng)
        open_lines = view.open_lines()
        gains = (values[:, :, open_lines] - self.par[open_lines]).max(axis=2).mean(axis=1)  # [31]
        if view.exchanges[me] > 0:
            gains = gains - self.chip_price / max(self._spare_chips(view), 0.25)
        best = int(np.argmax(gains))
        if gains[best] > stand and best in legal:
            return best
        return score_action(line)


class FeatureArgmaxAgent:
    """The feature block read as a policy: the legal action whose ``ex_pref`` /
    ``line_pref`` is largest (a Monte Carlo player with the block's ``SAMPLES`` common
    draws). A behaviour-cloning teacher for PPO (``pretrain.teacher:
    parlor.agents.buffalo_bill.heuristic:FeatureArgmaxAgent``); works with or without the
    ``features`` option (it computes the block from the view)."""

    def __init__(self, game: BuffaloBillGame, seed: int | None = None):
        self.block = game.features if game.features is not None else FeatureBlock(game)

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation, action_mask, view, sample_world=None) -> int:
        f = self.block.from_view(view)
        s = self.block.layout.slices
        pref = np.concatenate((f[s["ex_pref"]], f[s["line_pref"]]))
        return int(np.argmax(np.where(np.asarray(action_mask, dtype=bool), pref, -1.0)))
