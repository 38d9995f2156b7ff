"""``parlor train``: strict configs, a 256-step smoke run of every shipped config that
writes a loadable model, resume, the run folder and policy signature checks."""
from __future__ import annotations

import csv
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from parlor import envs
from parlor.agents.policy import PolicyFileError, PolicyMismatchError, load_policy, read_signature
from parlor.envs.engine.game import ConfigError
from parlor.training.learning.configs import load_config, parse_config
from parlor.training.learning.train import train, write_run_files
from tests.training.scripted import KUHN, register

register()
ROOT = Path(__file__).resolve().parents[3]
CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))
RAY = pytest.mark.xdist_group("ray")  # backend rllib: in the one xdist worker that runs Ray (tests/training/conftest.py)
# make test trains one shipped config (training itself is tested on Kuhn poker in
# tests/training/cli/test_train.py); the others (each task's, distill, rllib) are slow
FAST_CONFIGS = {"ofc_pineapple_quick"}


def smoke(config, steps: int = 256):
    """The config shrunk to a few seconds: same env, options, pool and backend; envs in this process."""
    pretrain = config.pretrain and replace(config.pretrain, episodes=2, epochs=1)
    distill = config.distill and replace(config.distill, rounds=1, episodes=1, chunk_episodes=1, epochs=1, workers=1)
    rllib = config.rllib and replace(config.rllib, num_env_runners=0)  # remote runners: tests/training/learning/test_rllib.py
    return replace(config, total_steps=steps, checkpoint_every=128, vec_env="dummy", pretrain=pretrain, rllib=rllib,
                   distill=distill,
                   ppo=replace(config.ppo, n_steps=64, batch_size=64, n_epochs=1),
                   eval=replace(config.eval, every=10**9, deals=2, baselines=config.eval.baselines[:1]))


def start_run(tmp_path: Path, config, text: str = "") -> Path:
    run_dir = tmp_path / "run"
    run_dir.mkdir(parents=True)
    write_run_files(run_dir, config, text, "pytest")
    return run_dir


def game_of(env_name: str, **options):
    from parlor.training.learning.wrapper import make_env_game  # knows the test envs

    return make_env_game(env_name, options)


def legal_predictions(model, env_name: str, options: dict, episodes: int = 2) -> None:
    from parlor.training.learning import PoolEntry, SingleAgentEnv

    env = SingleAgentEnv(env_name, options, [PoolEntry("random")], seed=0)
    for _ in range(episodes):
        obs, _ = env.reset()
        done = False
        while not done:
            mask = env.action_masks()
            action = int(model.predict(obs, action_masks=mask, deterministic=True)[0])
            assert mask[action]
            obs, _, term, trunc, _ = env.step(action)
            done = term or trunc


def test_shipped_configs_exist_for_the_three_tasks_with_quick_versions() -> None:
    names = {p.stem for p in CONFIGS}
    for task in ("ofc_pineapple", "buffalo_bill_solitaire", "buki_betting"):
        assert {task, f"{task}_quick"} <= names


def config_marks(path: Path) -> list[pytest.MarkDecorator]:
    return ([RAY] if load_config(str(path)).backend == "rllib" else []) + ([] if path.stem in FAST_CONFIGS else [pytest.mark.slow])


