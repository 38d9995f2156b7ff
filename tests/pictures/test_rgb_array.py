"""``render_mode="rgb_array"``: pixels of the picture of the acting seat's view, one
fixed ``uint8[H, W, 3]`` shape per env configuration, as PettingZoo and gymnasium's
video recorders expect; a game without a picture or a missing extra says what to do."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from parlor.envs.engine.game import ConfigError
from tests.harness.cases import CASES, KUHN_ENV, EnvCase
from tests.pictures.play import random_steps
from tests.tiers import first_preset_of_each_env

PICTURE_CASES = [c for c in CASES if c.env_name != "kuhn_test"]


# make test: each env's first preset (tests/pictures/test_svg.py draws every preset's SVG)
@pytest.mark.parametrize("case", first_preset_of_each_env(PICTURE_CASES))
def test_rgb_array_is_a_fixed_shape_non_blank_image_that_follows_the_game(case: EnvCase) -> None:
    env = case.make_raw(render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0
    frames = []
    steps = list(random_steps(env, seed=5))  # to the end of the episode
    frames.append(env.render())
    env.reset(seed=5)
    frames.append(env.render())
    env.step(int(np.flatnonzero(env.action_mask(env.agent_selection))[0]))
    frames.append(env.render())
    first = frames[1]
    assert isinstance(first, np.ndarray) and first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
    assert first.shape[0] >= 200 and first.shape[1] >= 600
    assert {f.shape for f in frames} == {first.shape}
    for f in frames:
        assert f.std() > 20, "blank picture"
        colours = np.unique(f[..., 0].astype(np.int32) << 16 | f[..., 1].astype(np.int32) << 8 | f[..., 2])
        assert len(colours) > 50, "a picture with text and cards has many colours"
    assert not np.array_equal(frames[1], frames[2]), "a step must change the picture"
    assert not np.array_equal(frames[0], frames[1]), "the last state and the first differ"
    assert len(steps) > 1


def test_same_state_same_pixels() -> None:
    case = next(c for c in PICTURE_CASES if c.env_name == "ofc_v0")
    a, b = case.make_raw(render_mode="rgb_array"), case.make_raw(render_mode="rgb_array")
    a.reset(seed=3)
    b.reset(seed=3)
    assert np.array_equal(a.render(), b.render())


def test_wrapped_env_renders_pixels_too() -> None:
    case = next(c for c in PICTURE_CASES if c.env_name == "tonk_v0")
    env = case.make(render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().dtype == np.uint8


def test_game_without_a_picture_rejects_rgb_array_naming_the_modes() -> None:
    with pytest.raises(ConfigError, match=r"render_mode='rgb_array'.*no render_svg.*ansi, human"):
        KUHN_ENV(render_mode="rgb_array")


def test_missing_pictures_extra_is_one_clear_line(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "resvg_py", None)  # as if not installed
    case = next(c for c in PICTURE_CASES if c.env_name == "buki_v0")
    with pytest.raises(ImportError, match=r"pip install 'parlor\[pictures\]'") as err:
        case.make_raw(render_mode="rgb_array")
    assert "\n" not in str(err.value)
    env = case.make_raw(render_mode="ansi")  # text rendering never needs the extra
    env.reset(seed=0)
    assert isinstance(env.render(), str)
