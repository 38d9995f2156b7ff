"""Cards, tiles, seeds and generator states handed to a game from outside (issue 34.3).

Every game is built from given decks through ``new_state``, which all of reset options,
records, replays, saved states (``deserialize_state``) and ``--resume`` (records again) reach.
A hand-made impossible deck (52 A♠ for Tonk), a short one, ids outside the deck, ids of
the wrong type and more decks than deals are refused there with one ConfigError naming the
deck, for every env, in each of those entries. Seeds and generator states from a file are
held to what numpy can take without crashing or hanging.
"""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from parlor import envs
from parlor.envs.engine.cards import parse_card
from parlor.envs.engine.game import ConfigError
from parlor.envs.engine.trace import ReplayError, rng_to_json
from parlor.envs.records import Record, read_records, record_episode, replay

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
ENVS = envs.ENVS
ACE_OF_SPADES = parse_card("As")


def game_and_deck(name: str) -> tuple[object, list[int]]:
    game = envs.make_game(name)
    return game, list(game.sample_deck(np.random.default_rng(1)))


def bad_decks(name: str) -> dict[str, tuple[list, str]]:
    """Impossible stacked decks of env ``name`` -> (deck, what the error says)."""
    game, deck = game_and_deck(name)
    same = ACE_OF_SPADES if name not in ("buki_v0", "pulle_v0", "austrian_dominoes_v0") else 35
    return {
        "one card throughout": ([same] * len(deck), r"appears \d+ times; this game's deck holds it once"),
        "one card twice": ([*deck[:-1], deck[0]], "appears twice"),
        "short": (deck[:-1], f"has {len(deck) - 1} (cards|tiles)"),
        "id past the deck": ([*deck[:-1], 10**6], "id 1000000 is not in this game's deck"),
        "negative id": ([-1, *deck[1:]], "id -1 is not in this game's deck"),
        "float id": ([float(deck[0]), *deck[1:]], r"\[0\]=.* is not an id"),
        "bool id": ([True, *deck[1:]], r"\[0\]=True is not an id"),
        "string id": (["As", *deck[1:]], r"\[0\]='As' is not an id"),
    }


CASES = [(name, kind) for name in ENVS for kind in bad_decks(name)]
IDS = [f"{name}-{kind}" for name, kind in CASES]


@pytest.mark.parametrize("name, kind", CASES, ids=IDS)
def test_new_state_refuses_an_impossible_deck(name: str, kind: str) -> None:
    game, _ = game_and_deck(name)
    deck, says = bad_decks(name)[kind]
    with pytest.raises(ConfigError, match=r"decks\[0\]") as error:
        game.new_state(np.random.default_rng(0), [deck])
    assert error.match(says)


@pytest.mark.parametrize("name, kind", CASES, ids=IDS)
def test_reset_options_refuse_an_impossible_deck(name: str, kind: str) -> None:
    env = envs.make(name)
    deck, _ = bad_decks(name)[kind]
    with pytest.raises(ConfigError, match=r"options\['deck'\]"):
        env.reset(seed=0, options={"deck": deck})
    with pytest.raises(ConfigError, match=r"options\['decks'\]\[0\]"):
        env.reset(seed=0, options={"decks": [deck]})


@pytest.mark.parametrize("name, kind", CASES, ids=IDS)
def test_deserialize_state_refuses_an_impossible_deck(name: str, kind: str) -> None:
    game, deck = game_and_deck(name)
    text = json.loads(game.serialize_state(game.new_state(np.random.default_rng(0), [deck])))
    text["decks"] = [bad_decks(name)[kind][0]]
    with pytest.raises(ConfigError, match=r"decks\[0\]"):
        game.deserialize_state(json.dumps(text))


def stacked_record(name: str, steps: int = 6) -> dict:
    """A record (as its JSON object) of a few random steps from a stacked first deck."""
    game, deck = game_and_deck(name)
    state = game.new_state(np.random.default_rng(0), [deck])
    rng = np.random.default_rng(0)
    for _ in range(steps):
        if state.current_player is None:
            break
        state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
    record = record_episode(game, state)
    assert record.stacked == 1
    return json.loads(record.to_json())


