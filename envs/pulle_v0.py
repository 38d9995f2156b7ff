"""Pulle: dominoes for a pool, players sit out at 101 pips (docs/rules.md §4b).

The 36-tile double-eight set without doubles; 4 players, 7 tiles each (the
rest unused), played like Buki without bets: heaviest tile leads the first
deal, the winner (after a draw: the player of the last tile) the next;
must-play; a lap of passes blocks the deal (lowest pips win; equal lowest:
draw). Each player stakes `stake` in the pool. After each deal every player
adds the pips left in his hand to his total; 101 or more sits out; the last
player left wins the pool. If all players still in reach 101 together, all
totals go back to 0, everybody stakes again and play goes on.

| | |
|---|---|
| Import | `from parlor.envs import pulle_v0; env = pulle_v0.env(buy_back=True)` |
| Agents | `player_0` .. `player_3` |
| Actions | `Discrete(75)`, table below |
| Observation | `Dict(observation=Box(0, 1, (305,), float32), action_mask=Box(0, 1, (75,), int8))` |
| Rewards | chip change: per-deal payments when paid; the pool when won (winner: pool minus his own stakes, others: minus their stakes and buy-backs) |

| id | meaning | legal when |
|---|---|---|
| `2 t + e` (0..71) | play tile `t` on end `e` (0 left, 1 right; first tile: `e = 0`) | the tile fits (must-play) |
| 72 | pass | no tile fits |
| 73 | buy back: pay `stake / 2`, total := median of the other three (all three equal: that + 1) | `buy_back`, all four in, before the first tile of a deal, and it lowers his total |
| 74 | no buy-back | same |

**Observation**: the shared core (294; see `envs/dominoes/encode.py` and
`buki_v0`) and the Pulle tail (11): totals / 200, out (101+), pool
(`x / (1 + x)` of pool / all four stakes), buy-back decision now, the total a
buy-back would give / 200. Seats relative to the observer.

**Options** (plus adapter options):

| option | default | values |
|---|---|---|
| chips | 100 | starting chips of each player, 0..10^9 |
| stake | 4 | each player's stake (again after a reset), 1..10^6 |
| buy_back | False | the median buy-back rule |
| per_deal_payment | 0 | each deal's winner receives this from every other player in the deal (half after a block); 0..10^6, 0 = off |
| max_deals | 100 | cap: the episode is truncated there, 1..100000 |

Stacked tiles: `options={"deck": ...}` / `{"decks": [...]}` as in Buki; the
first 7 tiles go to the first seat still in, the next 7 to the next, ...

**Decisions**:
- Buy-backs are offered after the tiles are dealt and before the first tile
  is played (the seed: プレイの前ならいつでも), clockwise from the deal's leader,
  and only when the buy-back would lower the player's total.
- If the leader by the usual rule sits out, the next seat still in leads.
- Per-deal payments come from the other players of that deal only.
- Balances may go below zero (debts are settled after the session).
- A truncated episode (`max_deals`) gives the pool back to its contributors.
- `State.stats()`: `pool_won`, `deals_won`, `buy_backs`, `chip_change`.
- `determinize(p, rng)` redeals the other hands and the unused tiles keeping the
  public inferences: known voids (passes) and, in the first deal, that the leader
  was dealt the heaviest tile of all hands.

**Version History**
- v0: first release.
"""
from parlor.envs.aec import entry_points
from parlor.envs.dominoes.pulle.game import make_game

PRESETS = {
    "default": {},
    "buy_back": {"buy_back": True},
    "per_deal_payment": {"per_deal_payment": 2, "stake": 6, "max_deals": 4},
    "capped": {"max_deals": 2},
}
env, raw_env = entry_points("pulle_v0", make_game)
