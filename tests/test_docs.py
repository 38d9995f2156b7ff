"""The documentation stays true to the tree: every rulebook section cited in code, tests
and docs exists in docs/rules.md, every rules test names its subsection, the README stays
short, every `parlor ...` command in README.md and docs/ parses with the real command
line, and every relative link and file a command names exists."""
from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULEBOOK = ROOT / "docs" / "rules.md"
README = ROOT / "README.md"
README_MAX_LINES = 160
CODE_DIRS = ("envs", "agents", "training", "tests")
SPEC_FILE = "RULES" + ".md"  # the specification outside the repository; code cites docs/rules.md

SECTION_HEADING = re.compile(r"^#{2,3} §(\d+[a-c]?(?:\.\d+)?) ", re.MULTILINE)
CITATION = re.compile(r"§(\d+[a-c]?(?:\.\d+)?)")
RULES_TEST = re.compile(r"^\s*def (test_r\d\w*)\(", re.MULTILINE)
RULES_TEST_NAME = re.compile(r"test_r(\d+[a-c]?)_(\d+)_")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
PLACEHOLDER = re.compile(r"<[^>]*>|[A-Z][A-Z_]*\.(?:yaml|zip)$")


def markdown_files() -> list[Path]:
    return [README, *sorted((ROOT / "docs").rglob("*.md"))]


def code_files() -> list[Path]:
    return [p for d in CODE_DIRS for p in sorted((ROOT / d).rglob("*.py"))]


def rulebook_sections() -> set[str]:
    return set(SECTION_HEADING.findall(RULEBOOK.read_text(encoding="utf-8")))


def test_rulebook_numbers_its_sections_once_each():
    found = SECTION_HEADING.findall(RULEBOOK.read_text(encoding="utf-8"))
    assert {"0", "1", "2", "3", "4", "4a", "4b", "4c", "5", "1.1", "4a.1", "5.1"} <= set(found)
    assert len(found) == len(set(found)), f"sections numbered twice: {sorted({s for s in found if found.count(s) > 1})}"


@pytest.mark.parametrize("path", code_files() + markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_cited_section_exists_in_the_rulebook(path: Path):
    text = path.read_text(encoding="utf-8")
    missing = sorted(set(CITATION.findall(text)) - rulebook_sections())
    assert not missing, f"{path.relative_to(ROOT)} cites sections that docs/rules.md does not have: {missing}"


@pytest.mark.parametrize("path", code_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_code_cites_the_rulebook_in_the_repository(path: Path):
    assert SPEC_FILE not in path.read_text(encoding="utf-8"), f"{path.relative_to(ROOT)} cites {SPEC_FILE}"


def test_every_rules_test_names_an_existing_subsection():
    sections = rulebook_sections()
    wrong = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        for name in RULES_TEST.findall(path.read_text(encoding="utf-8")):
            m = RULES_TEST_NAME.match(name)
            if m is None or f"{m[1]}.{m[2]}" not in sections:
                wrong.append(f"{path.relative_to(ROOT)}::{name}")
    assert not wrong, f"rules tests must be named test_r<section>_<subsection>_... after docs/rules.md: {wrong}"


def test_readme_stays_short():
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; keep it to {README_MAX_LINES} and move detail to docs/"


def parlor_commands(text: str) -> list[str]:
    """Every `parlor ...` command line in a Markdown text: in code spans and fenced blocks."""
    candidates = CODE_SPAN.findall(text)
    for block in FENCE.findall(text):
        candidates += [line.split(" #")[0] for line in block.splitlines()]
    out = []
    for c in candidates:
        c = c.strip()
        if c.startswith(".venv/bin/parlor "):
            c = c[len(".venv/bin/"):]
        if c.startswith("parlor ") and c != "parlor ...":
            out.append(c)
    return out


def documented_commands() -> list:
    return [pytest.param(str(p.relative_to(ROOT)), c, id=f"{p.relative_to(ROOT)}: {c[:70]}")
            for p in markdown_files() for c in parlor_commands(p.read_text(encoding="utf-8"))]


def test_the_docs_show_parlor_commands():
    assert len(documented_commands()) >= 20


@pytest.fixture(scope="module")
def cli_parser():
    from parlor.cli import build_parser

    return build_parser()


@pytest.mark.parametrize("where,command", documented_commands())
def test_documented_command_parses_and_names_existing_files(cli_parser, where: str, command: str):
    argv = shlex.split(command)[1:]
    if len(argv) == 1:  # a command named in the text (`parlor play`): it must exist
        commands = next(a for a in cli_parser._actions if isinstance(a, argparse._SubParsersAction)).choices
        assert argv[0] in commands, f"{where}: `{command}`: no such command; allowed: {', '.join(commands)}"
        return
    try:
        args = cli_parser.parse_args(argv)
    except SystemExit:
        pytest.fail(f"{where}: `{command}` does not parse with the parlor command line")
    assert not getattr(args, "_missing", None), f"{where}: `{command}`: {args._missing}"
    for word in argv:
        for part in word.split(","):  # --agents lists several
            path = part.removeprefix("ppo:")
            if path.startswith(("configs/", "agents/")) and not PLACEHOLDER.search(path):
                assert (ROOT / path).is_file(), f"{where}: `{command}` names {path}, which is not in the repository"


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path: Path):
    text = path.read_text(encoding="utf-8")
    broken = [t for t in LINK.findall(text) if "://" not in t and not (path.parent / t).exists()]
    assert not broken, f"{path.relative_to(ROOT)} links to missing files: {broken}"
