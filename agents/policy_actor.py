"""The actor of a policy network, as :class:`~parlor.agents.policy.PolicyAgent` plays it: logits and
masked action probabilities for one observation.

Three kinds, the same numbers: :class:`NetworkActor` wraps a live sb3-contrib
MaskableActorCriticPolicy (a learner's own network, wherever it lives),
:class:`FileActor` plays the actor half of a policy file with torch alone, and
:class:`RemoteActor` asks another process's FileActor (an evaluation worker's, served by
:mod:`parlor.training.evaluation.policy_server`, so that the worker never imports torch). A file's
actor needs neither stable-baselines3 nor a built MaskableActorCriticPolicy, whose
construction makes an Adam optimizer that imports ``torch._dynamo``: together more CPU
than the torch import itself in every evaluation worker. It runs the very torch operations
sb3's ``get_distribution`` runs (``F.linear`` on tensors laid out as ``nn.Linear``'s, the
activation, the two ``Categorical`` normalisations of ``MaskableCategorical``) on the same
float32 inputs, so its logits and probabilities are bit for bit the network's
(``tests/agents/test_policy_actor.py`` compares them on every shipped policy).

A RemoteActor sends the float32 observation (and the mask) to the serving process, which runs
its FileActor's very method on them: the same torch operations on the same bits, so the same
logits and probabilities; forward passes stay batch-of-1 (batching changes the bits). Only the
sampling stays in the calling process (the agent's own generator).

torch is imported inside functions only.
"""
from __future__ import annotations

import json
import os
import struct
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from parlor.agents.policy_architecture import Architecture

HUGE_NEG = -1e8  # what MaskableCategorical puts in a masked action's logit


def _masked(logits: Any, mask: np.ndarray) -> np.ndarray:
    """sb3-contrib's masked probabilities of ``logits`` (a (1, n) float32 tensor): ``Categorical``
    normalises them, ``MaskableCategorical`` masks the normalised logits and normalises again;
    then zero on illegal actions, renormalised in float64 (what :class:`PolicyAgent` plays)."""
    import torch
    from torch.distributions import Categorical

    # validate_args only checks (sb3 leaves it on): the values are the same without the checks' cost
    normalised = Categorical(logits=logits, validate_args=False).logits
    # a copy: a caller's mask may be read-only (a guard's), which torch warns about on every first use
    masks = torch.as_tensor(np.array(mask[None, :], dtype=bool)).reshape(normalised.shape)
    masked = torch.where(masks, normalised, torch.tensor(HUGE_NEG, dtype=normalised.dtype))
    probs = Categorical(logits=masked, validate_args=False).probs[0].numpy().astype(np.float64)
    probs[~mask] = 0.0
    return probs / probs.sum()


def _as_torch(value: Any) -> Any:
    import torch

    return torch.from_numpy(value) if isinstance(value, np.ndarray) else value


class FileActor:
    """The actor of a policy file's network with torch alone: ``weights`` are the file's tensors
    (torch or numpy, as checked by :func:`~parlor.agents.policy_format.read_policy_file`)."""

    def __init__(self, arch: Architecture, weights: Mapping[str, Any]):
        import torch

        self.arch = arch
        self.weights = {name: _as_torch(value) for name, value in weights.items()}
        names = [f"mlp_extractor.policy_net.{2 * i}" for i in range(len(arch.pi))] + ["action_net"]
        # copies of torch's own allocation, as the parameters of a loaded nn.Linear
        self.layers = [(self.weights[f"{n}.weight"].detach().clone(), self.weights[f"{n}.bias"].detach().clone())
                       for n in names]
        self.activation = {"relu": torch.relu, "tanh": torch.tanh}[arch.activation]  # nn.ReLU, nn.Tanh

    def _forward(self, obs: Any) -> Any:
        import torch
        import torch.nn.functional as F

        with torch.no_grad():
            x = obs.float().flatten(1)  # sb3's preprocess_obs (Box) and FlattenExtractor
            for i, (weight, bias) in enumerate(self.layers):
                x = F.linear(x, weight, bias)
                if i < len(self.layers) - 1:  # MlpExtractor: an activation after every hidden layer
                    x = self.activation(x)
            return x

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The action logits (float32), as :meth:`NetworkActor.logits`."""
        import torch

        obs = torch.from_numpy(np.array(observation, dtype=np.float32)).reshape((1, *self.arch.observation_shape))
        return self._forward(obs)[0].numpy()

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The masked action probabilities, as :meth:`NetworkActor.probabilities`."""
        import torch

        # sb3's obs_to_tensor: a copy of the float32 observation with a batch axis
        obs = torch.as_tensor(np.array(np.asarray(observation, dtype=np.float32)).reshape((-1, *self.arch.observation_shape)))
        return _masked(self._forward(obs), mask)

    def network(self) -> Any:
        """The whole network (a MaskableActorCriticPolicy with these weights), built on first use."""
        from parlor.agents.policy_format import fit_weights

        if not hasattr(self, "_network"):
            policy = self.arch.build()
            fit_weights(policy, self.weights, "policy")
            self._network = policy
        return self._network