@pytest.mark.parametrize("path", [pytest.param(p, marks=config_marks(p)) for p in CONFIGS], ids=lambda p: p.stem)
def test_config_trains_256_steps_and_writes_a_loadable_model(tmp_path: Path, path: Path, request) -> None:
    config = load_config(str(path))
    if config.env not in envs.ENVS:
        pytest.skip(f"{config.env} is not registered yet")
    if config.backend == "rllib":
        request.getfixturevalue("ray_cluster")
    if config.distill is not None:
        from parlor.training.learning.distill import check_agents

        try:
            check_agents(config, game_of(config.env, **config.options))
        except ConfigError as exc:  # the expert teacher lives on another branch until it is merged
            pytest.skip(str(exc))
    run_dir = start_run(tmp_path, smoke(config), path.read_text())
    result = train(smoke(config), run_dir, progress_bar=False, log=lambda *_: None)
    assert result.num_timesteps >= 256
    for name in ("config.yaml", "config.resolved.yaml", "command.txt", "git.txt", "versions.json",
                 "eval.csv", "baselines.csv", "learning_curve.png", "summary.json", "checkpoints/latest.zip"):
        assert (run_dir / name).is_file(), name
    assert any((run_dir / "tb").rglob("events.out.tfevents.*"))
    model = load_policy(result.model_path, game_of(config.env, **config.options))
    assert read_signature(result.model_path)["env"] == config.env
    legal_predictions(model, config.env, dict(config.options), episodes=1)
    # model.zip is a checkpoint (the optimizer state too); policy.zip the same network alone: smaller
    small = load_policy(run_dir / "policy.zip", game_of(config.env, **config.options))
    if config.backend == "sb3":  # an rllib run's optimizer state is RLlib's own checkpoint
        assert (run_dir / "policy.zip").stat().st_size < result.model_path.stat().st_size
        with zipfile.ZipFile(run_dir / "policy.zip") as a, zipfile.ZipFile(result.model_path) as b:
            assert sorted(a.namelist()) == ["parlor.json", "weights.safetensors"]
            assert sorted(b.namelist()) == ["optimizer.safetensors", "parlor.json", "weights.safetensors"]
    for name, tensor in model.state_dict().items():
        assert (small.state_dict()[name] == tensor).all(), name


def test_resume_continues_the_step_count(tmp_path: Path) -> None:
    config = parse_config(__import__("yaml").safe_load(KUHN))
    run_dir = start_run(tmp_path, config, KUHN)
    first = train(config, run_dir, progress_bar=False, log=lambda *_: None)
    assert first.num_timesteps == 256
    assert len(list((run_dir / "snapshots").glob("*.zip"))) >= 1
    second = train(replace(config, total_steps=512), run_dir, resume=True, progress_bar=False, log=lambda *_: None)
    assert second.num_timesteps == 512
    with open(run_dir / "eval.csv", newline="") as fh:
        steps = sorted({int(r["step"]) for r in csv.DictReader(fh)})
    assert steps[0] == 0 and steps[-1] == 512 and 256 in steps
    assert read_signature(second.model_path)["num_timesteps"] == 512
    messages: list[str] = []
    third = train(replace(config, total_steps=512), run_dir, resume=True, progress_bar=False, log=messages.append)
    assert third.num_timesteps == 512 and any("already has 512" in m for m in messages)


KUHN_RUN = pytest.mark.xdist_group("kuhn_run")  # the tests reading kuhn_run: one worker trains it


@pytest.fixture(scope="module")
def kuhn_run(tmp_path_factory: pytest.TempPathFactory):
    """A finished 256-step Kuhn run, trained once for the tests that only read its policy file."""
    config = parse_config(__import__("yaml").safe_load(KUHN))
    return train(config, start_run(tmp_path_factory.mktemp("kuhn"), config, KUHN), progress_bar=False,
                 log=lambda *_: None)


@KUHN_RUN
def test_mismatched_env_or_options_raise_a_clear_error(tmp_path: Path, kuhn_run) -> None:
    model_path = kuhn_run.model_path
    load_policy(model_path, game_of("kuhn_test", ante=1))  # the defaults spelled out: same env
    with pytest.raises(PolicyMismatchError, match="option ante: trained with 1, loading into 2"):
        load_policy(model_path, game_of("kuhn_test", ante=2))
    with pytest.raises(PolicyMismatchError, match="env: trained on 'kuhn_test', loading into 'ledger_test'"):
        load_policy(model_path, game_of("ledger_test"))
    bare = tmp_path / "bare.zip"
    with zipfile.ZipFile(model_path) as src, zipfile.ZipFile(bare, "w") as dst:
        for name in src.namelist():
            if name != "parlor.json":
                dst.writestr(name, src.read(name))
    with pytest.raises(PolicyFileError, match=r"missing \['parlor.json'\]"):
        load_policy(bare, game_of("kuhn_test"))


@pytest.mark.parametrize("env_name, options", [("ofc_v0", {"variant": "pineapple"}),
                                               ("buffalo_bill_v0", {"num_players": 1})])
