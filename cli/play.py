"""``parlor play``: play any game in the terminal against agents.

    parlor play ofc_v0 --vs heuristic --seat 0
    parlor play buki_v0 --vs heuristic,search,random --seed 7
    parlor play tonk_v0 --record        # keep the game record (runs/play/<time>-tonk_v0-<random>/records.jsonl)
    parlor play --game-from agents/pretrained/ofc_pineapple.zip --vs ppo:agents/pretrained/ofc_pineapple.zip

The human (:class:`parlor.agents.human.HumanAgent`) sees exactly his seat's view
and the legal actions named by their cards or tiles, types a number, a name or a
unique part of one (a forced move, the only legal one, is played for him and said);
every move is told as he saw it and each finished hand or deal (the presenter's ``describe_move``, ``explain``); ``q`` or the end of the
input abandons the game. ``--game-from POLICY.zip`` plays the game (env and options) a
policy was trained on, read from the file's header. Input and output are streams, so tests drive it with
scripted text.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from parlor.agents.human import Abandon, HumanAgent
from parlor.cli.options import add_game_option_arguments, game_from_policy, game_options
from parlor.envs.engine.game import ConfigError, Game
from parlor.envs.engine.presenter import presenter_for


class Table:
    """What the human at ``seat`` hears as the game goes: every move as he saw it (cards and
    tiles named where he may see them), the rewards it paid and, when a hand or deal has
    finished, why it paid that (the presenter's ``explain``)."""

    def __init__(self, game: Game, human: HumanAgent, seat: int, names: Sequence[str]):
        self.game, self.human, self.seat, self.names = game, human, seat, names
        self.presenter = presenter_for(game)
        self.before: Any = None
        self.explained = ""

    def start(self, state: Any) -> None:
        self.before = state.view(self.seat)

    def step(self, state: Any, player: int, action: int, earned: Any) -> None:
        after = state.view(self.seat)
        self.human.say(f"{self.names[player]} {self.presenter.describe_move(self.before, after, player, action)}")
        self.before = after
        explanation = self.presenter.explain(after)
        if explanation and explanation != self.explained:
            self.human.say(explanation)
            self.explained = explanation
        if any(x != 0 for x in earned):
            n = len(self.names)
            self.human.say("rewards: " + ", ".join(f"{self.names[p]} {earned[p]:+g}" for p in range(n) if earned[p] != 0))


def play(game: Game, opponents: Sequence[Any], labels: Sequence[str], seat: int, seed: int | None,
         stdin: TextIO, stdout: TextIO, record_as: str | None = None) -> int:
    """Play one episode with the human at ``seat``; returns 0 when finished, 1 when abandoned.
    ``record_as`` (the env name): save the finished game's record in a run folder."""
    import numpy as np

    from parlor.agents.episodes import play_episode

    n = game.num_players
    human = HumanAgent(game, stdin, stdout)
    seats: list[Any] = list(opponents)
    seats.insert(seat, human)
    names = list(labels)
    names.insert(seat, "you")
    names = [f"player_{p} ({who})" for p, who in enumerate(names)]
    table = Table(game, human, seat, names)

    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    human.say(f"{game.name}: you are player_{seat}; seed {seed}")
    seeds = [int(s) for s in np.random.SeedSequence(seed).generate_state(n)]
    try:
        result = play_episode(game, seats, seed, agent_seeds=seeds, on_step=table.step, on_start=table.start)
    except Abandon as why:
        human.say(f"\n{why}: game abandoned")
        return 1
    human.say()
    human.say(table.presenter.render(result.state.view(seat)))
    human.say("\nresult" + (" (cut off by the turn cap)" if result.truncated else "") + ":")
    for p in range(n):
        human.say(f"  {names[p]}: {result.rewards[p]:+g}")
    mine, best = result.rewards[seat], max(result.rewards)
    if n > 1:
        winners = [p for p in range(n) if result.rewards[p] == best]
        verdict = "you win" if winners == [seat] else ("you share the best result" if seat in winners else "you lose")
        human.say(verdict)
    else:
        human.say(f"your total: {mine:+g}")
    if record_as is not None:
        agents = list(labels)
        agents.insert(seat, "human")
        human.say(f"game record: {save_record(game, record_as, result.state, seed, agents)}")
    return 0


def save_record(game: Game, env_name: str, state: Any, seed: int, labels: Sequence[str]) -> str:
    """Write the game's record to ``runs/play/<time>-<env>-<random>/records.jsonl``; returns its path."""
    from pathlib import Path

    from parlor.envs.records import record_episode, write_records
    from parlor.training.evaluation.run_folder import RECORDS, default_run_dir

    folder = default_run_dir(env_name, Path("runs", "play"))
    folder.mkdir(parents=True)  # the random suffix makes it new
    record = record_episode(game, state, seed=seed, agents=labels)
    return str(write_records(folder / RECORDS, [record]))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", help="environment name (see `parlor list`); optional with --game-from")
    parser.add_argument("--vs", default="heuristic",
                        help="agents for the other seats, comma-separated (one name fills every seat); default heuristic")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    parser.add_argument("--seed", type=int, help="seed of the deal (default: random)")
    add_game_option_arguments(parser)
    parser.add_argument("--game-from", metavar="POLICY.zip", help="play the game with the options POLICY.zip was "
                        "trained with (read from the file) instead of GAME, --preset and --option")
    parser.add_argument("--record", action="store_true",
                        help="save the game record in runs/play/<time>-<game>-<random>/ (see `parlor replay`)")


def setup(args: argparse.Namespace) -> tuple[str, Any, list[Any], list[str]]:
    """(env name, game, opponent agents, their labels) from the command line; ConfigError on bad input."""
    from parlor import envs
    from parlor.agents.registry import make_agent
    from parlor.envs.engine.config import check_seed

    if args.seed is not None:
        check_seed(args.seed, "--seed")
    game_from = getattr(args, "game_from", None)  # absent from Namespaces that tests build by hand
    if game_from:
        env_name, options = game_from_policy(game_from, args.game, args.preset, args.option)
    elif args.game is None:
        raise ConfigError(f"name the game (GAME or --game-from POLICY.zip); available: {', '.join(envs.ENVS)}")
    else:
        env_name = args.game
        if env_name not in envs.ENVS:
            raise ConfigError(f"unknown environment {env_name!r}; available: {', '.join(envs.ENVS)}")
        options = game_options(env_name, args.preset, args.option)
    game = envs.make_game(env_name, **options)
    n = game.num_players
    if not 0 <= args.seat < n:
        raise ConfigError(f"--seat {args.seat} is out of range; allowed values: 0..{n - 1}")
    specs = [s.strip() for s in args.vs.split(",") if s.strip()]
    if n == 1:
        specs = []
    elif len(specs) == 1:
        specs = specs * (n - 1)
    elif len(specs) != n - 1:
        raise ConfigError(f"--vs names {len(specs)} agents; {env_name} has {n - 1} other seats (give 1 or {n - 1})")
    return env_name, game, [make_agent(s, game) for s in specs], specs


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    try:
        env_name, game, opponents, labels = setup(args)
    except (ConfigError, OSError) as exc:  # a parlor bug (any other error) keeps its traceback
        print(f"parlor play: {exc}", file=sys.stderr)
        return 2
    return play(game, opponents, labels, args.seat, args.seed, stdin, stdout, env_name if args.record else None)