def load_torch() -> None:
    """Import torch for a process that serves forward passes, one intra-op thread as in every
    evaluation worker (so the server's sums run as a worker's would)."""
    import torch

    torch.set_num_threads(1)


def file_key(path: str | Path) -> tuple[str, int, int]:
    """(absolute path, mtime, size): a file's key in the per-process caches (a rewritten file is read again)."""
    key = os.path.abspath(path)
    stat = os.stat(key)
    return key, stat.st_mtime_ns, stat.st_size


def file_actor(path: str | Path) -> tuple[dict[str, Any], FileActor]:
    """The header and the actor of the policy file ``path`` (read with its tensors)."""
    from parlor.agents.policy_format import read_policy_file

    saved = read_policy_file(path)
    assert saved.weights is not None  # read with its weights
    return saved.header, FileActor(saved.architecture, saved.weights)


class PolicyServerError(RuntimeError):
    """A forward pass failed in the process serving the policies, or that process is gone."""


# The wire format (bytes, no pickle on the hot path): a request is one operation byte, then for a
# forward pass the actor's id (uint32) and the observation's float32 bytes (for probabilities, then
# the mask's bool bytes); OPEN is followed by [path, mtime_ns, size] in JSON. A reply is one
# status byte (OK, else ERROR and a UTF-8 message), then the result's bytes (float32 logits,
# float64 probabilities, the opened actor's id in JSON). Nothing is unpickled.
OPEN, LOGITS, PROBABILITIES = 0, 1, 2
OK, ERROR = b"\0", b"\1"
_ACTOR = struct.Struct("<BI")
_RESULTS = {LOGITS: np.float32, PROBABILITIES: np.float64}


def forward_request(operation: int, actor_id: int, observation: np.ndarray, mask: np.ndarray | None = None) -> bytes:
    """A LOGITS or PROBABILITIES request for ``observation`` (as float32) and ``mask`` (as bool)."""
    tail = b"" if mask is None else np.asarray(mask, dtype=bool).tobytes()
    return _ACTOR.pack(operation, actor_id) + np.asarray(observation, dtype=np.float32).tobytes() + tail


def answer(actors: Mapping[int, FileActor], request: bytes) -> bytes:
    """The reply to a forward request: the actor's own method on the request's float32
    observation (and mask); a malformed request raises ValueError naming what was wrong."""
    if len(request) < _ACTOR.size or request[0] not in _RESULTS:
        raise ValueError(f"unknown request {request[:1]!r}; allowed: logits ({LOGITS}), probabilities ({PROBABILITIES})")
    operation, actor_id = _ACTOR.unpack_from(request)
    if actor_id not in actors:
        raise ValueError(f"no actor {actor_id}; opened: {sorted(actors)}")
    actor = actors[actor_id]
    size, actions = int(np.prod(actor.arch.observation_shape)), actor.arch.num_actions
    expected = _ACTOR.size + 4 * size + (actions if operation == PROBABILITIES else 0)
    if len(request) != expected:
        raise ValueError(f"a request of {len(request)} bytes; this actor takes {expected} (observation of {size} "
                         f"float32{f', mask of {actions} bool' if operation == PROBABILITIES else ''})")
    observation = np.frombuffer(request, np.float32, count=size, offset=_ACTOR.size)
    if operation == LOGITS:
        return OK + actor.logits(observation).tobytes()
    mask = np.frombuffer(request, bool, offset=_ACTOR.size + 4 * size)
    return OK + actor.probabilities(observation, mask).tobytes()


