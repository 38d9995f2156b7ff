"""Game records: an episode of any env as one line of JSON, re-simulated exactly.

Every State carries its :class:`~parlor.envs.engine.trace.Trace` (the generator state and
stacked decks it started from, the decks dealt, the actions), so a record is made from
the state alone, by any loop that played it: :func:`record_episode` (``play_episode``'s
result, ``parlor eval --record``, ``parlor play --record``) or the AEC adapter's
``env.unwrapped.record()``. :func:`replay` re-simulates a record and checks it step by
step; :func:`positions` hands every position of the replay to a viewer
(``parlor replay``). Framework-free; the registry is imported only to rebuild a game.

Format ``parlor-record`` version 1: JSON lines, one episode per line, one object each:

============  ==================================================================================
key           value
============  ==================================================================================
format        ``"parlor-record"``; ``version``: ``1``; ``parlor``: the version that wrote it
env           the registered env, e.g. ``"ofc_v0"`` (the game's ``Game.name``)
options       the game's full config (every option, defaults included)
seed          the seed of the episode's generator; ``null`` when unknown (an env reset
              without a seed goes on with its generator): ``rng`` is what replays
rng           the generator's state at the start (numpy ``bit_generator.state``)
decks         every deck dealt, in order (card or tile ids in dealing order), to read
stacked       how many of ``decks`` were given to ``new_state`` (stacked decks, e.g.
              evaluation's duplicate deals); the others came from the generator
agents        a label per seat (agent names), or ``null``
tags          free context, e.g. evaluation's ``{"matchup": 0, "deal": 3, "lineup": 1}``
steps         per action: ``{"seat", "action", "name"}`` (``name``: the move with its cards,
              the presenter's ``move_name``) plus ``"rewards"`` (per seat) when the step paid any
rewards       per seat, the episode's total (rewards paid at the deal included)
stats         ``State.stats()`` at the end, one value per seat
terminal      the rules ended the episode; ``truncated``: a cap did; both false: unfinished
============  ==================================================================================

Re-simulation starts ``new_state`` from ``rng`` with the first ``stacked`` decks and
applies every step's action: chance inside ``apply`` (reshuffles, draws after the deal)
uses the episode's generator, so the generator state plus the actions are what
re-simulate; the decks make the record readable. The replay checks each step's seat,
name and rewards, then the totals, statistics, end flags and decks, and raises
:class:`~parlor.envs.engine.trace.ReplayError` naming the first step that differs. The
names are checked because they say what a step did: an action id edited into another
legal one is caught at its step.

A record is input from a file: :meth:`Record.from_json` checks every key's type (no value is
cast: ``seed: "abc"`` or ``true`` is refused), its numbers are finite, its generator state is
one numpy can take, and the replay checks every deck against the game
(``engine/decks.py``). Every refusal is one :class:`~parlor.envs.engine.game.ConfigError`
(``ReplayError`` is one) naming the key, the deck or the step.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from parlor.envs.engine.config import check_seed
from parlor.envs.engine.game import ConfigError, shown
from parlor.envs.engine.presenter import presenter_for
from parlor.envs.engine.trace import (
    ReplayError,
    apply_step,
    check_options,
    finite_numbers,
    load_json,
    options_of,
    rng_from_json,
    rng_to_json,
    same_rng_state,
    start_state,
)

FORMAT = "parlor-record"
VERSION = 1
KEYS = ("format", "version", "parlor", "env", "options", "seed", "rng", "decks", "stacked", "agents", "tags",
        "steps", "rewards", "stats", "terminal", "truncated")


@lru_cache(maxsize=1)
def parlor_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("parlor")
    except PackageNotFoundError:
        return "unknown (not installed)"


@dataclass(frozen=True)
class Step:
    """One action of a record: who acted, the id, the move in words, what it paid (None: nothing)."""

    seat: int
    action: int
    name: str
    rewards: tuple[float, ...] | None = None


@dataclass(frozen=True)
class Record:
    """One episode (see the module docstring for each field)."""

    env: str
    options: dict[str, Any]
    seed: int | None
    rng: dict[str, Any]
    decks: tuple[tuple[int, ...], ...]
    stacked: int
    steps: tuple[Step, ...]
    rewards: tuple[float, ...]
    stats: dict[str, tuple[float, ...]]
    terminal: bool
    truncated: bool
    agents: tuple[str, ...] | None = None
    tags: dict[str, Any] = field(default_factory=dict)
    parlor: str = field(default_factory=parlor_version)

    @property
    def num_players(self) -> int:
        return len(self.rewards)

    def to_json(self) -> str:
        """The record as one line of JSON (no newline)."""
        return json.dumps(self.to_dict(), ensure_ascii=False)

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON object (what :meth:`to_json` writes; e.g. inside another line)."""
        steps = []
        for s in self.steps:
            step: dict[str, Any] = {"seat": s.seat, "action": s.action, "name": s.name}
            if s.rewards is not None:
                step["rewards"] = list(s.rewards)
            steps.append(step)
        return {
            "format": FORMAT, "version": VERSION, "parlor": self.parlor, "env": self.env, "options": self.options,
            "seed": self.seed, "rng": self.rng, "decks": [list(d) for d in self.decks], "stacked": self.stacked,
            "agents": None if self.agents is None else list(self.agents), "tags": self.tags, "steps": steps,
            "rewards": list(self.rewards), "stats": {k: list(v) for k, v in self.stats.items()},
            "terminal": self.terminal, "truncated": self.truncated,
        }

    @classmethod
    def from_json(cls, text: str) -> Record:
        """Parse one line; ConfigError naming the key that is missing or wrong."""
        return cls.from_dict(load_json(text, "the line"))

    @classmethod
    def from_dict(cls, data: Any) -> Record:
        """A record from its JSON object; ConfigError naming the key that is missing or wrong.

        Every key is checked for its type here (no value is cast); the options, the decks'
        cards and the steps are checked against the game when the record is replayed."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ConfigError(f"not a game record: format must be {FORMAT!r}")
        if not _is_int(data.get("version")) or data["version"] != VERSION:
            raise ConfigError(f"record version {shown(data.get('version'))} is not supported; allowed: {VERSION}")
        missing = [k for k in KEYS if k not in data]
        if missing:
            raise ConfigError(f"record lacks {', '.join(missing)}")
        for key, kind in (("env", str), ("parlor", str), ("options", dict), ("rng", dict), ("tags", dict),
                          ("stats", dict), ("decks", list), ("steps", list), ("rewards", list),
                          ("terminal", bool), ("truncated", bool)):
            _expect(data, key, kind)
        rng_from_json(data["rng"], "record key 'rng'")  # a well-formed generator state (numpy checks none)
        seats = len(data["rewards"])
        rewards = finite_numbers(data["rewards"], seats, "record key 'rewards'") if seats else None
        if rewards is None:
            raise ConfigError("record key 'rewards' must list one number per seat, got an empty list")
        agents = data["agents"]
        if agents is not None and (not isinstance(agents, list) or len(agents) != seats
                                   or not all(isinstance(a, str) for a in agents)):
            raise ConfigError(f"record key 'agents' must be null or a list of {seats} labels (strings), "
                              f"one per seat")
        decks = tuple(_deck(i, d) for i, d in enumerate(data["decks"]))
        if not _is_int(data["stacked"]) or not 0 <= data["stacked"] <= len(decks):
            raise ConfigError(f"record key 'stacked' must be an integer 0..{len(decks)}, got {shown(data['stacked'])}")
        stats = {}
        for k, v in data["stats"].items():
            stats[k] = tuple(finite_numbers(v, seats, f"record key 'stats', entry {shown(k)}").tolist())
        return cls(
            env=data["env"], options=data["options"], seed=check_seed(data["seed"], "record key 'seed'", none=True),
            rng=data["rng"], decks=decks, stacked=data["stacked"],
            steps=tuple(_step(i + 1, s, seats) for i, s in enumerate(data["steps"])),
            rewards=tuple(rewards.tolist()), stats=stats, terminal=data["terminal"], truncated=data["truncated"],
            agents=None if agents is None else tuple(agents), tags=data["tags"], parlor=data["parlor"],
        )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _expect(data: dict[str, Any], key: str, kind: type) -> None:
    if not isinstance(data[key], kind):
        raise ConfigError(f"record key {key!r} must be a {kind.__name__}, got {type(data[key]).__name__}")


def _deck(index: int, deck: Any) -> tuple[int, ...]:
    """One of the record's decks: a list of integer ids (which ones the game checks on replay)."""
    if not isinstance(deck, list) or not all(_is_int(c) for c in deck):
        raise ConfigError(f"record key 'decks': deck {index} must be a list of integer card or tile ids")
    return tuple(deck)