def test_feature_block_version_is_part_of_the_signature(env_name: str, options: dict) -> None:
    # a policy trained on an older feature block must not load into the new one, even
    # when the shapes happen to agree
    from parlor.agents.policy import check_signature, signature

    game = envs.make_game(env_name, **options, features=True)
    version = game.observation_version
    assert isinstance(version, int) and version >= 2
    assert envs.make_game(env_name, **options).observation_version is None
    sig = signature(game)
    assert sig["layout_version"] == f"{env_name}/{version}"
    older = {**sig, "layout_version": f"{env_name}/{version - 1}"}
    with pytest.raises(PolicyMismatchError, match=f"layout_version: trained on '{env_name}/{version - 1}'"):
        check_signature(older, sig)


@pytest.mark.slow  # trains OFC first; tests/agents/test_pretrained.py has the registry refuse a shipped policy fast
def test_ppo_agent_of_the_registry_refuses_another_env(tmp_path: Path) -> None:
    if "ofc_v0" not in envs.ENVS:
        pytest.skip("ofc_v0 not registered")
    from parlor.agents.registry import make_agent

    config = smoke(load_config(str(ROOT / "configs/ofc_pineapple_quick.yaml")), steps=64)
    config = replace(config, eval=replace(config.eval, baselines=("random",), opponents=("random",)),
                     opponents=(config.opponents[0].__class__("random"),))
    run_dir = start_run(tmp_path, config)
    path = train(config, run_dir, progress_bar=False, log=lambda *_: None).model_path
    agent = make_agent(f"ppo:{path}", envs.make_game("ofc_v0", **config.options))
    assert agent is not None
    with pytest.raises(ValueError, match="option variant"):
        make_agent(f"ppo:{path}", envs.make_game("ofc_v0", **{**config.options, "variant": "original"}))


@pytest.mark.parametrize("text, match", [
    ("env: kuhn_test\nbogus: 1\n", "unknown option.*'bogus'.*allowed options: env, options"),
    ("env: kuhn_test\nppo: {lr: 0.1}\n", "ppo.*unknown option.*'lr'.*learning_rate"),
    ("env: kuhn_test\nppo: {n_epochs: 0}\n", "ppo.n_epochs=0"),
    ("env: kuhn_test\nopponents: [{agent: random, wieght: 2}]\n", "allowed keys: agent"),
    ("env: kuhn_test\nopponents: [{agent: self}]\n", "no self_play section"),
    ("env: kuhn_test\nvec_env: threads\n", "vec_env='threads'.*'dummy', 'subproc'"),
    ("env: kuhn_test\nvec_env_wait: yield\n", "vec_env_wait='yield'.*'auto', 'spin', 'sleep'"),
    ("env: kuhn_test\nbackend: rllib\nvec_env_wait: spin\n", "vec_env_wait: only applies with backend: sb3"),
    ("env: kuhn_test\nppo: {device: gpu}\n", "ppo.device='gpu'.*'cpu', 'cuda'"),
    ("env: kuhn_test\nbackend: rllib\nrllib: {learner_device: tpu}\n", "rllib.learner_device='tpu'.*'cpu', 'cuda'"),
    ("env: kuhn_test\nbackend: rllib\nrllib: {num_learners: -1}\n", "rllib.num_learners=-1"),
    ("env: kuhn_test\nbackend: rllib\nn_envs: 2\nppo: {n_steps: 100}\nrllib: {num_env_runners: 1, num_learners: 3}\n",
     "num_learners=3 must divide the 200 env steps"),
    ("env: kuhn_test\nbackend: rllib\nppo: {device: cuda}\n", "ppo.device='cuda' is sb3's.*rllib.learner_device"),
    ("env: kuhn_test\neval: {deals: 0}\n", "eval.deals=0"),
    ("env: kuhn_test\nshaping_mode: dense\n", "shaping_mode='dense'.*'final', 'potential'"),
    ("options: {}\n", "missing key 'env'"),
])
def test_config_is_strict(tmp_path: Path, text: str, match: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=match):
        load_config(str(path))


def test_a_cuda_device_without_cuda_is_one_config_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    config = parse_config({"env": "kuhn_test", "ppo": {"device": "cuda"}})
    with pytest.raises(ConfigError, match=r"^ppo.device=cuda but torch sees no CUDA device .*allowed values here: cpu$"):
        train(config, start_run(tmp_path, config))


