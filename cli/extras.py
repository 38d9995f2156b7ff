"""Optional extras of the command line: which ``pip install 'parlor[...]'`` brings a module.

Commands check what they will need before they make any folder (:func:`require`);
:func:`parlor.cli.main` turns any other import of a missing extra into one
line naming the extra (:func:`missing_extra`) instead of a traceback.
"""
from __future__ import annotations

import importlib.util
from collections.abc import Sequence

# module (import name) -> the extra of pyproject.toml that installs it
EXTRA_OF = {
    "torch": "train", "stable_baselines3": "train", "sb3_contrib": "train", "tensorboard": "train",
    "matplotlib": "train", "rich": "train", "tqdm": "train",
    "resvg_py": "pictures", "PIL": "pictures",
    "rlcard": "dev",
    # the scale extra is ray[rllib]: ray core (parlor eval --ray) and the modules its rllib extra adds (training)
    "ray": "scale", "pandas": "scale", "pyarrow": "scale", "tree": "scale", "lz4": "scale", "scipy": "scale",
}
# what `parlor eval --ray` needs; what `backend: rllib` needs besides the train extra
RAY_MODULES = ("ray",)
RLLIB_MODULES = ("ray", "pandas", "pyarrow", "tree", "lz4", "scipy")
PIP_NAME = {"stable_baselines3": "stable-baselines3", "sb3_contrib": "sb3-contrib", "resvg_py": "resvg-py", "PIL": "pillow",
            "tree": "dm-tree"}


class MissingExtraError(ImportError):
    """A module of an optional extra is not installed; the message names the extra to install."""


def _names(modules: Sequence[str]) -> str:
    return ", ".join(PIP_NAME.get(m, m) for m in modules)


def _pip(modules: Sequence[str]) -> str:
    extras = sorted({EXTRA_OF.get(m, "train") for m in modules})
    return " and ".join(f"pip install 'parlor[{extra}]'" for extra in extras)


def require(modules: Sequence[str], purpose: str, alternative: str = "") -> None:
    """Raise :class:`MissingExtraError` (one line: what needs which modules, what to install,
    ``alternative``) unless every module in ``modules`` is installed; nothing is imported."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        raise MissingExtraError(f"{purpose} needs {_names(missing)}, which {verb} not installed: {_pip(missing)}"
                                + (f" ({alternative})" if alternative else ""))


def missing_extra(err: ImportError) -> str | None:
    """The one-line message for an ImportError of an optional extra; None for any other."""
    if isinstance(err, MissingExtraError) or "pip install 'parlor[" in str(err):
        return str(err)  # already names the extra (e.g. the pictures check of parlor.envs.engine.svg)
    root = (err.name or "").split(".")[0]
    return f"{_names([root])} is not installed: {_pip([root])}" if root in EXTRA_OF else None