def _step(number: int, s: Any, seats: int) -> Step:
    if not isinstance(s, dict) or not {"seat", "action", "name"} <= set(s):
        raise ConfigError(f"step {number} must be an object with seat, action and name (and rewards when it paid)")
    if not _is_int(s["seat"]) or not 0 <= s["seat"] < seats:
        raise ConfigError(f"step {number}: seat must be an integer 0..{seats - 1}, got {shown(s['seat'])}")
    if not _is_int(s["action"]) or not isinstance(s["name"], str):
        raise ConfigError(f"step {number}: action must be an integer and name a string")
    rewards = s.get("rewards")
    paid = None if rewards is None else tuple(finite_numbers(rewards, seats, f"step {number}: rewards").tolist())
    return Step(s["seat"], s["action"], s["name"], paid)


# ---------------------------------------------------------------- making records
def _paid(earned: np.ndarray) -> tuple[float, ...] | None:
    return tuple(float(x) for x in earned) if any(earned) else None


def _stats(state: Any) -> dict[str, tuple[float, ...]]:
    return {k: tuple(float(x) for x in v) for k, v in state.stats().items()}


def _ended(state: Any) -> tuple[bool, bool]:
    terminal = bool(state.is_terminal())
    return terminal, bool(state.is_truncated()) and not terminal


