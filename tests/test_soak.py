"""The soak run (envs/soak.py, ``parlor soak``): clean on every env preset, and each of its
checks catches the fault it is there for (a test game broken on purpose)."""
from __future__ import annotations

import numpy as np
import pytest

from parlor import envs
from parlor.cli import main
from parlor.envs import soak as S
from tests.harness import kuhn
from tests.harness.cases import KUHN_RAW_ENV


# make test: the presets of OFC (the one the output is checked for); every env's (slow) in make test-all
@pytest.mark.parametrize("names", [["ofc_v0"], pytest.param(list(envs.ENVS), id="every_env", marks=pytest.mark.slow)],
                         ids=lambda names: ",".join(names))
def test_every_env_preset_soaks_clean_and_the_cli_prints_the_totals(capsys, names: list[str]) -> None:
    envs_flag = [] if names == list(envs.ENVS) else ["--envs", ",".join(names)]
    assert main(["soak", "--steps", "1", "--check-every", "4", *envs_flag]) == 0   # one episode of each preset
    out = capsys.readouterr().out
    presets = sum(len(envs.load(name).PRESETS) for name in names)
    assert out.count("\n") == presets + 3                      # header, one line per preset, total, summary
    assert f"{presets} episodes, 0 violations in" in out and "ofc_v0[pineapple]" in out


def test_the_cli_refuses_bad_arguments(capsys) -> None:
    assert main(["soak", "--envs", "nope_v0"]) == 2
    assert "unknown env(s) nope_v0; allowed values:" in capsys.readouterr().err
    assert main(["soak", "--steps", "0"]) == 2


def soak_kuhn(steps: int = 300, zero_sum: bool = True, monkeypatch=None):
    if zero_sum:
        monkeypatch.setitem(S.ZERO_SUM, "kuhn_test", "(test game)")
    return S.soak_case("kuhn_test", "default", {}, steps, check_every=1, make_env=KUHN_RAW_ENV)


def test_a_sound_game_has_no_violations(monkeypatch) -> None:
    report = soak_kuhn(monkeypatch=monkeypatch)
    assert report.steps >= 300 and report.episodes > 50 and report.violations == 0


def broken_clone(self):
    new = original_clone(self)
    new.history = self.history   # shared, not copied: a move of the original shows in the copy
    return new


original_clone = kuhn.KuhnState.clone


def not_zero_sum(self):
    out = original_take(self)
    if out.any():
        out = out + np.array([1.0, 0.0])
    self._rewards = np.zeros(2)
    return out


original_take = kuhn.KuhnState.take_rewards


def no_moves_after_a_bet(self):
    return np.array([False, False]) if self.history == [1] else original_mask(self)


original_mask = kuhn.KuhnState.legal_mask


def lost_card(self):
    assert len(self.history) < 2, "a card went missing"


@pytest.mark.parametrize("patch, message", [
    ("clone", "a clone"),
    ("take_rewards", "do not sum to zero"),
    ("legal_mask", "must act but has no legal action"),
    ("check_invariants", "AssertionError: a card went missing"),
])
def test_each_check_reports_the_fault_it_is_for_and_the_run_goes_on(monkeypatch, patch: str, message: str) -> None:
    faults = {"clone": broken_clone, "take_rewards": not_zero_sum, "legal_mask": no_moves_after_a_bet,
              "check_invariants": lost_card}
    monkeypatch.setattr(kuhn.KuhnState, patch, faults[patch])
    report = soak_kuhn(monkeypatch=monkeypatch)
    assert report.violations > 0 and report.episodes > 50       # each failed episode abandoned, the run went on
    assert report.violations <= report.episodes and len(report.messages) == min(report.violations, S.MAX_MESSAGES)
    assert message in report.messages[0] and report.messages[0].startswith("kuhn_test[default] seed ")


def test_zero_sum_is_only_checked_where_the_rules_say_so(monkeypatch) -> None:
    monkeypatch.setattr(kuhn.KuhnState, "take_rewards", not_zero_sum)
    assert soak_kuhn(zero_sum=False).violations == 0
    assert "buffalo_bill_v0" not in S.ZERO_SUM and set(S.ZERO_SUM) < set(envs.ENVS)
