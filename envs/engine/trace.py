"""How a state came to be, and states as text (``Game.serialize_state`` / ``deserialize_state``).

Every ``State`` carries a :class:`Trace`: the state of the random generator and the
stacked decks ``new_state`` got, every deck dealt since (stacked or shuffled), and every
action applied. Because all chance (shuffles, draws, reshuffles) happens inside
``new_state`` and ``apply`` from the state's one generator, the start plus the actions
reproduce the state exactly, generator included. So a state is serialized the way
OpenSpiel's default ``SerializeState`` does it, as its history, and restored by replaying
that history: whatever fields, caches and observation buffers a game keeps, the restored
state is the same, and no game needs its own (de)serializer. The text is JSON, never pickle.

A state made by ``determinize`` has no such history (its hidden cards were redealt):
serializing one raises. Game records (``parlor.envs.records``) reuse the same replay.

State text, format ``parlor-state`` version 1 (one JSON object)::

    {"format": "parlor-state", "version": 1, "game": "ofc_v0", "options": {...the config...},
     "rng": {...generator state at new_state...}, "decks": [[...], ...],  # stacked decks given
     "actions": [2, 0, ...], "rewards_pending": [0.0, 0.0],   # earned, not yet taken
     "rng_now": {...generator state now: checked after the replay...}}

``game`` is the env id (``Game.name``). Texts written before the env id became every game's
one name say ``"ofc"``, ``"washizu_poker"`` or ``"buffalo_bill"``: they are read as the env id
they meant (:data:`OLD_GAME_NAMES`).
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from parlor.envs.engine.config import to_dict
from parlor.envs.engine.game import ConfigError, IllegalActionError, shown

STATE_FORMAT = "parlor-state"
STATE_VERSION = 1
# the names state texts gave these games before the env id became every game's name: read still
OLD_GAME_NAMES = {"ofc": "ofc_v0", "washizu_poker": "washizu_poker_v0", "buffalo_bill": "buffalo_bill_v0"}
# numpy's bit generators a text may name (a name is looked up only among these)
BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
# Upper bounds (exclusive) of the scalar integers of a generator state, by key path: numpy's
# setters do not check them (an MT19937 ``pos`` past its key reads out of bounds and crashes
# the interpreter), so a state from a file is held to them first. Array entries are bounded
# by their dtype, their lengths by a fresh generator's state.
_RNG_INT_LIMITS = {
    ("state", "state"): 2**128, ("state", "inc"): 2**128,     # PCG64, PCG64DXSM
    ("state", "pos"): 625,                                     # MT19937: 624 = draw a new block
    ("buffer_pos",): 5,                                        # Philox: 4 = buffer used up
    ("has_uint32",): 2, ("uinteger",): 2**32,
}


class ReplayError(ConfigError):
    """A record or state text that does not re-simulate: the message names the step. A
    ConfigError: the project's one error type for bad user input."""


class Trace:
    """What ``new_state`` got (``rng_state``, ``decks``), the decks dealt since and the actions.

    The base State (``engine.state.RulesState``) keeps it: ``_begin`` starts it with
    :meth:`start` before the first draw, ``_dealt`` appends each deal's deck (in dealing
    order), ``apply`` each applied action, ``clone`` copies it and
    ``_resample_bookkeeping`` replaces it by :meth:`resampled` in ``determinize``.
    """

    __slots__ = ("rng_state", "decks", "dealt", "actions")

    def __init__(self, rng_state: dict[str, Any] | None, decks: tuple[tuple[int, ...], ...],
                 dealt: list[tuple[int, ...]], actions: list[int]):
        self.rng_state = rng_state  # None: not reproducible (a determinized state)
        self.decks = decks
        self.dealt = dealt
        self.actions = actions

    @classmethod
    def start(cls, rng: np.random.Generator, decks: Sequence[Sequence[int]] | None) -> Trace:
        return cls(dict(rng.bit_generator.state), tuple(tuple(d) for d in decks or ()), [], [])

    @classmethod
    def resampled(cls) -> Trace:
        """The trace of a determinized copy: its hidden cards were redealt, so no start and
        action list reproduces it."""
        return cls(None, (), [], [])

    @property
    def replayable(self) -> bool:
        return self.rng_state is not None

    def copy(self) -> Trace:
        # rng_state and decks are never mutated: shared; the lists grow, so they are copied
        return Trace(self.rng_state, self.decks, list(self.dealt), list(self.actions))


# ---------------------------------------------------------------- generator states as JSON
def rng_to_json(state: dict[str, Any]) -> dict[str, Any]:
    """A bit generator's ``state`` dict as plain JSON values (arrays become lists)."""
    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, np.ndarray):
            return value.tolist()
        if isinstance(value, np.integer):
            return int(value)
        return value

    return plain(state)


