"""Buki (Bukidomino): block dominoes with bets against a banker (docs/rules.md §4a).

The 36-tile double-eight set without doubles; 4 players, one of them the
banker. Each player gets 6 tiles (option 7); the rest, the Stamm, is unused.
The first deal is led by the holder of the heaviest tile (ties: the higher
single number), later deals by the previous winner (after a drawn deal: the
player of the last tile). A player who can play must play; a full lap of
passes blocks the deal and the lowest pip count wins (equal lowest: draw).
Non-bankers bet ``min_bet..max_bet`` against the banker before acting on their
own 1st, 2nd or 3rd turn (a previous winner before his 1st); a winner gets his
bet back plus exactly 2.5x from the banker, the other bets go to the banker.

| | |
|---|---|
| Import | `from parlor.envs import buki_v0; env = buki_v0.env(hand_size=7)` |
| Agents | `player_0` .. `player_3`; the banker seat (option `banker`) is an agent too |
| Actions | `Discrete(76 + K)` with `K = max_bet - min_bet + 1` (81 by default), table below |
| Observation | `Dict(observation=Box(0, 1, (342,), float32), action_mask=Box(0, 1, (A,), int8))`; `(518,)` with `features=True` |
| Rewards | chip change, paid at each deal's settlement (zero-sum; exact halves as floats) |

**Actions** (`K = max_bet - min_bet + 1`):

| id | meaning | legal when |
|---|---|---|
| `2 t + e` (0..71) | play tile `t` on end `e` (0 left, 1 right); the first tile of a deal uses `e = 0` | the tile fits that open end (must-play) |
| 72 | pass | no tile fits |
| `73 + (x - min_bet)` | bet `x` (or raise the bet to `x`) | a betting decision is open (see below) |
| `73 + K` | bet later / keep the bet as it is | the bet is not due yet, or a raise is optional |
| `74 + K` | accept the raise | banker, after a `raise_before_4th` raise |
| `75 + K` | refuse the raise | same |

A non-banker's betting decision opens at the start of his own turn, before he
plays or passes: with no bet on the table at turns 1..3 (due at turn 3, or
turn 1 after winning the previous deal: then "later" is not legal); with a
bet carried over a drawn deal at turns 1..3 (raise, no lowering); with
`raise_before_4th`, a bet below `max_bet` may be raised at turns up to the 4th
and the banker then accepts or refuses. Own tiles are tile ids
0 = 0-1, 1 = 0-2, ..., 35 = 7-8 (`envs.engine.dominoes.BUKI_SET`).

**Observation**: the shared core (294 entries; slices in `envs/dominoes/encode.py`:
own tiles, unseen tiles, unseen per number, open ends, line empty, tiles played
per seat, tiles held per seat, known voids per seat (passes on open numbers),
seat to act, seats playing, deal progress, Stamm size) and the Buki tail (48):
banker, bets / max_bet, chips / all chips, own turns begun (one-hot 0..4+),
must bet before the 1st turn, carried bets, bet decision now, bet due now,
accept decision now, pending raise / max_bet, raiser. Seats are relative
(slot 0 = the observer). Never observed: other hands, the Stamm.

With option `features=True` a block of 176 entries follows at 342:518, computed
from the observer's view only (`envs/dominoes/buki/features.py` documents each):

| slice | meaning |
|---|---|
| 342 | estimated chance p to win this deal (fixed logistic model over the entries below, per own turn 1/2/3+) |
| 343:347 | bet economics: edge 3.5p - 1 (0.5 = break-even p = 2/7), p > 2/7, expected chips of the min and of the max bet |
| 347:351 | seat order from this deal's leader, one-hot (347 = I lead) |
| 351:354 | own turns left before the bet is due: 0, 1, 2+ (zero once the bet is placed) |
| 354 | own bet / max_bet |
| 355:368 | hand numbers: own tiles, fewest tiles of another seat, their difference, distinct numbers, pips, own tiles fitting an end, unseen tiles fitting an end, voids (own, next three seats), numbers held twice, control of numbers |
| 368 | the baseline heuristic's softmax win chance |
| 369:371 | tiles on the line / 36, first deal (leader by the heaviest tile); 371:374 spare |
| 374:446 | per tile action `2 t + e`: the baseline heuristic's score of that play / 40 (0 when illegal) |
| 446:518 | per tile action: 1 on the heuristic's preferred legal play |

**Options** (plus adapter options `render_mode`, `illegal_action`, `illegal_reward`):

| option | default | values |
|---|---|---|
| banker | 0 | seat 0..3, fixed for the episode |
| chips | 100 | starting chips of each player (must cover `num_deals` worst-case deals), <= 10^9 |
| min_bet | 2 | 1..10^6 |
| max_bet | `3 * min_bet` | min_bet..10^6 |
| hand_size | 6 | 6 or 7 |
| raise_before_4th | False | raises before the 4th turn, banker accepts or refuses |
| num_deals | 8 | 1..100000 deals per episode |
| features | False | append the bettor's feature block (176 entries, below) to the observation |

Stacked tiles: `reset(options={"deck": "0-1 7-8 ..."})` (all 36 tiles, low-high)
for the first deal or `{"decks": [...]}` one per deal: seat 0 gets the first
`hand_size` tiles, seat 1 the next, ...; the rest is the Stamm.

**Decisions** (parlor's, where the seed is silent; docs/rules.md §4a):
- A non-banker whose deal ends before he bet is charged `min_bet` as his bet
  (settled like any bet; it stays on the table after a draw).
- "Before the Nth turn" means up to his Nth turn, before he plays or passes on
  it (as the seed's 3回目のプレイの前). So a carried bet may be raised at turns
  1..3 without the banker's consent, and with `raise_before_4th` any other bet
  may be raised at turns up to the 4th, subject to the banker.
- Bets are whole chips; payouts are exact (`Fraction`), rewards are floats.
- `chips` must satisfy `chips >= num_deals * max(max_bet, 2.5 max_bet - 2 min_bet)`
  so that nobody can go broke (ConfigError otherwise; the worst run of deals reaches it,
  docs/rules.md §4a.1); at a settlement the banker collects the losing bets before he
  pays the winner (§4a.5).
- Bets still on the table after a drawn last deal go back to their owners.
- When both open ends show the same number a tile fitting them may be played
  on either end (two distinct actions).
- `State.stats()`: `deals_won`, `chips_per_deal`, `chip_change` per seat.
- `determinize(p, rng)` redeals the other hands and the unused tiles keeping the
  public inferences: known voids (passes) and, in the first deal, that the leader
  was dealt the heaviest tile of all hands.

**Version History**
- v0: first release.
- v0 (additive): option `features` (default False: the observation is unchanged).
- v0 (fix): the banker collects the losing bets before he pays the winner; settings at the
  chips bound could fail in the middle of a settlement before, no outcome that settled changes.
"""
from parlor.envs.aec import entry_points
from parlor.envs.dominoes.buki.game import make_game

PRESETS = {
    "default": {},
    "seven_tiles": {"hand_size": 7, "num_deals": 3},
    "raise_before_4th": {"raise_before_4th": True, "banker": 2, "num_deals": 3},
    "short_wide_bets": {"num_deals": 2, "min_bet": 1, "max_bet": 5, "chips": 40},
    "features": {"features": True, "num_deals": 3},
}
env, raw_env = entry_points("buki_v0", make_game)
