"""Open Face Chinese poker (OFC), original and Pineapple, with Fantasyland.

Rules: docs/rules.md §1. Each player builds a top (3 cards), middle (5) and bottom
(5) row, face up, with bottom >= middle >= top; a set breaking the order is
fouled. Hands are scored pairwise at the showdown (rows, scoop, royalties).

| | |
|---|---|
| Import | `from parlor.envs import ofc_v0; env = ofc_v0.env(variant="pineapple", num_players=3)` |
| Agents | `player_0` .. `player_{n-1}`; n = 2..4 (original), 2..3 (pineapple) |
| Actions | `Discrete(4)`: where the acting player's **next pending card** goes |
| Observation | `Dict(observation=Box(0, 1, (L,), float32), action_mask=Box(0, 1, (4,), int8))` |
| Rewards | the points of a hand, paid to every seat at its showdown (zero-sum per hand) |

**Actions** (pending cards are handled in the order dealt):

| id | meaning | legal when |
|---|---|---|
| 0 | place on top | top has room and a placement is still owed this turn |
| 1 | place in middle | middle has room and a placement is still owed |
| 2 | place on bottom | bottom has room and a placement is still owed |
| 3 | discard (face down) | a discard is still owed (Pineapple: 1 of each 3; Fantasyland: the surplus over 13) |

**Dealing and turn order.** Seat 0 starts the first hand; the start player
moves one seat clockwise after each hand, except when the next hand has a
Fantasyland player. Fantasyland players
receive all their cards first (seat order from the start player) and place
them before anyone else acts. Every other player receives 5 cards, then 1
(original) or 3 (Pineapple) per turn, from the top of the deck as his turn
begins. Stacked decks: `reset(options={"deck": "As Kd ..."})` (52 cards, dealt
in that order) or `options={"decks": [...]}` (one per hand; later hands shuffled).

**Observation** (`L = 493 / 651 / 809` for 2 / 3 / 4 players; slices from
`envs.ofc.encode.Layout(n).slices`; opponents by relative seat 1..n-1):

| slice | size | content |
|---|---|---|
| own_rows | 156 | own top, middle, bottom: 52-card one-hot each |
| next_card | 52 | the next pending card (the one the action moves) |
| pending | 52 | the other pending cards of this turn |
| own_discards | 52 | own face-down discards this hand |
| opponent_rows | (n-1)*156 | each opponent's visible rows (empty while he plays Fantasyland) |
| unseen_rank | 13 | cards of each rank not seen by this seat this hand / 4 |
| unseen_suit | 4 | cards of each suit not seen / 13 |
| pending_left | 1 | pending cards left this turn / 17 |
| discards_owed | 1 | discards still owed this turn / 4 |
| hand_progress | 1 | hand index / num_hands |
| last_hand | 1 | 1 in the episode's last hand (Fantasyland no longer pays) |
| fantasyland | n | by relative seat: plays this hand in Fantasyland |
| start_seat | n | one-hot: own seat relative to the start player |

With `features=True` a block of `80 + 11*(n-1)` numbers in [0, 1] follows
(`envs/ofc_outlook/features.py`, from the seat's view only): per own row its fill, the
made hand so far (category, two leading ranks), flush/straight still possible,
unseen cards pairing it, complete; whether top > middle and middle > bottom
right now (and whether that is already final); for the next card and each row:
room, the made hand after placing it, pairs made, flush/straight alive, out of
order after it; the card's rank, its unseen copies, own free slots; per
opponent: fill, category and leading rank of each row, his rows out of order;
per action of the next card, the best plan of the whole turn that starts with
it over 32 sampled completions (the heuristic's planner): legal, foul rate,
royalties, row strength, Fantasyland rate, value and preference (1.0 for the
planner's choice). The block has its own version (`features.FEATURES_VERSION`,
now 2), which a trained policy's signature records.

Never observed: opponents' pending cards and discards, Fantasyland boards of
others before the showdown, the deck order.

**Options** (`env(**options)`; adapter options `render_mode`, `illegal_action`,
`illegal_reward` as for every parlor env):

| option | default | values |
|---|---|---|
| variant | `"original"` | `"original"`, `"pineapple"` |
| num_players | 2 | 2..4 (original), 2..3 (pineapple) |
| num_hands | 1 | 1..100000 hands per episode (Fantasyland needs >= 2) |
| fl_cards | `"regular"` | `"regular"` (14), `"progressive"` (QQ 14, KK 15, AA 16, trips 17; 14 when staying) |
| fl_stay | `"trips_fh_quads"` | `"trips_fh_quads"`, `"trips_quads"`, `"none"` |
| features | `False` | `True` appends the placement features below (what the trained policies use) |

**Decisions** (parlor's, where the seed is silent; docs/rules.md §1):
- A player in Fantasyland only stays by the `fl_stay` rule; the entry rule
  (QQ+ on top) does not apply to a Fantasyland hand (so `fl_stay="none"`
  really means one Fantasyland hand at a time).
- A Fantasyland player sees the other boards once he has placed all his cards
  (they are face up); while he places, nobody else has placed anything.
- Several Fantasyland players are dealt in seat order from the start player;
  under the deck-capacity rule each gets what he earned, capped by what the
  deck can spare after the regular players' needs and 13 for every later
  Fantasyland player (4-player original: 13 cards, no discard).
- At the end of the episode every board is revealed in the final observation.
- A stacked deck must hold all 52 cards; hands beyond the given decks are
  shuffled from the episode's generator.
- `State.stats()`: per seat, averaged over the hands played: `foul`,
  `fantasyland` (regular hands that qualified for Fantasyland entry, also in
  the last hand), `royalties`; with `num_hands > 1` also `points`,
  `regular_hands`, `regular_points`, `fl_hands`, `fl_points` and `fl_stays`,
  and the game's `stat_ratios` name the rates evaluation derives from them
  (`fl_entry_rate`, `fl_stay_rate`, `points_per_fl_hand`,
  `points_per_regular_hand`; docs/rules.md §1.10).
- `observe(state, player)` equals `encode(state.view(player))`: each seat's
  vector is updated incrementally.

**Version History**
- v0: first release (original and Pineapple, Fantasyland, multi-hand episodes).
  Feature block (`features=True`, off by default) version 2: the per-action
  outlook plans the whole turn and adds value and preference (version 1
  judged the next card alone).
"""
from parlor.envs.aec import entry_points
from parlor.envs.ofc.game import make_game

PRESETS = {
    "default": {},
    "3p": {"num_players": 3},
    "4p": {"num_players": 4},
    "pineapple": {"variant": "pineapple"},
    "pineapple_3p": {"variant": "pineapple", "num_players": 3},
    "fantasyland_regular": {"num_hands": 4},
    "fantasyland_progressive": {"num_hands": 4, "fl_cards": "progressive", "fl_stay": "trips_quads"},
    "fantasyland_4p_never_stay": {"num_players": 4, "num_hands": 3, "fl_stay": "none"},
    "pineapple_fantasyland": {"variant": "pineapple", "num_players": 3, "num_hands": 3, "fl_cards": "progressive"},
    "pineapple_features": {"variant": "pineapple", "num_hands": 2, "features": True},
}

env, raw_env = entry_points("ofc_v0", make_game)
