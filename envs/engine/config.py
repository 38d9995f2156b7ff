"""Option validation and strict loading into frozen config dataclasses.

Every game's config is a ``@dataclass(frozen=True, slots=True, kw_only=True)``
that validates itself in ``__post_init__`` with the checks below; ``build``
turns a plain mapping (keyword options or YAML) into one, rejecting unknown
keys. Errors name the field and the allowed values.

It also owns the limits every game's numeric options share (docs/rules.md §0.4), chosen so
that every reward an accepted option set can pay is a finite float, and what a seed is.

YAML is read by :func:`parse_yaml` only: safe tags, no anchors or aliases (a few hundred bytes
of aliases expand to gigabytes), bounded size, nesting and number of values. Errors show a
value with :func:`~parlor.envs.engine.game.shown` (a bounded repr).
"""
from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any, TypeVar

from parlor.envs.engine.game import ConfigError, shown

C = TypeVar("C")

# Limits of numeric options (docs/rules.md §0.4). Rewards are sums of stakes, bets and chip
# counts over an episode's deals, so with these caps the largest possible reward stays far
# inside a float's range (and exact in it): no option set can pay an infinite reward.
MAX_DEALS = 100_000        # hands / deals / games of one episode
MAX_STAKE = 1_000_000      # a stake, bet or payment per deal
MAX_CHIPS = 1_000_000_000  # a player's starting chips
MAX_SEED = 2**64 - 1       # seeds are integers 0..MAX_SEED

MAX_YAML_BYTES = 1 << 16  # a config, a run's config.yaml: a few KB; refuse more before parsing it
MAX_YAML_DEPTH = 32       # nested mappings and lists
MAX_YAML_NODES = 5_000    # values (scalars, lists, mappings): building each costs Python time


def check_choice(field: str, value: Any, allowed: Collection[Any]) -> None:
    if value not in allowed:
        raise ConfigError(f"{field}={shown(value)} is not allowed; allowed values: {', '.join(map(repr, allowed))}")


def check_int(field: str, value: Any, lo: int | None = None, hi: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{field}={shown(value)} must be an integer{_range_text(lo, hi)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ConfigError(f"{field}={shown(value)} is out of range; allowed values: {_range_text(lo, hi).strip()}")


def check_number(field: str, value: Any, lo: float | None = None, hi: float | None = None) -> None:
    """A real number (int or float, not a bool) in ``lo..hi``; NaN and infinities are refused
    (every comparison with NaN is false, so a range check alone would let it through)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{field}={shown(value)} must be a number{_range_text(lo, hi)}")
    if not math.isfinite(value):
        raise ConfigError(f"{field}={shown(value)} must be a finite number{_range_text(lo, hi)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ConfigError(f"{field}={shown(value)} is out of range; allowed values: {_range_text(lo, hi).strip()}")


def check_seed(value: Any, field: str = "seed", *, none: bool = False) -> int | None:
    """A seed as a plain int: an integer 0..MAX_SEED (numpy integers too); ``None`` where
    ``none`` allows it. A bool is not a seed (``seed=True`` would silently be seed 1), nor
    is a float or a string."""
    if value is None and none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= int(value) <= MAX_SEED:
        also = " (or null: no seed)" if none else ""
        raise ConfigError(f"{field}={shown(value)} is not a seed; allowed values: an integer 0..2**64-1{also}")
    return int(value)


def check_bool(field: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ConfigError(f"{field}={shown(value)} must be true or false")


def _range_text(lo: Any, hi: Any) -> str:
    if lo is not None and hi is not None:
        return f" {lo}..{hi}"
    if lo is not None:
        return f" >= {lo}"
    if hi is not None:
        return f" <= {hi}"
    return ""


def field_names(cls: type) -> list[str]:
    return [f.name for f in dataclasses.fields(cls)]


def build(cls: type[C], options: Mapping[str, Any] | None = None) -> C:
    """Build config ``cls`` from ``options``; unknown keys raise naming the allowed ones."""
    options = dict(options or {})
    allowed = field_names(cls)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ConfigError(
            f"unknown option(s) {', '.join(map(repr, unknown))} for {cls.__name__}; "
            f"allowed options: {', '.join(allowed)}"
        )
    return cls(**options)


def load_yaml(path: str | Path) -> dict[str, Any]:
    """Read a YAML mapping from the file ``path`` with :func:`parse_yaml`; a ConfigError names
    the file for anything that is not such a file (missing, a folder, too big, bad YAML)."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: " + ("is a folder; give a YAML file" if path.is_dir() else "no such file"))
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_YAML_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_YAML_BYTES:
        raise ConfigError(f"{path}: more than {MAX_YAML_BYTES:,} bytes; a config is a small YAML file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    data = parse_yaml(text, str(path))
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: top level must be a mapping of option names to values")
    return data


def parse_yaml(text: str, where: str) -> Any:
    """The value of the YAML ``text`` with the safe loader (plain types only: a ``!!python``
    tag is refused), refusing anchors and aliases and nesting deeper than ``MAX_YAML_DEPTH``;
    any problem is one ConfigError line naming ``where`` and the line and column."""
    import yaml  # local: pyyaml is a runtime dependency, but the engine stays importable without it

    if len(text) > MAX_YAML_BYTES:
        raise ConfigError(f"{where}: more than {MAX_YAML_BYTES:,} characters of YAML")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: the pure Python one takes a minute on 200 KB
    try:
        _check_events(yaml, yaml.parse(text, Loader=loader))  # before anything is built from them
        return yaml.load(text, Loader=loader)
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise ConfigError(f"{where}: a value is out of range ({str(exc)[:120]})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = str(getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc).split("\n")[0])
        if isinstance(exc, yaml.constructor.ConstructorError) and "for the tag" in problem:
            problem = f"the tag {problem.rpartition(' ')[2][:80]} is not allowed (plain YAML values only)"
        raise ConfigError(f"{where}: not valid YAML{at}: {problem[:160]}") from None


def _check_events(yaml: Any, events: Any) -> None:
    """Refuse an anchor or alias (a few hundred bytes of them expand to gigabytes), nesting
    deeper than ``MAX_YAML_DEPTH`` and more than ``MAX_YAML_NODES`` values, from the parser's events."""
    depth = nodes = 0
    for event in events:
        if isinstance(event, (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            nodes += 1
            if nodes > MAX_YAML_NODES:
                raise yaml.composer.ComposerError(None, None, f"more than {MAX_YAML_NODES:,} values", event.start_mark)
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise yaml.composer.ComposerError(None, None, "anchors and aliases (& and *) are not allowed",
                                              event.start_mark)
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                raise yaml.composer.ComposerError(None, None, f"nested more than {MAX_YAML_DEPTH} levels deep",
                                                  event.start_mark)
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1


def to_dict(config: Any) -> dict[str, Any]:
    return {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
