"""backend: rllib on a local Ray instance: the masked module sends no illegal action (and an
unmasked one is caught), self-play snapshots reach the env runners and play, the exported
policy is the module, and `parlor train` -> `parlor eval` round-trips."""
from __future__ import annotations

import json
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from stable_baselines3.common.vec_env import DummyVecEnv

from parlor.agents.policy import PolicyAgent, load_policy, read_signature, save_policy
from parlor.agents.policy_format import HEADER, OPTIMIZER, WEIGHTS
from parlor.cli import main
from parlor.envs.engine.game import IllegalActionError
from parlor.training.learning.configs import parse_config
from parlor.training.learning.train import env_kwargs, make_model
from parlor.training.learning.wrapper import SingleAgentEnv

pytestmark = pytest.mark.xdist_group("ray")  # one xdist worker, one Ray instance for every Ray test


@pytest.fixture(autouse=True, scope="module")
def _rllib() -> None:
    """ray.rllib is imported when this module's tests run, not at collection: every xdist
    worker collects every module, and only the one running the "ray" group needs RLlib."""
    global rllib_train, MASK_KEY, OBS_KEY, ParlorMultiAgentEnv, MaskedPPOTorchRLModule, masked_logits, model_config
    pytest.importorskip("ray.rllib", reason="the [scale] extra (ray[rllib]) is not installed")
    from parlor.training.learning import rllib_train
    from parlor.training.learning.rllib_env import MASK_KEY, OBS_KEY, ParlorMultiAgentEnv
    from parlor.training.learning.rllib_module import MaskedPPOTorchRLModule, masked_logits, model_config

TONK = {"env": "tonk_v0", "options": {"num_players": 2}, "backend": "rllib", "n_envs": 2, "total_steps": 384,
        "opponents": [{"agent": "heuristic", "weight": 1.0}, {"agent": "self", "weight": 3.0}],
        "self_play": {"start": 128, "every": 128, "keep": 2}, "checkpoint_every": 256,
        "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 2, "net_arch": [16, 16]},
        "eval": {"every": 256, "deals": 2, "opponents": ["heuristic"], "baselines": ["random"]}}


def reports(algo) -> list[dict]:
    return [env for runner in algo.env_runner_group.foreach_env_runner(rllib_train._report) for env in runner["envs"]]


@pytest.fixture(scope="module")
def trained(ray_cluster, tmp_path_factory):
    """Two iterations on one remote env runner, a snapshot broadcast, one more iteration."""
    config = parse_config({**TONK, "rllib": {"num_env_runners": 1}})
    algo = rllib_train.ppo_config(config).build_algo()
    shadow = make_model(config, DummyVecEnv([lambda: SingleAgentEnv(**env_kwargs(config, 0))]), tmp_path_factory.mktemp("tb"))
    runners = rllib_train.RunnerEnvs(shadow.get_env())
    runners.algo = algo
    try:
        algo.train()
        algo.train()
        rllib_train.pull(algo, shadow)
        game = shadow.get_env().envs[0].game
        snapshot = save_policy(shadow, tmp_path_factory.mktemp("snapshots") / "step_1.zip", game)
        runners.env_method("add_snapshot", str(snapshot))
        before = reports(algo)
        algo.train()
        yield config, algo, shadow, before, reports(algo)
    finally:
        algo.stop()


def test_masked_module_sends_no_illegal_action_and_snapshots_play_on_the_runners(trained) -> None:
    _, _, _, before, after = trained
    assert len(after) == 2  # the remote runner's two envs (the local runner has none)
    assert sum(env["illegal_actions"] for env in before + after) == 0
    assert all(env["snapshots"] == 1 for env in after)
    played = [name for env in after for info in env["infos"] for name in info["opponents"].values()]
    assert "self[0]" in played and "heuristic" in played
    assert all(np.isfinite(info["raw_return"]) for env in before + after for info in env["infos"])


def test_the_exported_policy_is_the_learner_module(trained) -> None:
    config, algo, shadow, _, _ = trained
    rllib_train.pull(algo, shadow)
    env = ParlorMultiAgentEnv(rllib_train.env_config(config))
    module = MaskedPPOTorchRLModule(observation_space=env.observation_spaces["player_0"],
                                    action_space=env.action_spaces["player_0"], inference_only=False,
                                    model_config=model_config(config.ppo.net_arch, config.ppo.activation))
    module.set_state(rllib_train.learner_state(algo))
    agent = PolicyAgent(shadow.policy)
    for seed in range(5):
        obs, _ = env.reset(seed=seed)
        (o,) = obs.values()
        with torch.no_grad():
            batch = {"obs": {k: torch.as_tensor(v)[None] for k, v in o.items()}}
            logits = module.forward_inference(batch)["action_dist_inputs"][0]
        np.testing.assert_allclose(torch.softmax(logits, -1).numpy(), agent.probabilities(o[OBS_KEY], o[MASK_KEY]),
                                   atol=1e-6)