class PolicyClient:
    """This process's connection to the process serving its policies' forward passes (an
    evaluation's :class:`~parlor.training.evaluation.policy_server.PolicyServer`): a unix socket
    with an authentication key, opened on the first request."""

    def __init__(self, address: str, authkey: bytes):
        self.address, self.authkey = address, authkey
        self._connection: Any = None
        self._opened: dict[tuple[str, int, int], int] = {}

    def exchange(self, request: bytes) -> bytes:
        """The server's reply to ``request`` without its status byte; its error, or a lost
        server, is a :class:`PolicyServerError`."""
        from multiprocessing.connection import Client

        try:
            if self._connection is None:
                self._connection = Client(self.address, family="AF_UNIX", authkey=self.authkey)
            self._connection.send_bytes(request)
            reply = self._connection.recv_bytes()
        except (OSError, EOFError) as exc:
            detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            raise PolicyServerError(f"the policy server process is gone (killed, or out of memory?): {detail}") from None
        if reply[:1] != OK:
            raise PolicyServerError(reply[1:].decode("utf-8", "replace"))
        return reply[1:]

    def forward(self, operation: int, actor_id: int, observation: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """The served actor's logits or probabilities (a writable array, as the actor's own)."""
        reply = self.exchange(forward_request(operation, actor_id, observation, mask))
        return np.frombuffer(reply, _RESULTS[operation]).copy()

    def actor(self, path: str, mtime_ns: int, size: int) -> RemoteActor:
        """The served actor of the policy file ``path`` (its stat as the cache key: a file
        rewritten since is read again); the server reads each file once."""
        key = (path, mtime_ns, size)
        if key not in self._opened:
            self._opened[key] = json.loads(self.exchange(bytes([OPEN]) + json.dumps(key).encode()))
        return RemoteActor(self, path, self._opened[key])


_client: dict[str, PolicyClient] = {}


def serve_from(address: str | None, authkey: bytes = b"") -> None:
    """Where this process's policy files play from now: the server at ``address``, or this
    process itself (None)."""
    _client.clear()
    if address is not None:
        _client["client"] = PolicyClient(address, authkey)


def served() -> PolicyClient | None:
    """This process's connection to its policy server, if it has one (:func:`serve_from`)."""
    return _client.get("client")


class RemoteActor:
    """A :class:`FileActor` in another process (:class:`PolicyClient`): the same logits and
    probabilities, computed there from the same float32 observation (and bool mask)."""

    def __init__(self, client: PolicyClient, path: str, actor_id: int):
        self.client, self.path, self.actor_id = client, path, actor_id

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """:meth:`FileActor.logits`, run by the server."""
        return self.client.forward(LOGITS, self.actor_id, observation)

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """:meth:`FileActor.probabilities`, run by the server."""
        return self.client.forward(PROBABILITIES, self.actor_id, observation, mask)

    def network(self) -> Any:
        """The whole network, built here (this process imports torch then)."""
        return file_actor(self.path)[1].network()


class NetworkActor:
    """The actor of a live MaskableActorCriticPolicy (e.g. a learner's, on its own device)."""

    def __init__(self, policy: Any):
        self.policy = policy

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The network's action logits: the forward pass of ``get_distribution`` without
        building the masked distribution (a third of a guarded decision's network time)."""
        import torch
        from stable_baselines3.common.policies import BasePolicy

        # obs_to_tensor's checks and device lookup cost more than the network's three layers
        obs = torch.from_numpy(np.array(observation, dtype=np.float32)).reshape((1, *self.policy.observation_space.shape))
        with torch.no_grad():  # a learner trained with ppo.device=cuda is evaluated where it lives
            features = BasePolicy.extract_features(self.policy, obs.to(self.policy.device), self.policy.pi_features_extractor)
            return self.policy.action_net(self.policy.mlp_extractor.forward_actor(features))[0].cpu().numpy()

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The masked action probabilities (zero on illegal actions, summing to 1 in float64)."""
        import torch

        obs, _ = self.policy.obs_to_tensor(np.asarray(observation, dtype=np.float32))
        with torch.no_grad():
            dist = self.policy.get_distribution(obs, action_masks=mask[None, :])
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs[~mask] = 0.0
        return probs / probs.sum()

    def network(self) -> Any:
        return self.policy