def rng_from_json(state: Any, where: str = "rng") -> np.random.Generator:
    """A generator in the state ``rng_to_json`` wrote; a ConfigError naming the field for
    anything else (every key, type, length and range is checked before numpy sees it)."""
    name = state.get("bit_generator") if isinstance(state, dict) else None
    if not isinstance(name, str) or name not in BIT_GENERATORS:
        raise ConfigError(f"{where}: not a numpy generator state (bit_generator={shown(name)}); "
                          f"allowed bit generators: {', '.join(BIT_GENERATORS)}")
    bits = getattr(np.random, name)()
    checked = _checked_rng_state(state, bits.state, f"{where}: bad {name} state", ())
    if name == "MT19937" and not (checked["state"]["key"][0] >> 31 or checked["state"]["key"][1:].any()):
        # Mersenne Twister's one degenerate state: it yields zeros forever (bounded draws never end)
        raise ConfigError(f"{where}: bad MT19937 state: state.key is the all-zero state, which no seed produces")
    bits.state = checked
    return np.random.Generator(bits)


def _checked_rng_state(value: Any, model: Any, where: str, path: tuple[str, ...]) -> Any:
    """``value`` shaped like ``model`` (a fresh generator's state), arrays back as arrays."""
    field = ".".join(path) or "state"
    if isinstance(model, dict):
        if not isinstance(value, dict) or set(value) != set(model):
            keys = sorted(value) if isinstance(value, dict) else type(value).__name__
            raise ConfigError(f"{where}: {field} must hold the keys {sorted(model)}, got {keys}")
        return {k: _checked_rng_state(value[k], model[k], where, (*path, k)) for k in model}
    if isinstance(model, np.ndarray):
        limit = int(np.iinfo(model.dtype).max) + 1
        if (not isinstance(value, list) or len(value) != model.size
                or not all(_is_int(v) and 0 <= v < limit for v in value)):
            raise ConfigError(f"{where}: {field} must be a list of {model.size} integers in 0..{limit - 1}")
        return np.array(value, dtype=model.dtype)
    if isinstance(model, str):
        return model  # the bit generator's name, checked above
    bound = _RNG_INT_LIMITS.get(path)
    if bound is None or not _is_int(value) or not 0 <= value < bound:
        raise ConfigError(f"{where}: {field}={shown(value)} must be an integer in 0..{(bound or 1) - 1}")
    return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def same_rng_state(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return rng_to_json(a) == rng_to_json(b)


# ---------------------------------------------------------------- replaying a history
def options_of(game: Any) -> dict[str, Any]:
    """The game's full config as plain JSON values (tuples become lists)."""
    return json.loads(json.dumps(to_dict(game.config)))


def start_state(game: Any, rng_state: dict[str, Any], decks: Sequence[Sequence[int]]) -> Any:
    """``new_state`` from a generator state and stacked decks, as the trace recorded them (the
    game's ``new_state`` checks the decks: ``engine.decks``; nothing is cast here)."""
    return game.new_state(rng_from_json(rng_state), list(decks) or None)


def apply_step(game: Any, state: Any, step: int, action: Any) -> None:
    """``state.apply(action)`` for history step ``step`` (1-based), or a ReplayError naming it."""
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
        raise ReplayError(f"step {step}: action {action!r} is not an action id (an integer)")
    if state.current_player is None:
        raise ReplayError(f"step {step}: action {action} comes after the episode ended")
    try:
        state.apply(int(action))
    except IllegalActionError as exc:
        raise ReplayError(f"step {step}: {exc} (player_{state.current_player} to act)") from None


def serialize_state(game: Any, state: Any) -> str:
    """``state`` of ``game`` as JSON text (format ``parlor-state``): its history."""
    trace = state.trace
    if not trace.replayable:
        raise ValueError("cannot serialize a state made by determinize(): its hidden cards were resampled, "
                         "so no start and action list reproduces it; serialize the real state")
    pending = state.clone().take_rewards()  # peek: the clone's rewards are the state's
    return json.dumps({
        "format": STATE_FORMAT, "version": STATE_VERSION, "game": game.name, "options": options_of(game),
        "rng": rng_to_json(trace.rng_state), "decks": [[int(c) for c in d] for d in trace.decks],
        "actions": [int(a) for a in trace.actions], "rewards_pending": [float(r) for r in pending],
        "rng_now": rng_to_json(state.rng.bit_generator.state),
    })


def deserialize_state(game: Any, text: str) -> Any:
    """The state ``serialize_state`` wrote, replayed on ``game`` (whose options must match)."""
    data = _load_state_text(game, text)
    steps, pending = len(data["actions"]), finite_numbers(data["rewards_pending"], game.num_players, "rewards_pending")
    rng_from_json(data["rng_now"], "rng_now")  # a well-formed generator state, compared after the replay
    # the rewards of the latest positions may still be pending (nobody took them): replay taking
    # the rewards of every position up to the one after which the rest add up to the pending ones
    taken = steps
    if pending.any():
        paid = _replay(game, data, steps)[1]
        total = np.zeros(game.num_players)
        while taken >= 0 and not np.allclose(total, pending, rtol=0, atol=1e-9):
            total = total + paid[taken]
            taken -= 1
        if not np.allclose(total, pending, rtol=0, atol=1e-9):
            raise ReplayError(f"rewards_pending {pending.tolist()} are not the rewards of the latest steps")
    state = _replay(game, data, taken)[0]
    if not np.array_equal(state.clone().take_rewards(), pending):
        raise ReplayError(f"the replayed state has pending rewards {state.clone().take_rewards().tolist()}, "
                          f"the text says {pending.tolist()}")
    if not same_rng_state(state.rng.bit_generator.state, data["rng_now"]):
        raise ReplayError(f"after {steps} steps the replayed generator is not in the state the text "
                          f"records (rng_now): the text does not re-simulate")
    return state


def _replay(game: Any, data: dict[str, Any], take_through: int) -> tuple[Any, list[np.ndarray]]:
    """Replay ``data``'s actions, taking the rewards of positions 0 (the start) to
    ``take_through`` (after that step); returns the state and the rewards taken."""
    state = start_state(game, data["rng"], data["decks"])
    paid = [np.array(state.take_rewards(), dtype=float)] if take_through >= 0 else []
    for i, action in enumerate(data["actions"]):
        apply_step(game, state, i + 1, action)
        if i + 1 <= take_through:
            paid.append(np.array(state.take_rewards(), dtype=float))
    return state, paid


def load_json(text: Any, what: str) -> Any:
    """``json.loads(text)``, refusing with a ConfigError what is no JSON text, nests deeper
    than the parser's recursion limit, or spells a number that is not finite (NaN, Infinity)."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise ConfigError(f"{what} must be JSON text, got {type(text).__name__}")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{what} is not JSON: {exc}") from None
    except (RecursionError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{what} is not JSON this parser reads: {type(exc).__name__}") from None


def _no_constant(name: str) -> Any:
    raise ConfigError(f"the JSON number {name} is not allowed: numbers must be finite")


def finite_numbers(values: Any, count: int, field: str) -> np.ndarray:
    """``values`` as a float array of ``count`` finite numbers (ints or floats, not bools)."""
    if (not isinstance(values, list) or len(values) != count
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)):
        raise ConfigError(f"{field} must be a list of {count} numbers, got {shown(values)}")
    out = np.array([float(v) for v in values]) if all(abs(v) < 1e300 for v in values) else None
    if out is None or not np.isfinite(out).all():
        raise ConfigError(f"{field} must be finite numbers of magnitude below 1e300, got {shown(values)}")
    return out


def _load_state_text(game: Any, text: str) -> dict[str, Any]:
    data = load_json(text, "the state text")
    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
        raise ConfigError(f"not a parlor state text: format must be {STATE_FORMAT!r}")
    if type(data.get("version")) is not int or data["version"] != STATE_VERSION:  # true == 1 is no version
        raise ConfigError(f"state text version {shown(data.get('version'))} is not supported; allowed: {STATE_VERSION}")
    missing = [k for k in ("game", "options", "rng", "decks", "actions", "rewards_pending", "rng_now") if k not in data]
    if missing:
        raise ConfigError(f"state text lacks {', '.join(missing)}")
    named = data["game"]
    if (OLD_GAME_NAMES.get(named, named) if isinstance(named, str) else named) != game.name:
        raise ConfigError(f"the text holds a state of {shown(data['game'])}, not of {game.name!r}")
    check_options(data["options"], game)
    if not isinstance(data["actions"], list) or not isinstance(data["decks"], list):
        raise ConfigError("actions and decks must be lists")
    return data


def check_options(options: Any, game: Any) -> None:
    """Raise ConfigError naming every option where ``options`` differs from ``game``'s config."""
    mine = options_of(game)
    if not isinstance(options, dict):
        raise ConfigError(f"options must be a mapping of option names to values, got {shown(options)}")
    differ = [f"{k}: text {shown(options.get(k))}, game {shown(mine.get(k))}"
              for k in sorted(set(mine) | set(options), key=str) if options.get(k) != mine.get(k)]
    if differ:
        raise ConfigError("the text was written with other game options; " + "; ".join(differ[:8]))


class Serializable:
    """``Game.serialize_state`` / ``deserialize_state`` for a game whose states carry a Trace."""

    def serialize_state(self, state: Any) -> str:
        """The state as JSON text (its start and history, see :mod:`parlor.envs.engine.trace`)."""
        return serialize_state(self, state)

    def deserialize_state(self, text: str) -> Any:
        """The state ``serialize_state`` wrote, replayed; ReplayError if it does not re-simulate."""
        return deserialize_state(self, text)