def test_masked_logits_give_illegal_actions_no_probability() -> None:
    logits = torch.tensor([[5.0, 1.0, 3.0]])
    probs = torch.softmax(masked_logits(logits, torch.tensor([[0.0, 1.0, 1.0]])), -1)
    assert probs[0, 0] == 0.0 and probs[0, 1:].sum() == pytest.approx(1.0)


def test_an_unmasked_module_is_caught_by_the_env(ray_cluster) -> None:
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from tests.training.learning.rllib_unmasked import Unmasked

    config = parse_config({**TONK, "opponents": [{"agent": "random"}], "self_play": None})
    spec = RLModuleSpec(module_class=Unmasked, model_config=model_config(config.ppo.net_arch, config.ppo.activation))
    algo = (rllib_train.ppo_config(config)
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={rllib_train.LEARNER: spec}))
            .build_algo())
    try:
        with pytest.raises(RuntimeError) as caught:  # RLlib's, raised from the env's error
            algo.train()
        assert isinstance(caught.value.__cause__, IllegalActionError)
        assert sum(env["illegal_actions"] for env in reports(algo)) == 1
    finally:
        algo.stop()


def test_parlor_train_rllib_then_parlor_eval_plays_the_policy(ray_cluster, tmp_path: Path) -> None:
    path = tmp_path / "tonk_rllib.yaml"
    path.write_text(json.dumps(TONK))  # JSON is YAML
    assert main(["train", str(path), "--out", str(tmp_path / "runs"), "--no-progress", "--ray", "local"]) == 0
    (run,) = (tmp_path / "runs").iterdir()
    for name in ("config.resolved.yaml", "eval.csv", "baselines.csv", "train_curve.csv", "learning_curve.png",
                 "summary.json", "model.zip", "policy.zip", "checkpoints/latest.zip", "checkpoints/rllib.json"):
        assert (run / name).is_file(), name
    assert len(list((run / "snapshots").glob("*.zip"))) == 3 and any((run / "tb").rglob("events.out.tfevents.*"))
    signature = read_signature(run / "model.zip")
    assert signature["env"] == "tonk_v0" and signature["num_timesteps"] >= 384
    policies = [run / "model.zip", run / "policy.zip", run / "checkpoints" / "latest.zip", *run.glob("snapshots/*.zip")]
    for path in policies:  # parlor's format: a JSON header and safetensors, nothing pickled
        assert {HEADER, WEIGHTS} <= set(zipfile.ZipFile(path).namelist()) <= {HEADER, WEIGHTS, OPTIMIZER}, path
    load_policy(run / "policy.zip", SingleAgentEnv("tonk_v0", {"num_players": 2}).game)
    assert main(["eval", "tonk_v0", "--option", "num_players=2", "--agents", f"ppo:{run / 'model.zip'},random",
                 "--games", "8", "--quiet", "--no-plot", "--out", str(tmp_path / "eval")]) == 0
    results = json.loads((tmp_path / "eval" / "results.json").read_text())
    assert results["episodes"] == 2 * 4 and [a["agent"] for a in results["agents"]] == ["model", "random"]
    assert main(["train", "--resume", str(run), "--total-steps", "512", "--no-progress"]) == 0
    assert read_signature(run / "model.zip")["num_timesteps"] >= 512
    steps = json.loads((run / "checkpoints" / "rllib.json").read_text())["steps"]
    assert steps == read_signature(run / "model.zip")["num_timesteps"]


def test_ppo_keys_map_to_rllib() -> None:
    config = parse_config({**TONK, "rllib": {"num_env_runners": 3}, "ppo": {**TONK["ppo"], "learning_rate": 1e-3}})
    rl = rllib_train.ppo_config(config)
    assert rl.train_batch_size_per_learner == 64 * 2 * 3 and rl.minibatch_size == 64 and rl.num_epochs == 2
    assert (rl.lr, rl.gamma, rl.lambda_, rl.clip_param) == (1e-3, 1.0, 0.95, 0.2)
    assert (rl.entropy_coeff, rl.vf_loss_coeff, rl.grad_clip) == (0.01, 0.5, 0.5)
    assert rl.num_env_runners == 3 and rl.num_envs_per_env_runner == 2 and not rl.use_kl_loss
    assert replace(config, rllib=replace(config.rllib, num_env_runners=0)).rllib.num_env_runners == 0


def test_learners_and_their_device_map_to_rllib() -> None:
    config = parse_config({**TONK, "rllib": {"num_env_runners": 2, "num_learners": 2, "learner_device": "cuda"}})
    rl = rllib_train.ppo_config(config)
    assert rl.num_learners == 2 and rl.num_gpus_per_learner == 1
    assert rl.train_batch_size_per_learner == 64 * 2 * 2 // 2  # the update's steps shared out
    assert rl.episodes_to_numpy is False  # RLlib's per-step re-conversion of finished episodes (docs/benchmarks.md)
    one = rllib_train.ppo_config(parse_config(TONK))
    assert one.num_learners == 0 and one.num_gpus_per_learner == 0