@pytest.mark.parametrize("name, kind", CASES, ids=IDS)
def test_a_record_with_an_impossible_deck_is_refused(name: str, kind: str, tmp_path) -> None:
    data = stacked_record(name)
    replay(Record.from_dict(data))  # the record as written replays
    deck = bad_decks(name)[kind][0]
    for stacked in (1, 0):  # a stacked deck, and a dealt one only read (checked all the same)
        data = {**data, "decks": [deck, *data["decks"][1:]], "stacked": stacked}
        path = tmp_path / "bad.jsonl"
        path.write_text(json.dumps(data) + "\n", encoding="utf-8")
        with pytest.raises(ConfigError, match=r"decks") as error:
            replay(read_records(path)[0])
        assert "\n" not in str(error.value)


def test_tonk_dealt_from_52_aces_of_spades_is_refused_everywhere() -> None:
    """The issue's case in every entry: reset options, new_state, a record, a saved state."""
    aces = ["As"] * 52
    env = envs.make("tonk_v0")
    with pytest.raises(ConfigError, match=r"options\['deck'\]: stacked deck: A♠ appears 52 times"):
        env.reset(seed=0, options={"deck": " ".join(aces)})
    game = envs.make_game("tonk_v0")
    with pytest.raises(ConfigError, match=r"decks\[0\]: A♠ appears 52 times"):
        game.new_state(np.random.default_rng(0), [[ACE_OF_SPADES] * 52])
    data = stacked_record("tonk_v0")
    data["decks"][0] = [ACE_OF_SPADES] * 52
    with pytest.raises(ConfigError, match="appears 52 times"):
        replay(Record.from_dict(data))
    text = json.loads(game.serialize_state(game.new_state(np.random.default_rng(0))))
    text["decks"] = [[ACE_OF_SPADES] * 52]
    with pytest.raises(ConfigError, match="appears 52 times"):
        game.deserialize_state(json.dumps(text))


@pytest.mark.parametrize("name, foreign", [("tonk_v0", "Xx"), ("ofc_v0", "As*"), ("buffalo_bill_v0", "Xx"),
                                           ("washizu_poker_v0", "As*")])
def test_a_card_of_another_deck_is_refused(name: str, foreign: str) -> None:
    """Jokers and second-deck copies belong to the decks that have them only."""
    game, deck = game_and_deck(name)
    with pytest.raises(ConfigError, match="is not in this game's deck"):
        game.new_state(np.random.default_rng(0), [[parse_card(foreign), *deck[1:]]])


def test_jokers_and_the_extra_deck_are_part_of_the_washizu_deck() -> None:
    game = envs.make_game("washizu_poker_v0", washizu="extra_deck", jokers=2)
    deck = list(game.sample_deck(np.random.default_rng(0)))
    assert len(deck) == 106 and parse_card("As*") in deck and parse_card("Xy") in deck
    game.new_state(np.random.default_rng(0), [deck])  # accepted
    third_joker = [*deck[:-1], parse_card("Xz")] if deck[-1] != parse_card("Xz") else deck
    with pytest.raises(ConfigError, match="Xz"):
        game.new_state(np.random.default_rng(0), [third_joker])


@pytest.mark.parametrize("name", [n for n in ENVS if envs.make_game(n).max_deals is not None])
def test_a_record_with_more_decks_than_deals_is_refused(name: str) -> None:
    """new_state takes decks past the last deal (never dealt); a record lists the decks dealt."""
    game, deck = game_and_deck(name)
    data = stacked_record(name)
    data["decks"] = [deck] * (game.max_deals + 1)
    with pytest.raises(ConfigError, match=f"at most {game.max_deals} deal"):
        replay(Record.from_dict(data))


# ---------------------------------------------------------------- seeds
@pytest.mark.parametrize("seed", [True, False, -1, 2**64, 1.5, 3.0, "7", "abc", [1]])
def test_reset_refuses_what_is_not_a_seed(seed) -> None:
    env = envs.make("tonk_v0")
    with pytest.raises(ConfigError, match=r"seed=.* is not a seed; allowed values: an integer 0\.\.2\*\*64-1"):
        env.reset(seed=seed)


def test_reset_takes_numpy_and_the_largest_seeds() -> None:
    env = envs.make("tonk_v0")
    env.reset(seed=np.int64(5))
    first = env.unwrapped.observe("player_0")["observation"]
    env.reset(seed=5)
    np.testing.assert_array_equal(env.unwrapped.observe("player_0")["observation"], first)
    env.reset(seed=2**64 - 1)
    assert env.unwrapped.record().seed == 2**64 - 1


