"""Each env entry module's docstring (its spec) shows the import a user types: through the
``parlor`` namespace (``from parlor.envs import ofc_v0``), never the repository's top-level
folder (``from envs import ...``, which only works inside a checkout)."""
from __future__ import annotations

import re

import pytest

from parlor import envs

IMPORTS = re.compile(r"\bfrom\s+([\w.]+)\s+import\s+(\w+)|^\s*>>> import (\w+)", re.MULTILINE)


@pytest.mark.parametrize("name", envs.ENVS)
def test_the_entry_docstring_imports_through_the_parlor_namespace(name: str) -> None:
    doc = envs.load(name).__doc__ or ""
    found = IMPORTS.findall(doc)
    assert ("parlor.envs", name, "") in found, f"{name}: its docstring should show `from parlor.envs import {name}`"
    for package, _, bare in found:
        assert not bare and package.split(".")[0] == "parlor", f"{name}: an import outside the parlor namespace"


def test_the_package_docstring_imports_through_the_parlor_namespace() -> None:
    assert ">>> from parlor import envs" in envs.__doc__ and ">>> import envs" not in envs.__doc__
