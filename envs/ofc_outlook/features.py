"""OFC placement features: the optional observation block of ``features=True``.

What a player reads off the boards before placing a card, as numbers in [0, 1]
(computed from the seat's :class:`OFCView` only, so nothing hidden leaks):

- per own row (top, middle, bottom): fill, the made hand so far (category and
  its two leading ranks, complete rows by the real evaluator, partial rows by
  their pairs/trips/quads), whether a flush / straight can still be made, the
  unseen cards that pair a card in the row;
- whether the rows are out of order right now (top over middle, middle over
  bottom: the made hands so far) and whether that is already final (the
  weaker lower row is complete and cannot improve: a foul);
- for the next pending card, per row: room, the made hand after placing it,
  whether it pairs the row, keeps a flush or straight alive, and whether the
  rows would then be out of order;
- the next card's rank and its unseen copies; own free slots;
- per opponent (relative seat): fill and made hand of each row and whether his
  rows are out of order;
- the outlook of each action for the next card (top, middle, bottom, discard):
  the best plan of the whole turn that starts with it, judged over 32 sampled
  completions of the board (:func:`envs.ofc_outlook.outlook.evaluate_turn_plans`, the
  rule-based heuristic's planner; exact on the last turn): whether it is legal,
  its foul rate, royalties / 25, row strength / 27, Fantasyland rate, the
  planner's value ((value + 7) / 40) and a preference ``exp((value - best) / 2)``
  (1.0 for the planner's choice). The samples come from a fixed noise table
  picked by :func:`turn_key`, which stays the same for every card of one turn,
  so the card-by-card choices follow one consistent plan (re-drawing the samples
  for every card mixes plans and costs about 0.2 points per hand). Zero in a
  Fantasyland turn.

Version 2 (``FEATURES_VERSION``): the outlook plans the whole turn and adds the
value and preference (version 1 judged the next card alone, completing the
board from the unseen and the other pending cards alike).

A learner given these does not have to rediscover hand ranking from one-hot
cards; the plain card one-hots stay in the observation in front of the block.

Computed in compiled passes: the board part read off the seat's observation vector
(:mod:`envs.ofc_outlook.block_kernel`), the outlook off the turn's completion
(:mod:`envs.ofc_outlook.turn_kernel`). ``tests/ofc_outlook/oracle.py`` states the block in
plain Python from the view (made hands, flush and straight draws, row order), and the
tests hold the compiled block to it.
"""
from __future__ import annotations

import numpy as np

from parlor.envs.ofc.view import OFCView
from parlor.envs.ofc_outlook import outlook as _outlook
from parlor.envs.ofc_outlook.outlook import OUTLOOK, TurnView, outlook_turn
from parlor.envs.ofc_outlook.rollouts import kernel

OWN_ROW = 8                 # features per own row
ORDER = 4                   # out-of-order flags (now, final) for top/middle and middle/bottom
NEXT_ROW = 7                # features per row for the next card
CARD = 3                    # next card rank, unseen copies, own free slots
OPP_ROW = 3
OPP = 3 * OPP_ROW + 2       # per opponent: rows + out-of-order flags
# the outlook's scales (defined with the outlook, which computes that part of the block)
ROYALTY_SCALE, STRENGTH_SCALE = _outlook.ROYALTY_SCALE, _outlook.STRENGTH_SCALE
VALUE_SCALE, PREF_TEMPERATURE = _outlook.VALUE_SCALE, _outlook.PREF_TEMPERATURE
FREE_SLOTS = 3 * OWN_ROW + ORDER + 3 * NEXT_ROW + 2   # index of own free slots / 13 in the block
FEATURES_VERSION = 2        # bump when the block changes (part of a trained policy's signature)


def size(num_players: int) -> int:
    """Length of the feature block for ``num_players`` seats."""
    return 3 * OWN_ROW + ORDER + 3 * NEXT_ROW + CARD + (num_players - 1) * OPP + 4 * OUTLOOK