def record_episode(game: Any, state: Any, *, seed: int | None = None,
                   agents: Sequence[str] | None = None, tags: dict[str, Any] | None = None) -> Record:
    """The record of the episode ``state`` of ``game`` has played so far (finished or not); its
    ``env`` is the game's env id, ``game.name``.

    It re-simulates the state's trace once, to name each move with what its seat saw and
    to check that the trace reproduces ``state`` (same generator state, decks, statistics).
    """
    trace = state.trace
    if not trace.replayable:
        raise ValueError("cannot record a state made by determinize(): its hidden cards were resampled")
    if agents is not None and len(agents) != game.num_players:
        raise ConfigError(f"agents must name {game.num_players} seats, got {len(agents)}")
    seed = check_seed(seed, none=True)
    stacked = min(len(trace.decks), len(trace.dealt))
    sim = start_state(game, trace.rng_state, trace.decks[:stacked])
    totals = np.array(sim.take_rewards(), dtype=float)
    steps = []
    presenter = presenter_for(game)
    for i, action in enumerate(trace.actions):
        seat = sim.current_player
        name = presenter.move_name(sim.view(seat), action)
        apply_step(game, sim, i + 1, action)
        earned = sim.take_rewards()
        np.add(totals, earned, out=totals)
        steps.append(Step(int(seat), int(action), name, _paid(earned)))
    if (not same_rng_state(sim.rng.bit_generator.state, state.rng.bit_generator.state)
            or sim.trace.dealt != trace.dealt or _stats(sim) != _stats(state) or _ended(sim) != _ended(state)):
        raise ReplayError("the state's trace does not reproduce it: something other than new_state and apply "
                          "changed the state or drew from its generator")
    terminal, truncated = _ended(sim)
    return Record(
        env=game.name, options=options_of(game), seed=seed, rng=rng_to_json(trace.rng_state),
        decks=tuple(tuple(int(c) for c in d) for d in trace.dealt), stacked=stacked, steps=tuple(steps),
        rewards=tuple(float(x) for x in totals), stats=_stats(sim), terminal=terminal, truncated=truncated,
        agents=None if agents is None else tuple(str(a) for a in agents), tags=dict(tags or {}),
    )


# ---------------------------------------------------------------- replaying records
def game_of(record: Record, game: Any = None) -> Any:
    """The record's game: ``game`` (checked against the record's options) or built from the registry."""
    if game is None:
        from parlor import envs

        envs.load(record.env)  # an unknown env is named as such, before its options are read
        try:
            game = envs.make_game(record.env, **record.options)
        except ConfigError as exc:
            raise ConfigError(f"record key 'options': {exc}") from None
    else:
        check_options(record.options, game)
    check_record_decks(record, game)
    return game


