"""Buffalo Bill: score-sheet poker with exchanges and chips (docs/rules.md §2).

Every player fills the same score sheet of poker categories, one line per
round, so a game lasts as many rounds as the sheet has lines. Hands are dealt
face up (everything but the stock order is public); on a turn a player either
exchanges any cards (first exchange of a round free, later ones 1 chip from 12
for the whole game) or scores the hand on an empty line (0 = scratching).

| Import             | ``from parlor.envs import buffalo_bill_v0``                        |
|--------------------|--------------------------------------------------------------------|
| Actions            | Discrete(31 + L), L = sheet lines (standard 9, extended 18, bobtail 11) |
| Parallel API       | no (AEC)                                                           |
| Manual control     | no                                                                 |
| Agents             | ``player_0`` .. ``player_{n-1}``, n = 1..4                          |
| Action shape       | (1,)                                                               |
| Observation shape  | (L + 1 + 52 + 260 + 2n + n * (52 + 3L + 4),)  (492 for 2p standard); ``features=True`` appends 132 + 5L (177 standard) |
| Observation values | [0, 1]                                                             |

Action ids (the meaning never depends on the state; the mask says what is legal):

| id            | meaning                                                                        |
|---------------|--------------------------------------------------------------------------------|
| 0 .. 30       | exchange: discard the hand positions whose bits are set in ``id + 1`` (bit i = position i); the drawn cards fill those positions in order. Masked off when the exchange would cost a chip and the player has none. |
| 31 .. 31+L-1  | score the hand on sheet line ``id - 31`` (sheet order); masked off once written |

Helpers: ``envs.buffalo_bill.encode.exchange_action(positions)``, ``score_action(line)``.

Observation (``game.layout.slices``; seats are relative: row 0 = the observer,
row 1 the next seat clockwise, ...; values scale by ``MAX_VALUE = 54``):

| slice        | size      | content                                                      |
|--------------|-----------|--------------------------------------------------------------|
| ``round``    | L         | one-hot round number (all 0 once over)                        |
| ``stock``    | 1         | stock size / deck size                                       |
| ``discards`` | 52        | discard pile (multi-hot card ids ``rank*4+suit``)             |
| ``hand``     | 5 x 52    | own hand by position (one-hot per position)                   |
| ``to_act``   | n         | seat to act (one-hot)                                        |
| ``first``    | n         | seat that acts first this round (the one after the dealer)    |
| ``seats``    | n x (52+3L+4) | per seat: hand (multi-hot, empty once scored), used lines, written values / 54, **value the current hand would score on every line** / 54, total / (54 L), chips / starting chips, exchanges this round / (starting chips + 1), scored this round |

Feature block (option ``features=True``; appended after ``seats``, starts at
``game.feature_offset``, slices in ``game.features.layout.slices``; computed by
``envs/buffalo_bill/features.py`` from the observer's view only: its hand, the
public hands, the discard pile, its sheet and chips; exchange draws are sampled
with a fixed table of random numbers over the sorted unseen cards, so the block
is deterministic). A line's *par* is what a fresh deal usually yields for that
line alone after its best single exchange; a *gain* is ``value - 0.8 par`` mapped
to ``0.5 + gain / 40`` clipped to [0, 1] (0.8 as the Monte Carlo agent):

| slice          | size | content                                                                   |
|----------------|------|---------------------------------------------------------------------------|
| ``ex_gain``    | 31   | per exchange action: mean over 256 sampled draws of the best open line's gain afterwards |
| ``ex_best``    | 31   | per exchange action: mean best open line value afterwards / 54            |
| ``ex_improve`` | 31   | per exchange action: share of the draws whose best gain beats scoring now |
| ``open``       | L    | line still empty                                                          |
| ``now``        | L    | value of the hand on the line now / 54 (0 if written)                     |
| ``now_gain``   | L    | gain of scoring the line now (0 if written)                               |
| ``potential``  | L    | best mean value of the line after one exchange / 54 (0 if written)        |
| ``scalars``    | 8    | best ``now_gain``, best ``ex_gain``, rounds left / L, chips / starting chips, chips per round left / 4 (max 1), next exchange costs a chip, an exchange is allowed, exchanges this round / (starting chips + 1) |
| ``ex_pref``    | 31   | per exchange: ``exp((net - best) / 4)``: net = mean gain in points, minus 2 / max(chips per round left, 0.25) for a paid exchange; best = the largest net or line gain (all 0 when no exchange is allowed) |
| ``line_pref``  | L    | per open line: ``exp((gain now - best) / 4)`` (0 if written); the 1.0 among ex_pref/line_pref is the Monte Carlo agent's choice |

Hand-dependent entries are 0 for an observer without a hand (scored this round).

Rewards (option ``reward``; default ``score`` for 1 player, ``margin`` for 2+):

* ``score``: each scoring action pays the value written, so the return is the final total;
* ``margin``: at the end, own total minus the best other total;
* ``win``: at the end, +1 sole winner, 0 for players tied on the best total, -1 the others.

Options (``env(**options)``; plus the adapter's ``render_mode``, ``illegal_action``, ``illegal_reward``):

| option        | default        | allowed                                                            |
|---------------|----------------|--------------------------------------------------------------------|
| ``num_players`` | 2            | 1..4 (1 = solitaire)                                               |
| ``deck``      | ``"standard52"`` | ``"standard52"``, ``"short32"`` (7..A; A-7-8-9-T is no straight)  |
| ``chips``     | 12             | 0..1000 chips per player for the whole game                        |
| ``sheet``     | ``"standard"`` | ``"standard"``, ``"extended"``, ``"bobtail"`` or a list of 1..100 category names (one line each) |
| ``reward``    | None (auto)    | ``"score"``, ``"margin"``, ``"win"`` (margin/win need 2+ players)  |
| ``features``  | False          | True appends the feature block (below the Observation table) to the observation |

Categories: straight flush, four of a kind, full house, flush, straight, three
of a kind, two pair, one pair, high card (alias "plucked nickel"), blaze, big
bobtail, four blaze, little bobtail, four flush, four straight, sequence, gang,
puritan, bobtail, flush or gang, face cards, number cards (``_`` or ``-`` may
replace spaces). Values: card = its number, J/Q/K 10, A 11; a line scores the
best value the hand allows for it (docs/rules.md §2.6, §2.7).

Stacked decks: ``reset(options={"decks": [d0, d1, ...]})`` deals round ``r`` from
``d_r`` (a full deck order): 5 cards to the first player to act, 5 to the next,
..., then the stock in order; ``{"deck": d}`` stacks round 0 only. Later rounds and
reshuffles of the discard pile are random.

Decisions (parlor's, where the seed is silent; docs/rules.md §2):

* Chips paid for exchanges go to the bank for good (never refilled, never paid out).
* The stock is refilled when a card must be drawn from an empty stock: the
  discard pile (including the cards just discarded in this exchange) is shuffled
  into a new stock and the draw goes on.
* The ace is high or low in every run (A-2-3-4 is a four straight, A-2-3 a
  sequence and a little bobtail when suited) but never wraps (K-A-2).
* "flush or gang" scores the five cards when all five share a colour (a flush
  always does).
* ``reward="margin"``/``"win"`` with one player is a ConfigError (nobody to compare with).
* Stacked decks must be complete decks of the game (52 or 32 cards).

Statistics (``state.stats()``, per player): ``total`` (final score), ``chips_left``,
``scratched`` (lines written as 0).

Version History:

* v0: initial release. Feature block (``features=True``, off by default) version 2
  (``features.FEATURES_VERSION``, part of a trained policy's signature): 256
  draws per exchange (version 1: 64).
"""
from parlor.envs.aec import entry_points
from parlor.envs.buffalo_bill.game import make_game

PRESETS = {
    "default": {},
    "solitaire": {"num_players": 1},
    "3p": {"num_players": 3},
    "4p_extended": {"num_players": 4, "sheet": "extended"},
    "bobtail": {"sheet": "bobtail"},
    "short32_4p": {"deck": "short32", "num_players": 4},
    "reward_score": {"reward": "score"},
    "features": {"features": True},
    "solitaire_features": {"num_players": 1, "reward": "score", "features": True},
    "reward_win_3p": {"num_players": 3, "reward": "win"},
    "custom_sheet": {"sheet": ["blaze", "gang", "puritan", "face cards", "four straight"], "chips": 3},
    "no_chips": {"chips": 0, "num_players": 2, "deck": "short32", "sheet": "bobtail"},
}

env, raw_env = entry_points("buffalo_bill_v0", make_game)