@pytest.mark.parametrize("seed", ["abc", True, -5, 1.5, 2**64])
def test_a_record_with_a_bad_seed_is_refused(seed) -> None:
    data = stacked_record("tonk_v0")
    with pytest.raises(ConfigError, match="record key 'seed'"):
        Record.from_dict({**data, "seed": seed})


# ---------------------------------------------------------------- generator states
def _generator_states() -> dict[str, tuple[dict, str]]:
    pcg = rng_to_json(np.random.default_rng(0).bit_generator.state)
    mt = rng_to_json(np.random.Generator(np.random.MT19937(0)).bit_generator.state)
    philox = rng_to_json(np.random.Generator(np.random.Philox(0)).bit_generator.state)
    cases = {}

    def case(label: str, base: dict, edit, says: str) -> None:
        state = copy.deepcopy(base)
        edit(state)
        cases[label] = (state, says)

    case("negative PCG64 state", pcg, lambda s: s["state"].update(state=-5), "state.state=-5")
    case("PCG64 state past 128 bits", pcg, lambda s: s["state"].update(inc=2**200), "state.inc=")
    case("PCG64 state a float", pcg, lambda s: s["state"].update(state=1.5), "state.state=1.5")
    case("PCG64 state a bool", pcg, lambda s: s["state"].update(state=True), "state.state=True")
    case("extra key", pcg, lambda s: s.update(extra=1), "must hold the keys")
    case("negative uinteger", pcg, lambda s: s.update(uinteger=-1), "uinteger=-1")
    case("MT19937 position past its key", mt, lambda s: s["state"].update(pos=10**9), "state.pos=1000000000")
    case("MT19937 short key", mt, lambda s: s["state"].update(key=[1] * 10), "list of 624 integers")
    case("MT19937 negative key", mt, lambda s: s["state"].update(key=[-1] * 624), "list of 624 integers")
    case("MT19937 all-zero key", mt, lambda s: s["state"].update(key=[0] * 624), "all-zero state")
    case("Philox buffer position past its buffer", philox, lambda s: s.update(buffer_pos=10**9), "buffer_pos=")
    case("unknown bit generator", pcg, lambda s: s.update(bit_generator="os.system"), "allowed bit generators")
    return cases


GENERATOR_STATES = _generator_states()


@pytest.mark.parametrize("label", GENERATOR_STATES)
def test_a_record_or_state_with_a_bad_generator_state_is_refused(label: str) -> None:
    """numpy's setters check none of these: an MT19937 position past its key crashed the
    interpreter, an all-zero key hung the first draw."""
    bad, says = GENERATOR_STATES[label]
    data = stacked_record("tonk_v0")
    with pytest.raises(ConfigError, match="record key 'rng'") as error:
        Record.from_dict({**data, "rng": bad})
    assert error.match(says)
    game = envs.make_game("tonk_v0")
    text = json.loads(game.serialize_state(game.new_state(np.random.default_rng(0))))
    for key in ("rng", "rng_now"):
        with pytest.raises(ConfigError, match=f"{key}: "):
            game.deserialize_state(json.dumps({**text, key: bad}))


# ---------------------------------------------------------------- records and states of the wrong shape
def _record_edits() -> dict[str, tuple[object, str]]:
    def set_step(key, value):
        return lambda d: d["steps"][0].update({key: value})

    return {
        "step seat a string": (set_step("seat", "0"), "step 1: seat must be an integer"),
        "step seat out of range": (set_step("seat", 9), "step 1: seat must be an integer"),
        "step action a float": (set_step("action", 1.0), "step 1: action must be an integer"),
        "step name a number": (set_step("name", 3), "name a string"),
        "step rewards of strings": (set_step("rewards", ["a", "b", "c"]), "step 1: rewards must be a list"),
        "step not an object": (lambda d: d["steps"].__setitem__(0, [1]), "step 1 must be an object"),
        "rewards of the wrong length": (lambda d: d.update(rewards=[]), "record key 'rewards'"),
        "rewards a string": (lambda d: d.update(rewards="1"), "record key 'rewards' must be a list"),
        "rewards past the float range": (lambda d: d.update(rewards=[10**400, 0, 0]), "finite"),
        "agents not strings": (lambda d: d.update(agents=[1, 2, 3]), "record key 'agents'"),
        "stacked a bool": (lambda d: d.update(stacked=True), "record key 'stacked'"),
        "stacked past the decks": (lambda d: d.update(stacked=5), "record key 'stacked'"),
        "a deck not a list": (lambda d: d.update(decks=[5]), "record key 'decks': deck 0"),
        "a deck of strings": (lambda d: d.update(decks=[["As"] * 52]), "record key 'decks': deck 0"),
        "stats of the wrong length": (lambda d: d.update(stats={"won": [1]}), "record key 'stats', entry 'won'"),
        "version a bool": (lambda d: d.update(version=True), "record version True"),
        "unknown env": (lambda d: d.update(env="os.path:join"), "unknown environment 'os.path:join'"),
        "options of another game": (lambda d: d["options"].update(stake="x"), "record key 'options': stake="),
    }