def test_unknown_env_or_option_fails_before_training(tmp_path: Path) -> None:
    for i, (text, match) in enumerate((("env: no_such_env_v0\n", "unknown env 'no_such_env_v0'"),
                        ("env: kuhn_test\noptions: {antes: 2}\n", "unknown option.*'antes'"))):
        config = parse_config(__import__("yaml").safe_load(text))
        with pytest.raises(ConfigError, match=match):
            train(config, start_run(tmp_path / str(i), config), progress_bar=False, log=lambda *_: None)


def test_pretrain_clones_the_teacher_before_ppo(tmp_path: Path) -> None:
    """Behaviour cloning of a deterministic rule: the warm-started policy plays the
    teacher's action, and the critic learns the teacher's returns."""
    import json

    from parlor.agents.policy import PolicyAgent
    from parlor.training.learning import PoolEntry, SingleAgentEnv

    text = KUHN.replace("total_steps: 256", "total_steps: 64") + (
        "pretrain: {teacher: 'tests.agents.kuhn_agents:KuhnRule', episodes: 300, epochs: 30, batch_size: 64, "
        "learning_rate: 3.0e-3}\n")
    config = parse_config(__import__("yaml").safe_load(text))
    run_dir = start_run(tmp_path, config, text)
    messages: list[str] = []
    result = train(config, run_dir, progress_bar=False, log=messages.append)
    summary = json.loads((run_dir / "pretrain.json").read_text())
    assert summary["teacher"].endswith("KuhnRule") and summary["decisions"] >= 300
    assert summary["accuracy"] > 0.97, summary
    assert any("pretrain epoch 30/30" in m for m in messages)
    # the trained model still plays the rule (64 PPO steps cannot undo 30 epochs of cloning)
    from tests.agents.kuhn_agents import KuhnRule

    agent = PolicyAgent(load_policy(result.model_path, game_of("kuhn_test")), deterministic=True)
    env = SingleAgentEnv("kuhn_test", {}, [PoolEntry("random")], seed=1)
    agree = total = 0
    for _ in range(40):
        obs, _ = env.reset()
        done = False
        while not done:
            mask = env.action_masks()
            action = agent.act(obs, mask)
            agree += action == KuhnRule().act(obs, mask, env.state.view(env.learner))
            total += 1
            obs, _, term, trunc, _ = env.step(action)
            done = term or trunc
    assert agree / total > 0.95


def test_pretrain_section_is_strict() -> None:
    with pytest.raises(ConfigError, match="pretrain.episodes"):
        parse_config({"env": "kuhn_test", "pretrain": {"teacher": "random", "episodes": 0}})
    with pytest.raises(ConfigError, match="pretrain"):
        parse_config({"env": "kuhn_test", "pretrain": {"teacher": "random", "rounds": 3}})


@KUHN_RUN
def test_init_starts_a_new_run_from_a_saved_policy(tmp_path: Path, kuhn_run) -> None:
    """``init``: the new run's network starts as the saved one (before any PPO update),
    with a fresh step count; init.json names the source."""
    import json

    from parlor.training.learning.train import initialise, make_model, make_vec_env

    config = parse_config(__import__("yaml").safe_load(KUHN))
    source = kuhn_run
    tuned = replace(config, init=str(source.model_path), total_steps=128)
    run_dir = start_run(tmp_path / "b", tuned, KUHN)
    vec_env = make_vec_env(tuned)
    try:
        model = make_model(tuned, vec_env, run_dir)
        fresh = {k: v.clone() for k, v in model.policy.state_dict().items()}
        initialise(tuned, model, run_dir, log=lambda *_: None)
    finally:
        vec_env.close()
    saved = load_policy(source.model_path, game_of("kuhn_test")).state_dict()
    assert all((model.policy.state_dict()[k] == v).all() for k, v in saved.items())
    assert any((fresh[k] != v).any() for k, v in saved.items())  # the copy changed the network
    assert json.loads((run_dir / "init.json").read_text())["source_num_timesteps"] == 256
    result = train(tuned, run_dir, progress_bar=False, log=lambda *_: None)
    assert result.num_timesteps == 128


