"""``parlor play`` driven by scripted input: names or numbers, bad input, end of input."""
from __future__ import annotations

import argparse
import io
import re

import pytest

from parlor import envs
from parlor.agents.base import RandomAgent
from parlor.cli import play as play_mod
from parlor.cli.play import play
from tests.harness import kuhn

GAME = kuhn.make_game()


def kuhn_play(script: str, seed: int = 0):
    out = io.StringIO()
    code = play(GAME, [RandomAgent(GAME)], ["random"], seat=0, seed=seed, stdin=io.StringIO(script), stdout=out)
    return code, out.getvalue()


def test_bad_input_gets_a_message_and_a_new_prompt() -> None:
    code, text = kuhn_play("\nfold\n7\n-3\n?\nbet\npass\n")
    assert code == 0
    assert "please type an action number or name" in text
    assert "'fold' is not a legal action now" in text
    assert "there is no action 7" in text and "there is no action -3" in text
    assert text.count("legal actions:") >= 2  # '?' lists them again
    assert "player_0 (you) bets" in text
    assert "result:" in text and re.search(r"you (win|lose|share)", text)


def test_end_of_input_and_quit_abandon_cleanly() -> None:
    code, text = kuhn_play("")
    assert code == 1 and "input ended: game abandoned" in text
    code, text = kuhn_play("q\n")
    assert code == 1 and "you quit" in text


class FirstLegal(io.StringIO):
    """Answers every prompt with junk first, then the first listed action number."""

    def __init__(self, out: io.StringIO):
        super().__init__()
        self.out = out
        self.junk_next = True

    def readline(self, *args) -> str:
        if self.junk_next:
            self.junk_next = False
            return "definitely not an action\n"
        self.junk_next = True
        listing = self.out.getvalue().rsplit("legal actions:", 1)[1]
        return re.search(r"^\s+(\d+):", listing, re.M).group(1) + "\n"


@pytest.mark.parametrize("env_name", ["tonk_v0", "ofc_v0", "austrian_dominoes_v0"])
def test_a_real_game_plays_to_the_end_through_the_cli(env_name: str) -> None:
    if env_name not in envs.ENVS:
        pytest.skip(f"{env_name} is not registered yet")
    out = io.StringIO()
    args = argparse.Namespace(game=env_name, vs="random", seat=1, seed=3, preset=None, option=[], record=False)
    assert play_mod.run(args, stdin=FirstLegal(out), stdout=out) == 0
    text = out.getvalue()
    assert "you are player_1" in text and "is not a legal action now" in text
    assert "result" in text and "player_1 (you)" in text


def test_bad_command_line_is_refused(capsys) -> None:
    args = argparse.Namespace(game="no_such_game_v0", vs="random", seat=0, seed=None, preset=None, option=[], record=False)
    assert play_mod.run(args, stdin=io.StringIO(), stdout=io.StringIO()) == 2
    assert "unknown environment" in capsys.readouterr().err
    if "tonk_v0" in envs.ENVS:
        args = argparse.Namespace(game="tonk_v0", vs="random", seat=9, seed=None, preset=None, option=[], record=False)
        assert play_mod.run(args, stdin=io.StringIO(), stdout=io.StringIO()) == 2
        assert "--seat 9 is out of range" in capsys.readouterr().err


def play_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    play_mod.add_arguments(parser)
    return parser


def test_game_from_plays_the_game_a_policy_was_trained_on(tmp_path, capsys) -> None:
    from tests.agents.policy_files import tiny_policy

    game = envs.make_game("tonk_v0", num_players=3)
    policy = str(tiny_policy(tmp_path / "tonk3.zip", game))
    out = io.StringIO()
    args = play_parser().parse_args(["--game-from", policy, "--vs", f"ppo:{policy}", "--seat", "2", "--seed", "3"])
    assert play_mod.run(args, stdin=FirstLegal(out), stdout=out) == 0
    text = out.getvalue()
    assert "you are player_2" in text and "player_1 (ppo:" in text and "result" in text  # 3 players: the policy's
    for argv, problem in ((["--game-from", policy, "--option", "num_players=2"], "sets every game option"),
                          (["ofc_v0", "--game-from", policy], "GAME 'ofc_v0' contradicts"),
                          ([], "name the game")):
        assert play_mod.run(play_parser().parse_args(argv), stdin=io.StringIO(), stdout=io.StringIO()) == 2
        assert problem in capsys.readouterr().err
