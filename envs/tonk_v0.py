"""Tonk (docs/rules.md §5): a rummy game of spreads, hits, drops and tonk-outs.

| | |
|---|---|
| Import | ``from parlor.envs import tonk_v0``; ``env = tonk_v0.env(num_players=3)`` |
| Agents | ``player_0`` .. ``player_{n-1}``, n = 2..5 (default 3) |
| Actions | ``Discrete(1312)``, masked (table below) |
| Observation | ``float32[52 + 1040 + 17n + 124n + 7]`` in [-1, 1] (1522 for 3 players; layout below) |
| Action mask | ``int8[1312]`` under ``"action_mask"``; all zero for a seat not to act |
| Rewards | stakes won minus stakes paid, times ``stake``, paid when a hand is settled (zero-sum) |

Actions (``envs/tonk/encode.py``):

| ids | action | legal when |
|---|---|---|
| 0 | drop | start of own turn, before drawing, not drop-blocked |
| 1 | draw from the stock | start of own turn |
| 2 | take the top discard | start of own turn, pile not empty |
| 3..371 | lay spread ``a - 3``: 0..64 sets (per rank 2..A: four 3-card sets, then the 4-card set), 65..368 runs (per suit c d h s, per start position A-low, 2, .., Q, per length) -- ``envs.engine.melds.SPREADS`` | lay step, all its cards in hand |
| 372..1255 | hit card ``(a - 372) // 17`` on table slot ``(a - 372) % 17`` (slots numbered in the order spreads were laid this hand) | lay step, the card fits that live spread |
| 1256..1307 | discard card ``a - 1256`` | discard step, card in hand |
| 1308 | end laying, go to the discard | lay step (always; with no spread or hit open it is the only action) |
| 1309 / 1310 | join / pass the spades side pot | ``spades_side_pot``, before the first turn, in turn order |
| 1311 | declare a natural | right after the deal, the holder of a dealt instant win (the only legal action; with two or more naturals the first holder in turn order declares the draw); with ``natural="50_auto_49_turn"`` also at the start of one's first turn with a dealt 49 |

A turn is: start (drop, draw, take, declare) -> lay step (lay, hit, end laying)
-> discard step. A tonk out (hand empty after laying/hitting) or going out (last
card discarded) ends the hand at once.

Observation (relative seats: block 0 is the observer, then clockwise; ``envs/tonk/encode.py``):

| slice | meaning |
|---|---|
| ``[0:52]`` | own hand |
| ``[52:104]`` | top discard |
| ``[104:156]`` | cards in the discard pile |
| ``[156:208]`` | cards out of play (sets hit to four) |
| ``[208:1092]`` | slot ``k`` holds card ``c`` at ``208 + 52k + c`` |
| ``[1092:1092+17n]`` | owner of slot ``k``: relative seat one-hot ``1092 + nk + r`` |
| next ``124n`` | per relative seat: cards it discarded (52), cards it took from the pile (52), hand size/10, drop-blocked turns/52, blocked flag, stakes won/(4(n-1) num_hands), dealer, to act, joined side pot, rank of the spade shown (13) |
| last 7 | stock/52, turns this hand/max_turns, hand index/num_hands, phase one-hot (side pot, start, lay, discard) |

The View (``env.unwrapped.view(agent)``) also holds the ordered discard history
and the previous hand's result (every hand shown).

Options (``env(**options)``; adapter options ``render_mode``, ``illegal_action``, ``illegal_reward`` too):

| option | default | meaning |
|---|---|---|
| ``num_players`` | 3 | 2..5 |
| ``hand_size`` | 5 | 5, 7 or 9 cards dealt |
| ``start_discard`` | True | turn a card to start the discard pile |
| ``stake`` | 1 | reward per stake (> 0, <= 10^6) |
| ``hit_runs_only`` | False | only runs may be hit |
| ``hit_blocks_drop`` | True | each hit on your spread bars you from dropping for one more turn |
| ``natural`` | ``"49_50"`` | ``none`` / ``49_50`` (dealt 49 or 50 wins 2 at once) / ``50_auto_49_turn`` (50 at once, 49 declared at the start of one's first turn) |
| ``low_natural`` | ``"none"`` | ``none`` / ``13_double`` / ``9_triple_13_double`` |
| ``texas`` | False | Texas prizes (see Decisions) |
| ``tonk_needs_six`` | False | a tonk out must use the whole hand after the draw (6 cards with 5 dealt) |
| ``spades_side_pot`` | False | before the first turn each player may join a 1-stake pot for the highest spade |
| ``num_hands`` | 1 | hands per episode, 1..100000 (the dealer moves one seat clockwise each hand) |
| ``max_turns`` | 200 | a hand still running after this many turns ends as a draw (truncation) |

Stacked decks: ``reset(options={"deck": "..."})`` or ``{"decks": [...]}`` (one full
52-card deck per hand, in order; later hands are shuffled). Each hand deals
``hand_size`` cards to the first player to act, then ``hand_size`` to the next,
and so on; then the start-of-pile card (when ``start_discard``); the rest is the
stock, top first. Seat 0 acts first in the first hand.

Statistics: ``env.unwrapped.state.stats()`` gives per seat ``drop``, ``caught``,
``tonk``, ``out``, ``won`` (counts over the episode).

Decisions (parlor's, where the seed is silent or ambiguous; docs/rules.md §5):
- The lay step is always entered after the draw, even when nothing can be laid
  (only "end laying" is legal): skipping it would tell the table the player
  cannot lay.
- A player may discard the card he just took from the pile.
- Hitting one's own spread does not block one's own drop; a block is used up
  when the blocked player draws.
- A set laid with four cards stays on the table (nothing can hit it); only a set
  hit up to four leaves the table.
- ``tonk_needs_six`` with 7 or 9 dealt: the hand after the draw must be full
  (``hand_size + 1`` cards) and emptied in that turn.
- Naturals are checked right after the deal, before the side pot; any two
  naturals (high or low) make the hand a draw. An instant natural is claimed
  by one forced "declare" step of its holder, so every hand has at least one
  decision and an episode is never over at reset.
- ``texas``: tonk 2 and dealt 50 pay 2, a dealt 49 pays 1 and a winning drop 1;
  a caught dropper pays 2 (instead of 1) to each lowest hand; the tie case is
  unchanged (the dropper pays 2 to the other lowest). ``texas`` does not turn
  naturals on; it sets their prizes when ``natural`` is on.
- Drop tied by two or more others: the dropper pays 2 to each of them and each
  receives 1 from every other player who is neither the dropper nor lowest.
- Side pot: one joiner alone, or joiners without a spade, get the pot back.
- ``determinize``: the cards a player took from the pile and still holds, and the
  spade he showed, stay in his hand; the side pot's "no higher spade" and the
  absence of naturals at the deal are not enforced on the redeal.
- A truncated last hand ends the episode with truncation (``is_truncated``); a
  truncated earlier hand is a draw and play goes on.

Version History:
- v0: initial release.
"""
from parlor.envs.aec import entry_points
from parlor.envs.tonk.game import make_game

PRESETS = {
    "default": {},
    "2p": {"num_players": 2},
    "4p_seven": {"num_players": 4, "hand_size": 7},
    "5p_nine_no_start": {"num_players": 5, "hand_size": 9, "start_discard": False},
    "runs_only_no_block": {"hit_runs_only": True, "hit_blocks_drop": False},
    "natural_none": {"natural": "none", "low_natural": "13_double"},
    "natural_49_turn": {"natural": "50_auto_49_turn", "low_natural": "9_triple_13_double"},
    "texas_six": {"texas": True, "tonk_needs_six": True},
    "side_pot_hands": {"spades_side_pot": True, "num_hands": 3, "max_turns": 60},
}

env, raw_env = entry_points("tonk_v0", make_game)