def check_record_decks(record: Record, game: Any) -> None:
    """Every deck of ``record`` is one the game can deal (``Game.parse_deck``: its whole deck,
    each card or tile once), and there are no more than its deals; the stacked ones are
    checked again by ``new_state``, the others against what the replay deals."""
    if game.max_deals is not None and len(record.decks) > game.max_deals:
        raise ConfigError(f"record key 'decks': {len(record.decks)} decks, but an episode of {record.env} "
                          f"has at most {game.max_deals} deal(s)")
    for i, deck in enumerate(record.decks):
        try:
            game.parse_deck(list(deck))
        except ValueError as exc:
            raise ConfigError(f"record key 'decks': deck {i}: {exc}") from None


@dataclass(frozen=True)
class Position:
    """The replay after ``index`` steps (0: the deal). ``state`` is the live replayed state:
    read it (views, renders) before asking for the next position."""

    index: int
    state: Any
    step: Step | None            # the step that led here (None at the deal)
    totals: tuple[float, ...]    # rewards per seat so far


def positions(record: Record, game: Any = None) -> Iterator[Position]:
    """Re-simulate ``record`` position by position, checking each step; after the last
    position the totals, statistics, end flags and decks are checked too."""
    game = game_of(record, game)
    state = start_state(game, record.rng, record.decks[:record.stacked])
    totals = np.array(state.take_rewards(), dtype=float)
    yield Position(0, state, None, tuple(totals.tolist()))
    presenter = presenter_for(game)
    for i, step in enumerate(record.steps, 1):
        seat = state.current_player
        if seat is not None and step.seat != seat:
            raise ReplayError(f"step {i} ({step.name!r}): the record says player_{step.seat} acts, "
                              f"the game says player_{seat}")
        view = state.view(seat) if seat is not None else None
        apply_step(game, state, i, step.action)
        name = presenter.move_name(view, step.action)
        if name != step.name:
            raise ReplayError(f"step {i}: the record names the move {step.name!r}, but action {step.action} is "
                              f"{name!r} here: the record was edited or written by other rules")
        earned = state.take_rewards()
        np.add(totals, earned, out=totals)
        if _paid(earned) != step.rewards:
            raise ReplayError(f"step {i} ({name!r}): the record says rewards {step.rewards}, "
                              f"the replay paid {_paid(earned)}")
        yield Position(i, state, step, tuple(totals.tolist()))
    _check_end(record, state, totals)


def _check_end(record: Record, state: Any, totals: np.ndarray) -> None:
    where = f"after step {len(record.steps)}"
    if tuple(totals.tolist()) != record.rewards:
        raise ReplayError(f"{where}: the record's total rewards {list(record.rewards)} differ from the replay's "
                          f"{totals.tolist()}")
    if _stats(state) != record.stats:
        raise ReplayError(f"{where}: the record's statistics {record.stats} differ from the replay's {_stats(state)}")
    if _ended(state) != (record.terminal, record.truncated):
        raise ReplayError(f"{where}: the record says terminal={record.terminal}, truncated={record.truncated}; "
                          f"the replay has terminal={_ended(state)[0]}, truncated={_ended(state)[1]}")
    if [tuple(d) for d in state.trace.dealt] != list(record.decks):
        raise ReplayError(f"{where}: the record's decks differ from the decks the replay dealt")


def replay(record: Record, game: Any = None) -> Any:
    """Re-simulate ``record`` and check it all (ReplayError naming the first step that
    differs); returns the final state."""
    state = None
    for position in positions(record, game):
        state = position.state
    return state


# ---------------------------------------------------------------- files
def write_records(path: str | Path, records: Iterable[Record]) -> Path:
    """Write ``records`` as JSON lines (UTF-8), one episode per line; returns the path."""
    path = Path(path)
    with open(path, "w", encoding="utf-8") as fh:
        for record in records:
            fh.write(record.to_json() + "\n")
    return path


def read_records(path: str | Path) -> list[Record]:
    """Every record of a JSON-lines file; ConfigError naming the line that is wrong."""
    out = []
    number = 0
    try:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                number += 1  # read after the loop too: the line a decoding error follows
                if line.strip():
                    out.append(Record.from_json(line))
    except UnicodeDecodeError as exc:  # a ValueError too: caught first
        raise ConfigError(f"{path}: not UTF-8 text after line {number} ({exc.reason})") from None
    except ValueError as exc:  # ConfigError included
        raise ConfigError(f"{path}, line {number}: {exc}") from None
    if not out:
        raise ConfigError(f"{path} holds no game records")
    return out