def test_the_masked_module_acts_without_switching_modes_and_the_same_in_either() -> None:
    env = ParlorMultiAgentEnv(rllib_train.env_config(parse_config({**TONK, "backend": "rllib"})))
    module = MaskedPPOTorchRLModule(observation_space=env.observation_spaces[env.possible_agents[0]],
                                    action_space=env.action_spaces[env.possible_agents[0]],
                                    model_config=model_config((16,), "relu"))
    obs, _ = env.reset(seed=0)
    agent_obs = next(iter(obs.values()))
    batch = {"obs": {k: torch.as_tensor(v)[None] for k, v in agent_obs.items()}}
    module.train()
    switches = []
    module.eval = lambda: switches.append("eval")  # RLlib's default switches per call: two walks of the net
    trained_mode = module.forward_exploration(batch)["action_dist_inputs"]
    module.forward_inference(batch)
    assert switches == [] and module.training
    del module.eval
    module.eval()
    assert torch.equal(trained_mode, module.forward_exploration(batch)["action_dist_inputs"])
    assert torch.equal(trained_mode, module.forward_inference(batch)["action_dist_inputs"])


def test_two_runs_of_one_config_train_the_same_model(ray_cluster, tmp_path: Path) -> None:
    """A seed fixes an RLlib run (parlor's lean env runner included): the same model.zip weights."""
    path = tmp_path / "tonk_rllib.yaml"
    config = {**TONK, "total_steps": 256, "self_play": None, "opponents": [{"agent": "heuristic", "weight": 1.0}],
              "eval": {**TONK["eval"], "every": 10**6}, "rllib": {"num_env_runners": 0}}
    path.write_text(json.dumps(config))
    weights = []
    for out in ("a", "b"):
        assert main(["train", str(path), "--out", str(tmp_path / out), "--no-progress", "--ray", "local"]) == 0
        (run,) = (tmp_path / out).iterdir()
        with zipfile.ZipFile(run / "model.zip") as policy:
            weights.append(policy.read(WEIGHTS))
    assert weights[0] == weights[1]


def module_and_batch(scales: tuple[float, ...]) -> tuple[MaskedPPOTorchRLModule, dict]:
    """A seeded 16x16 masked module for two-player Tonk and a batch of one observation times ``scales``."""
    env = ParlorMultiAgentEnv(rllib_train.env_config(parse_config({**TONK, "backend": "rllib"})))
    space, actions = env.observation_spaces["player_0"], env.action_spaces["player_0"]
    torch.manual_seed(0)
    module = MaskedPPOTorchRLModule(observation_space=space, action_space=actions,
                                    model_config=model_config((16, 16), "relu"))
    obs, _ = env.reset(seed=0)
    return module, {"obs": {k: torch.as_tensor(np.stack([v * scale for scale in scales]))
                            for k, v in next(iter(obs.values())).items()}}


def test_acting_runs_the_actor_alone_with_rllibs_logits() -> None:
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule

    module, batch = module_and_batch((1.0, 0.5))
    critic_calls, wrapper_calls = [], []
    module.encoder.critic_encoder.register_forward_hook(lambda *_: critic_calls.append(1))
    for wrapper in (module.encoder.actor_encoder, module.encoder.actor_encoder.net, module.pi, module.pi.net):
        wrapper.register_forward_hook(lambda *_: wrapper_calls.append(1))
    logits = module.forward_exploration(batch)["action_dist_inputs"]
    assert critic_calls == []  # RLlib's pass runs the critic too (the module is not inference-only)
    assert wrapper_calls == []  # the layer stacks called directly, not RLlib's model wrappers
    mask, inner = module._split(batch)
    rllib = DefaultPPOTorchRLModule._forward(module, inner)["action_dist_inputs"]
    assert critic_calls == [1] and torch.equal(logits, masked_logits(rllib, mask))
    assert torch.equal(module.forward_train(batch)["action_dist_inputs"], logits)


def test_the_train_pass_is_rllibs_through_the_layer_stacks_same_values_and_gradients() -> None:
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule

    module, batch = module_and_batch((1.0, 0.5, 0.25))
    module.eval()
    trains = []
    module.train = lambda mode=True: trains.append(mode)  # RLlib's forward_train walks the net on every call

    def loss_and_grads(out: dict) -> tuple[torch.Tensor, list[torch.Tensor]]:
        module.zero_grad()
        loss = out["action_dist_inputs"].clamp(min=-10).square().sum() + module.compute_values(
            batch, out["embeddings"]).square().sum()
        loss.backward()
        return loss.detach(), [p.grad.clone() for p in module.parameters()]

    lean = module.forward_train(batch)
    assert trains == [] and list(lean) == ["embeddings", "action_dist_inputs"]
    mask, inner = module._split(batch)
    rllib = DefaultPPOTorchRLModule._forward_train(module, inner)
    rllib["action_dist_inputs"] = masked_logits(rllib["action_dist_inputs"], mask)
    for key in lean:
        assert torch.equal(lean[key], rllib[key]), key
    (lean_loss, lean_grads), (rllib_loss, rllib_grads) = loss_and_grads(lean), loss_and_grads(rllib)
    assert torch.equal(lean_loss, rllib_loss) and all(map(torch.equal, lean_grads, rllib_grads))