@KUHN_RUN
def test_init_refuses_another_env_or_network(tmp_path: Path, kuhn_run) -> None:
    config = parse_config(__import__("yaml").safe_load(KUHN))
    source = kuhn_run
    other_options = replace(config, init=str(source.model_path), options={"ante": 2})
    with pytest.raises(PolicyMismatchError, match="option ante"):
        train(other_options, start_run(tmp_path / "b", other_options, KUHN), progress_bar=False, log=lambda *_: None)
    wider = replace(config, init=str(source.model_path), ppo=replace(config.ppo, net_arch=(32,)))
    with pytest.raises(ConfigError, match=r"init=.*net_arch=\[32\]"):
        train(wider, start_run(tmp_path / "c", wider, KUHN), progress_bar=False, log=lambda *_: None)


def test_init_config_is_checked() -> None:
    with pytest.raises(ConfigError, match="init and pretrain"):
        parse_config({"env": "kuhn_test", "init": "a.zip", "pretrain": {"teacher": "random", "episodes": 2}})
    with pytest.raises(ConfigError, match="init="):
        parse_config({"env": "kuhn_test", "init": "model.pt"})


GUARD = {"foul": 0.0, "endgame_foul": 0.0}  # the outlook's guard and the exact endgame one


def test_a_policy_trained_with_an_action_guard_carries_it_and_plays_inside_it(tmp_path: Path) -> None:
    from parlor.agents.policy import PolicyAgent
    from parlor.training.learning import PoolEntry, SingleAgentEnv

    config = smoke(load_config(str(ROOT / "configs/ofc_pineapple_quick.yaml")), steps=64)
    config = replace(config, action_guard=GUARD, eval=replace(config.eval, baselines=("random",)))
    path = train(config, start_run(tmp_path, config), progress_bar=False, log=lambda *_: None).model_path
    assert read_signature(path)["action_guard"] == GUARD
    game = envs.make_game("ofc_v0", **config.options)
    agents = [PolicyAgent.from_file(path, game), PolicyAgent.from_file(path, game, deterministic=False)]
    assert [a.guard for a in agents] == [GUARD] * 2
    guarded_env = SingleAgentEnv("ofc_v0", config.options, [PoolEntry("random")], seed=0, action_guard=GUARD)
    narrowed = endgame_narrowed = 0
    for _ in range(3):
        obs, _ = guarded_env.reset()
        done = False
        while not done:
            legal = guarded_env.state.legal_mask().astype(bool)
            allowed = guarded_env.action_masks()
            view = guarded_env.state.view(guarded_env.learner)
            narrowed += int(allowed.sum() < legal.sum())
            endgame_only = guarded_env.advisor.guarded_mask(obs, legal, {"endgame_foul": 0.0}, view=view)
            endgame_narrowed += int(endgame_only.sum() < legal.sum())
            for agent in agents:  # given the full legal mask and the seat's view, each plays inside the guard
                assert allowed[agent.act(obs, legal, view)]
            assert (agents[1].probabilities(obs, legal, view)[~allowed] == 0).all()
            obs, _, term, trunc, _ = guarded_env.step(agents[0].act(obs, legal, view))
            done = term or trunc
    assert narrowed > 5 and endgame_narrowed > 0  # both guards were exercised


def test_action_guard_is_checked() -> None:
    base = "env: ofc_v0\noptions: {variant: pineapple, features: true}\n"
    with pytest.raises(ConfigError, match="action_guard.foul=-0.1"):
        parse_config(__import__("yaml").safe_load(base + "action_guard: {foul: -0.1}\n"))
    from parlor.training.learning import PoolEntry, SingleAgentEnv

    with pytest.raises(ConfigError, match="cannot guard 'foul'.*allowed values: endgame_foul, midgame_foul$"):  # no feature block
        SingleAgentEnv("ofc_v0", {"variant": "pineapple"}, [PoolEntry("random")], action_guard={"foul": 0.0})
    with pytest.raises(ConfigError, match="cannot guard 'endgame_foul'.*allowed values: none"):  # not Pineapple
        SingleAgentEnv("ofc_v0", {"variant": "original"}, [PoolEntry("random")], action_guard={"endgame_foul": 0.0})
    with pytest.raises(ConfigError, match="cannot guard 'royalties'.*allowed values: foul, opening_foul, foul_cap"):
        SingleAgentEnv("ofc_v0", {"features": True}, [PoolEntry("random")], action_guard={"royalties": 0.0})