def turn_key(view: OFCView | TurnView, seen: tuple[int, ...] | None = None) -> int:
    """Picks the outlook's sampling noise: a function of the cards this seat has seen
    (the same for every card of one turn: placing or discarding a pending card keeps
    it seen) and the hand; hashes of int tuples do not depend on the process.
    ``seen``: the view's seen cards in ascending order, when the caller has them."""
    seen = _outlook.sorted_seen(view) if seen is None else seen
    return hash((view.hand_index, view.player, seen)) & 0x7FFFFFFF


def outlook(view: OFCView, seen: tuple[int, ...] | None = None) -> list[float]:
    """Per action of the next card: [available, foul, royalties, strength, Fantasyland,
    value, preference] of the best turn plan starting with it
    (:func:`envs.ofc_outlook.outlook.evaluate_turn_plans`, read off the turn's completion,
    :meth:`envs.ofc_outlook.outlook.CompletedTurn.outlook`); ``seen`` as for :func:`turn_key`."""
    if not view.pending or view.fantasyland[view.player]:
        return [0.0] * (4 * OUTLOOK)
    seen = _outlook.sorted_seen(view) if seen is None else seen
    turn, taken = outlook_turn(view, turn_key(view, seen), seen)
    return turn.outlook(taken)


def block_of(observation: np.ndarray, num_players: int) -> np.ndarray:
    """The feature block at the end of a ``features=True`` observation (a view of it)."""
    return observation[len(observation) - size(num_players):]


def _with_board_block(obs: np.ndarray, layout, total: int) -> tuple[np.ndarray, tuple[int, ...]]:
    """(the observation vector ``obs`` followed by the block, its board part written by the
    compiled pass (:mod:`envs.ofc_outlook.block_kernel`) and its outlook still to come; the
    seat's seen cards, ascending). ``total``: the observation's length."""
    out = np.empty(total, dtype=np.float32)
    size = len(obs)
    out[:size] = obs
    seen = np.empty(52, dtype=np.int64)
    count = kernels()[0].board_block(obs, out, size, layout, seen)
    return out, tuple(seen[:count].tolist())


def encode(view: OFCView, obs: np.ndarray, layout, total: int) -> np.ndarray:
    """``OFCGame.encode`` with the block: ``obs`` (``encode(view)`` without the block, laid out
    by ``layout``) followed by the block of ``view``: the board part read off ``obs``, the
    outlook (:func:`outlook`) computed from the view. ``total``: the observation's length."""
    out, seen = _with_board_block(obs, layout, total)
    out[total - 4 * OUTLOOK:] = outlook(view, seen)
    return out


def observe(state, player: int, total: int) -> np.ndarray:
    """``OFCGame.observe`` with the block: the seat's observation vector (kept up to date by
    the State) followed by the block, byte for byte what :func:`encode` gives for the
    seat's view; the outlook read off the turn's completion, from the State's fields
    without building the view. ``total``: the observation's length."""
    out, seen_cards = _with_board_block(state.obs[player], state.layout, total)
    if player == state.current_player and not state.in_fl[player]:
        rows = state.rows[player]
        view = TurnView(player, state.hand_index, state.num_hands, (tuple(rows[0]), tuple(rows[1]), tuple(rows[2])),
                        tuple(state.pending[state.pend_pos:]), state.owed, tuple(state.discards[player]))
        turn, taken = outlook_turn(view, turn_key(view, seen_cards), seen_cards)
        out[total - 4 * OUTLOOK:] = turn.outlook(taken)
    else:
        out[total - 4 * OUTLOOK:] = 0.0
    return out


def kernels():
    """(:mod:`envs.ofc_outlook.block_kernel`, :mod:`envs.ofc_outlook.turn_kernel`), imported and
    loaded at the first call (numba is imported only where the block is computed)."""
    global _BLOCK_KERNEL
    if _BLOCK_KERNEL is None:
        from parlor.envs.ofc_outlook import block_kernel

        block_kernel.warm_up()
        _BLOCK_KERNEL = block_kernel
    return _BLOCK_KERNEL, kernel()


_BLOCK_KERNEL = None
