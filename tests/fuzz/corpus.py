"""The crafted hostile inputs of issue 34, kept as regression cases: policy zips that are
memory bombs (a member that lies about its size, a real huge tensor, a header that asks for
a huge network or observation), YAML alias bombs and tags, and bad configs. Each builder
writes its file and returns its path; the fuzz suite mutates the same valid files."""
from __future__ import annotations

import functools
import json
import struct
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.agents.policy_files import header_of, rewrite_zip

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "agents" / "pretrained" / "buki_betting.zip"  # the smallest shipped policy (0.66 MB)
WEIGHTS, HEADER = "weights.safetensors", "parlor.json"
ZEROS = bytes(1 << 20)


@functools.cache
def deflated_zeros(size: int) -> tuple[bytes, int]:
    """(a raw deflate stream of ``size`` zero bytes, their CRC-32), built without inflating
    them: one independently flushed 1 MiB block repeated (size: a multiple of 1 MiB)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = compressor.compress(ZEROS) + compressor.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(size // len(ZEROS)):
        crc = zlib.crc32(ZEROS, crc)
    return block * (size // len(ZEROS)) + b"\x03\x00", crc  # then an empty final block


def raw_zip(dest: Path, members: list[tuple[str, bytes, int, int, int]]) -> Path:
    """A zip written byte by byte: ``(name, data, method, crc, declared size)`` per member
    (method 0 stored, 8 deflated), so a member may declare any size it likes."""
    out, central = bytearray(), bytearray()
    for name, data, method, crc, size in members:
        raw = name.encode()
        fields = (20, 0, method, 0, 0x21, crc, len(data), size, len(raw), 0)
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, *fields, 0, 0, 0, 0, len(out)) + raw
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, *fields) + raw + data
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(out), 0)
    dest.write_bytes(bytes(out + central + end))
    return dest


def stored(name: str, data: bytes) -> tuple[str, bytes, int, int, int]:
    return name, data, 0, zlib.crc32(data), len(data)


def with_header(source: Path, dest: Path, change: Callable[[dict], Any]) -> Path:
    header = header_of(source)
    change(header)
    return rewrite_zip(source, dest, {HEADER: json.dumps(header).encode()})


def lying_member(source: Path, dest: Path, inflated: int = 1 << 30) -> Path:
    """The weights member holds ``inflated`` zero bytes (1,000:1 deflated) but declares the
    size of the real weights: zipfile alone would inflate all of it in one read."""
    with zipfile.ZipFile(source) as src:
        header, declared = src.read(HEADER), src.getinfo(WEIGHTS).file_size
    data, crc = deflated_zeros(inflated)
    return raw_zip(dest, [stored(HEADER, header), (WEIGHTS, data, 8, crc, declared)])


def huge_member(source: Path, dest: Path, size: int = 1 << 30) -> Path:
    """An honest weights member of ``size`` zero bytes (a real 1 GiB tensor's size)."""
    with zipfile.ZipFile(source) as src:
        header = src.read(HEADER)
    data, crc = deflated_zeros(size)
    return raw_zip(dest, [stored(HEADER, header), (WEIGHTS, data, 8, crc, size)])


def declared_size(source: Path, dest: Path, size: int = 1 << 31) -> Path:
    """A copy whose weights member declares ``size`` bytes (its data are the real weights)."""
    with zipfile.ZipFile(source) as src:
        members = [stored(name, src.read(name)) for name in src.namelist()]
    return raw_zip(dest, [(n, d, m, c, size if n == WEIGHTS else s) for n, d, m, c, s in members])


def huge_network(source: Path, dest: Path) -> Path:
    """A header that asks for 16 layers of 4,096 units (the weights stay small)."""
    return with_header(source, dest, lambda h: h["architecture"].update(pi=[4096] * 16, vf=[4096] * 16))


def huge_observation(source: Path, dest: Path) -> Path:
    """A header whose observation shape would allocate 256 GiB of bounds before any check."""
    shape = [1 << 16, 1 << 16, 16]

    def change(h: dict) -> None:
        h["observation_shape"] = shape
        h["architecture"]["observation_shape"] = shape
    return with_header(source, dest, change)


def nan_weights(source: Path, dest: Path) -> Path:
    from safetensors.torch import load, save

    with zipfile.ZipFile(source) as src:
        tensors = load(src.read(WEIGHTS))
    tensors["action_net.bias"][0] = float("nan")
    return rewrite_zip(source, dest, {WEIGHTS: save(tensors)})


def low_above_high(source: Path, dest: Path) -> Path:
    return with_header(source, dest, lambda h: h["architecture"].update(observation_low=2.0, observation_high=-2.0))


def format1(dest: Path, header: dict) -> Path:
    """A format-1 zip (SB3 members and parlor.json) with ``header``; its tensors are never reached."""
    members = {"data": b"{}", "policy.pth": b"not reached", HEADER: json.dumps(header).encode()}
    return raw_zip(dest, [stored(name, data) for name, data in members.items()])


POLICY_BOMBS: dict[str, Callable[[Path, Path], Path]] = {
    "lying member size": lying_member,
    "2 GiB declared member": declared_size,
    "1 GiB real tensor": huge_member,
    "16 layers of 4096": huge_network,
    "256 GiB observation": huge_observation,
}


def alias_bomb(levels: int = 9) -> str:
    """~400 bytes of YAML whose aliases expand to 9**levels strings."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels + 1):
        ref = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([ref] * 9)}]")
    return "\n".join(lines) + "\n"


def deep_yaml(depth: int = 5000) -> str:
    return "env: " + "[" * depth + "]" * depth + "\n"


BAD_YAML: dict[str, tuple[str, str]] = {  # name -> (text, words the one line must hold)
    "alias bomb": (alias_bomb(), "anchors and aliases"),
    "python tag": ("env: !!python/object/apply:os.system ['touch /tmp/parlor-yaml-ran']\n", "is not allowed"),
    "syntax error": ("env: [tonk_v0\nagents: x\n", "not valid YAML at line"),
    "deep nesting": (deep_yaml(), "nest"),
    "huge integer": ("games: " + "9" * 5000 + "\n", "out of range"),
    "not a mapping": ("- 1\n- 2\n", "top level must be a mapping"),
}
