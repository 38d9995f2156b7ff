"""Draw poker with Washizu (transparent) cards and jokers: a match of 5 games.

Rules: docs/rules.md §3. Every game: ante 1, five cards each, one draw of 0-5 cards,
one betting round (call / raise 1..max_raise / drop), showdown. Washizu cards
are transparent: one in a hand is seen by everyone; discards are face down.
Jokers are wild; five of a kind beats a straight flush.

| | |
|---|---|
| Import | `from parlor.envs import washizu_poker_v0; env = washizu_poker_v0.env(num_players=4, washizu="suit")` |
| Agents | `player_0` .. `player_{n-1}`; n = 2..6 |
| Actions | `Discrete(34 + max_raise)` (37 by default) |
| Observation | `Dict(observation=Box(0, 1, (L,), float32), action_mask=Box(0, 1, (34 + max_raise,), int8))` |
| Rewards | each game's chip change (ante included), paid when the game ends; the sum is chips at the end minus chips at the start |

**Actions** (the mask opens only the range of the current phase):

| id | meaning | phase |
|---|---|---|
| 0..31 | discard the hand positions whose bits are set (bit i = position i of the hand in canonical order: by rank, then suit c d h s, a Washizu copy `*` after its twin, jokers last) and draw as many; 0 = stand pat | draw |
| 32 | drop (fold; chips bet stay in the pot) | betting |
| 33 | call (bring the bet up to the level; the first call of a round costs 1) | betting |
| 33 + k | raise by k = 1..max_raise (lift the level by k and bring the bet up to it) | betting, if level + k <= cap |

**Dealing.** The first game's dealer is the last seat, so seat 0 acts first. Each
game deals 5 cards to each player still in the match in turn order (the player
after the dealer gets the first 5 cards of the deck, the next player the next 5,
...); the rest is the stock, drawn from its top in order. Stacked decks:
`reset(options={"deck": "As Kd ..."})` for the first game or
`options={"decks": [...]}` one per game (later games are shuffled); a stacked
deck is the full deck of the game: 52 cards (+ 52 `"As*"` copies with
`extra_deck`) + the jokers `Xx`, `Xy`.

**Observation** (`L = 208 + 59 n`: 326 / 385 / 444 / 503 / 562
for 2..6 players; slices from `envs.washizu_poker.encode.Layout(n).slices`;
seats relative: 0 = the observer, k = k seats clockwise; chips / (n * starting_chips)):

| slice | size | content |
|---|---|---|
| hand | 5 x 19 | per hand position: rank one-hot (13), suit one-hot (4), joker, is Washizu |
| washizu_set | 52 | which cards are Washizu this episode (all 52 with `extra_deck`) |
| visible | (n-1) x 52 | the Washizu cards in each other seat's hand |
| left_view | 52 | Washizu cards discarded this game (they left view) |
| my_discards | 53 | own discards this game (count / 2 per card; jokers last) |
| seats | n x 7 | in the match, in this game, has drawn, cards drawn / 5, stack, bet, is dealer |
| table | 8 | pot, level, level cap, game number / num_games, draw phase, betting phase, to call, my turn |

Never observed: an opponent's ordinary (non-Washizu) card, anyone's ordinary
discard but one's own, the deck order.

**Options** (`env(**options)`; adapter options `render_mode`, `illegal_action`,
`illegal_reward` as for every parlor env):

| option | default | values |
|---|---|---|
| num_players | 4 | 2..6 |
| jokers | 1 | 0..2 wild jokers |
| starting_chips | 15 | 1..10000 |
| washizu | `"suit"` | `"none"`, `"suit"` (one random suit), `"random13"` (13 random cards), `"extra_deck"` (a second, transparent 52-card deck) |
| washizu_cards | None | with `suit`/`random13`: the 13 Washizu cards (`"2h 3h ..."`, a list, or a suit letter for `suit`) instead of drawing them |
| num_games | 5 | 1..1000 games per match (fewer if only one player has chips) |
| max_raise | 3 | 1..100 |

**Decisions** (parlor's, where the seed is silent; docs/rules.md §3):
- Defaults: 4 players and `washizu="suit"` (the seed's first combination).
- Which cards are Washizu is public (the deck is built in the open); with
  `suit`/`random13` it is drawn once per episode. With a stacked first deck
  (and no `washizu_cards`) it is drawn from a generator seeded by that deck, so
  a replayed deck replays the same Washizu cards whatever the seed.
- A player's own discards are set aside while he draws: if the stock runs out,
  the other discards are shuffled into a new stock and his are added after.
- The betting level starts at 1 and the ante is not part of a player's bet; the
  level cap is the smallest (stack + bet) among players still in.
- A tie at the showdown splits the pot evenly among the tied players; the
  remainder is removed from play (rewards of that game sum to minus it).
- The hands shown at a showdown are in every player's View (`last_result`).
- `State.stats()`: per seat `games_won` (a split counts 1/k), `showdowns`,
  `dropped`, `raised`, `eliminated` (0/1), `final_chips`.

**Version History**
- v0: first release.
- v0 (fix): with `extra_deck` a joker in a flush may be the second copy of a card in
  the hand (A-K-Q-2 of spades + joker is A-A-K-Q-2, docs/rules.md §3.3); it was always
  the best missing card, so a joker hand could rank below a hand it can become.
"""
from parlor.envs.aec import entry_points
from parlor.envs.washizu_poker.game import make_game

PRESETS = {
    "default": {},
    "2p_none_no_jokers": {"num_players": 2, "washizu": "none", "jokers": 0},
    "3p_random13_two_jokers": {"num_players": 3, "washizu": "random13", "jokers": 2},
    "5p_extra_deck": {"num_players": 5, "washizu": "extra_deck", "jokers": 2},
    "6p_suit_reshuffle": {"num_players": 6, "washizu": "suit", "jokers": 0},
    "6p_random13_fixed": {
        "num_players": 6, "washizu": "random13", "jokers": 1,
        "washizu_cards": "2c 5d 7h 9s Tc Jd Qh Ks Ac 3d 4h 6s 8c",
    },
    "fixed_suit_long_match": {"washizu": "suit", "washizu_cards": "h", "num_games": 12, "starting_chips": 6, "max_raise": 5},
    "short_stacks": {"num_players": 3, "starting_chips": 2, "max_raise": 1, "num_games": 3},
}

env, raw_env = entry_points("washizu_poker_v0", make_game)
