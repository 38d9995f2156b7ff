"""The Austrian block and draw games with the 36-tile set (docs/rules.md §4c).

2-4 players, no bets. Block game: played exactly like Buki (undealt tiles
unused). Draw game: a player who cannot play draws from the boneyard one tile
at a time until he can play (then he must play), passing when the boneyard is
empty or after `max_draws` draws. The heaviest tile leads the first deal; the
winner (after a draw: the player of the last tile) the next. A player who
plays his last tile wins; a lap of passes blocks the deal and the lowest pip
count wins (equal lowest: draw).

| | |
|---|---|
| Import | `from parlor.envs import austrian_dominoes_v0; env = austrian_dominoes_v0.env(mode="draw", num_players=3)` |
| Agents | `player_0` .. `player_{n-1}`, n = 2..4 |
| Actions | `Discrete(73)`: `2 t + e` plays tile `t` on end `e` (0 left, 1 right; first tile `e = 0`); 72 = pass (block game), draw until a tile fits or no draw is allowed, then pass (draw game); 72 is legal only when no tile fits |
| Observation | `Dict(observation=Box(0, 1, (300,), float32), action_mask=Box(0, 1, (73,), int8))` |
| Rewards | per deal: +1 to the winner, -1/(n-1) to each other player, 0 to all on a draw |

**Observation**: the shared core (294; `envs/dominoes/encode.py`; hand counts
scaled by the largest possible hand) and the tail (6): tiles drawn this turn /
(`max_draws` or the initial boneyard), draw game flag, deals won / num_deals
per seat. Seats relative to the observer.

**Options** (plus adapter options):

| option | default | values |
|---|---|---|
| num_players | 4 | 2..4 |
| mode | `"block"` | `"block"`, `"draw"` |
| hand_size | table default | block: 2p 11 (12), 3p 8 (9), 4p 7 (8); draw: 2p 8 (9), 3p 7, 4p 6 |
| max_draws | None | draw game: draws per turn before passing, 1..36 (None = until the boneyard is empty) |
| num_deals | 1 | 1..100000 |

Stacked tiles: `options={"deck": ...}` / `{"decks": [...]}` (36 tiles each):
seat 0 gets the first `hand_size`, seat 1 the next, ...; the rest is the boneyard in order.

**Decisions**:
- Draw game, 4 players: 6 tiles each.
- The forced draws of one turn are one action (72); the turn goes on with the
  tile that fits. A draw replaces the drawer's known voids by the two open
  numbers he drew on (his new tiles may show older void numbers).
- `max_draws` is only allowed with `mode="draw"`.
- `State.stats()`: `deals_won`, `win_rate`.
- `determinize(p, rng)` keeps the known voids, a drawer's one fitting tile, and
  (block game, first deal) the heaviest-tile lead.

**Version History**
- v0: first release.
"""
from parlor.envs.aec import entry_points
from parlor.envs.dominoes.austrian.game import make_game

PRESETS = {
    "default": {},
    "block_2p": {"num_players": 2, "num_deals": 3},
    "block_3p_9": {"num_players": 3, "hand_size": 9},
    "draw_2p": {"mode": "draw", "num_players": 2, "num_deals": 2},
    "draw_4p_max3": {"mode": "draw", "max_draws": 3},
}
env, raw_env = entry_points("austrian_dominoes_v0", make_game)