RECORD_EDITS = _record_edits()


@pytest.mark.parametrize("label", RECORD_EDITS)
def test_a_record_of_the_wrong_shape_is_one_config_error(label: str) -> None:
    edit, says = RECORD_EDITS[label]
    data = stacked_record("tonk_v0")
    edit(data)
    with pytest.raises(ConfigError) as error:
        replay(Record.from_json(json.dumps(data)))
    assert error.match(says) and "\n" not in str(error.value)


@pytest.mark.parametrize("text", [
    "[" * 100_000 + "]" * 100_000,                                         # deeper than the parser goes
    '{"format": "parlor-record", "tags": ' + "[" * 100_000 + "]" * 100_000 + "}",
    '{"format": "parlor-record", "version": 1, "rewards": [NaN]}',          # not a finite number
    '{"format": "parlor-record", "version": 1, "rewards": [Infinity]}',
    "not json",
])
def test_a_line_that_is_no_record_is_one_config_error(text: str) -> None:
    with pytest.raises(ConfigError) as error:
        Record.from_json(text)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("edit, says", [
    (lambda t: t.update(rewards_pending=["x", 0, 0]), "rewards_pending must be a list of 3 numbers"),
    (lambda t: t.update(rewards_pending=[0, 0]), "rewards_pending must be a list of 3 numbers"),
    (lambda t: t.update(actions=[1.5]), "step 1: action 1.5 is not an action id"),
    (lambda t: t.update(actions=[10**30]), "step 1: illegal action"),
    (lambda t: t.update(decks={"0": []}), "actions and decks must be lists"),
    (lambda t: t.update(options=[1]), "options must be a mapping"),
    (lambda t: t.update(version=True), "version True is not supported"),
])
def test_a_state_text_of_the_wrong_shape_is_one_config_error(edit, says: str) -> None:
    game = envs.make_game("tonk_v0")
    text = json.loads(game.serialize_state(game.new_state(np.random.default_rng(0))))
    edit(text)
    with pytest.raises(ConfigError, match=says):
        game.deserialize_state(json.dumps(text))
    with pytest.raises(ConfigError, match="not JSON"):
        game.deserialize_state("[" * 100_000)


def test_replay_error_is_the_projects_config_error() -> None:
    assert issubclass(ReplayError, ConfigError) and issubclass(ConfigError, ValueError)


# ---------------------------------------------------------------- type swaps anywhere
SWAPS = [None, True, False, -1, 0, 1, 2**70, -(2**70), 1.5, float("nan"), "x", "", [], {}, [1], {"a": 1}, [[[]]]]


def _paths(value, prefix=()):
    if prefix:
        yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value[:60]):
            yield from _paths(item, (*prefix, i))


@pytest.mark.parametrize("name", ENVS)
def test_a_record_or_state_with_any_value_swapped_is_accepted_or_one_config_error(name: str) -> None:
    """Seeded random edits (one or two values anywhere swapped for another type or size):
    each edited record or state text replays or is refused with one ConfigError line."""
    game = envs.make_game(name)
    texts = {"record": stacked_record(name, steps=12)}
    texts["state"] = json.loads(game.serialize_state(replay(Record.from_dict(texts["record"]))))
    rng = np.random.default_rng(34)
    for kind, base in texts.items():
        paths = list(_paths(base))
        for _ in range(40):
            data = json.loads(json.dumps(base))
            for _ in range(int(rng.integers(1, 3))):
                *parents, last = paths[int(rng.integers(len(paths)))]
                try:
                    target = data
                    for key in parents:
                        target = target[key]
                    target[last] = SWAPS[int(rng.integers(len(SWAPS)))]
                except (KeyError, IndexError, TypeError):
                    pass  # an earlier swap replaced a parent of this path
            line = json.dumps(data)
            try:
                replay(Record.from_json(line)) if kind == "record" else game.deserialize_state(line)
            except ConfigError as error:
                assert "\n" not in str(error)
