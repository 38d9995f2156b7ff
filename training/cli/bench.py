"""``parlor bench``: speed measured side by side in one run.

Random-play AEC steps/second of every registered environment next to
PettingZoo's ``texas_holdem_v4`` (the reference), and the hand evaluator
against an independent one. Ratios matter, not absolute numbers: the
machines are shared and noisy.

``--scale ENV`` measures the scale-out instead (:mod:`parlor.training.benchmarks.scale`):
learner steps/s of SB3 MaskablePPO next to RLlib PPO, evaluation episodes/s of
``--workers 1/2`` next to ``--ray``, and what a cluster of N machines would give.

``--ofc-expert BUDGETS`` measures the OFC expert's CPU per heads-up hand at each budget
beside the heuristic's (:mod:`parlor.training.benchmarks.ofc_expert`).

``--ofc-misplays DEALS`` studies what the expert still misplays: its decisions in ``DEALS`` seeded deals
beside a much larger budget's, with the value gap of each (:mod:`parlor.training.benchmarks.ofc_misplays`).
``--ofc-shortlist DEALS --policy PATH`` ranks the expert's placements in that policy's shortlists
(:mod:`parlor.training.benchmarks.ofc_shortlist`), and with ``--worlds W`` prices them.

``--train ENV`` measures training throughput instead (:mod:`parlor.training.benchmarks.train_speed`):
SB3 MaskablePPO with 1 env, 2 in-process envs (also with sb3-contrib's own rollout loop, forward pass
and update) and ``--procs`` envs (SB3's SubprocVecEnv, and parlor's ``vec_env: subproc``: env 0 in the
learner's process) next to RLlib PPO with its envs in-process and on ``--procs`` env runners:
steps/s, CPU per env step, where an in-process step's CPU goes, and, where ``--procs`` outnumber
the cores, the steps/s the learner's own CPU per env step allows with a core per env process.

Every figure is printed as a ratio to the reference measured in the same run; there are
no pass/fail verdicts against internal targets.

``--eval-workers 1,2`` times one ``parlor eval`` with a policy at each number of workers, start-up
included (:mod:`parlor.training.benchmarks.eval_workers`).

``--ofc-advisors`` measures the OFC feature block, policies, heuristic and search against
a reference checkout of the code (:mod:`parlor.training.benchmarks.ofc_advisors`).
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import os
from dataclasses import replace
from typing import Any

from parlor import envs
from parlor.cli.extras import require
from parlor.cli.options import add_game_option_arguments
from parlor.training.benchmarks.env_speed import reference_env, steps_per_second
from parlor.training.benchmarks.ofc_advisors import WORKLOADS as OFC_WORKLOADS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement")
    parser.add_argument("--envs", default=",".join(envs.ENVS), help="comma-separated env names")
    parser.add_argument("--skip-hands", action="store_true", help="skip the hand-evaluator benchmark")
    parser.add_argument("--scale", metavar="ENV", help="instead: training and evaluation throughput on ENV, SB3 "
                        "against RLlib and --workers against --ray (needs the train and scale extras)")
    parser.add_argument("--train", metavar="ENV", help="instead: training steps/s and CPU per env step of SB3 "
                        "(1 env, 2 envs, --procs subprocess envs) and RLlib (in-process, --procs env runners), and "
                        "where a step's CPU goes, and where --procs outnumber the cores, the steps/s the learner's own "
                        "CPU allows with a core per process (needs the train and scale extras)")
    parser.add_argument("--procs", default="2", help="with --train: comma-separated numbers of envs stepped "
                        "in parallel (SB3: in processes; RLlib: env runners), e.g. "
                        "2,16 (default 2)")
    parser.add_argument("--no-rllib", action="store_true", help="with --train: SB3 rows only (no Ray needed)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                        help="with --train: where SB3 (ppo.device) and RLlib's learner (rllib.learner_device) run")
    add_game_option_arguments(parser)
    parser.add_argument("--steps", type=int, default=8192, help="with --scale: learner steps timed per trainer")
    parser.add_argument("--agents", default="heuristic,search:4", help="with --scale: the evaluation's agents")
    parser.add_argument("--games", type=int, default=60, help="with --scale: the evaluation's games per matchup")
    parser.add_argument("--ofc-advisors", action="store_true",
                        help="only the OFC advisors' speed (feature block, shipped policies, heuristic, search)")
    parser.add_argument("--ofc-expert", metavar="BUDGETS",
                        help="only the OFC expert's CPU per heads-up hand at these comma-separated budgets (e.g. "
                        "16,48,192), beside the heuristic's; game options from --option (default variant=pineapple)")
    parser.add_argument("--ofc-agents", metavar="SPECS",
                        help="with or instead of --ofc-expert: also these comma-separated agents' CPU per heads-up "
                        "hand, e.g. ppo:agents/pretrained/ofc_pineapple.zip (with --option features=true)")
    parser.add_argument("--hands", type=int, default=20, help="with --ofc-expert or --ofc-agents: hands per agent")
    parser.add_argument("--ofc-misplays", metavar="DEALS", type=int,
                        help="only the OFC expert's misplays: its decisions in DEALS seeded deals (hands, or matches "
                        "with --option num_hands=N) beside a larger budget's, with value gaps; see --budgets")
    parser.add_argument("--ofc-shortlist", metavar="DEALS", type=int,
                        help="only how often a policy's K most probable placements hold the OFC expert's, over its "
                        "decisions in DEALS seeded deals (the policy: --policy; game options: --option)")
    parser.add_argument("--policy", metavar="PATH", help="with --ofc-shortlist: the policy file whose shortlists are ranked")
    parser.add_argument("--worlds", metavar="W", type=int,
                        help="with --ofc-shortlist: also the value each top K loses, the candidates scored by the "
                             "expert on W worlds (e.g. 1024)")
    parser.add_argument("--budgets", default="128,2048", metavar="DEFAULT,BIG",
                        help="with --ofc-misplays: the expert's budget and the larger one (default 128,2048)")
    parser.add_argument("--batches", type=int, default=16,
                        help="with --ofc-misplays: independent batches of worlds behind each gap's standard error")
    parser.add_argument("--seed", type=int, default=0,
                        help="with --ofc-misplays or --ofc-shortlist: the deals' and experts' seed")
    parser.add_argument("--worst", type=int, default=5, help="with --ofc-misplays: positions drawn, largest gap first")
    parser.add_argument("--out", metavar="FILE", help="with --ofc-misplays: JSON of the comparisons, saved as "
                        "they finish; a rerun of the same study resumes from it")
    parser.add_argument("--reference", metavar="DIR",
                        help="with --ofc-advisors or --eval-workers: a checkout of the code to compare with (e.g. main "
                        "before a change)")
    parser.add_argument("--workloads", default=",".join(OFC_WORKLOADS),
                        help="with --ofc-advisors: comma-separated workloads")
    parser.add_argument("--eval-workers", metavar="COUNTS",
                        help="only the start of evaluation workers: `parlor eval` (--eval) with each comma-separated "
                        "number of workers (e.g. 1,2), in fresh processes; --reference, --rounds apply")
    parser.add_argument("--eval", default=None, metavar="ARGS",
                        help="with --eval-workers: the parlor eval arguments (default: 400 single-hand OFC games, "
                        "ofc_pineapple.zip against the heuristic)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="with --ofc-advisors or --eval-workers: alternating rounds per workload; with --train: "
                        "rounds of the 1-env, 2-env, --procs and RLlib rows alternated after the table, for ratios "
                        "within a round (0: none)")
    parser.add_argument("--size", type=float, default=1.0,
                        help="with --ofc-advisors: episodes/hands per measurement, relative to the defaults")


def run_scale(args: argparse.Namespace) -> int:
    from parlor.cli.extras import RLLIB_MODULES
    from parlor.cli.options import game_options
    from parlor.training.benchmarks import scale
    from parlor.training.cli.train import TRAIN_MODULES

    require([*TRAIN_MODULES, *RLLIB_MODULES], "parlor bench --scale")
    from parlor.training.evaluation import ray_runner
    from parlor.training.evaluation.runner import EvalConfig

    options = game_options(args.scale, args.preset, args.option)
    agents = tuple(a for a in args.agents.split(",") if a)
    config = EvalConfig(env=args.scale, agents=agents, options=options, games=args.games, seed=0)
    # first, before torch is loaded: --workers 2 forks as it does for a user's parlor eval
    print(f"evaluation: {args.scale} {options}, agents {','.join(agents)}, {args.games} games per matchup")
    for label, episodes_per_s, same in scale.eval_speed(config, print):
        print(f"  {label:32s} {episodes_per_s:8.1f} episodes/s   same records as --workers 1: {same}")

    print(f"\ntraining: {args.scale} {options}: net {list(scale.NET)} relu, {scale.ROLLOUT} env steps per update, "
          f"minibatch {scale.MINIBATCH}, {scale.EPOCHS} epochs, {scale.N_ENVS} envs per process, learner vs heuristic")
    rate = scale.sb3_speed(scale.train_config(args.scale, options, "sb3"), args.steps)
    print(f"  {'sb3 MaskablePPO (envs in this process)':44s} {rate['steps'] / rate['seconds']:8,.0f} learner steps/s")
    rates = {}
    with ray_runner.session(ray_runner.LOCAL, num_cpus=os.cpu_count()):
        for runners in (0, 1, 2):
            rates[runners] = scale.rllib_speed(scale.train_config(args.scale, options, "rllib", runners), args.steps)
            where = "envs in the learner's process" if runners == 0 else f"{runners} env-runner process(es)"
            print(f"  {'rllib PPO, ' + where:44s} {rates[runners]['steps'] / rates[runners]['seconds']:8,.0f} "
                  "learner steps/s")
    sample, serial = scale.step_costs(rates[1])
    measured = rates[1]["steps"] / rates[1]["seconds"]
    cpus = os.cpu_count() or 1  # None where the count is unknown: one core at least
    gap = max(0.0, 1 / measured - sample - serial)  # what the parts timed alone leave out (transfers, metrics, load)
    print(f"\nper step, each timed on its own: sampling {sample * 1e6:,.0f} us on one core, the learner's side "
          f"{serial * 1e6:,.0f} us; the model's 1 runner: {1 / (sample + serial):,.0f} learner steps/s, measured "
          f"{measured:,.0f} (a gap of {gap * 1e6:,.0f} us per step)\nrllib on N machines of {cpus} cores "
          "(one learner, the other cores sampling), learner steps/s: the parts alone | the gap counted as serial")
    for machines in (1, 2, 4, 8, 16, 64):
        cores = machines * cpus
        print(f"  N = {machines:3d}: {scale.cluster_estimate(sample, serial, cores):10,.0f} | "
              f"{scale.cluster_estimate(sample, serial + gap, cores):10,.0f}")
    print(f"  limit (no sampling time at all): {1 / serial:,.0f} | {1 / (serial + gap):,.0f}")
    return 0


def _procs(text: str) -> list[int]:
    try:
        procs = [int(p) for p in text.split(",") if p.strip()]
    except ValueError:
        procs = []
    if not procs or any(p < 1 or p > 256 for p in procs):
        raise SystemExit(f"--procs {text!r}: give comma-separated numbers of env processes in 1..256, e.g. 2,16")
    return procs


def run_train(args: argparse.Namespace) -> int:
    from parlor.cli.extras import RLLIB_MODULES
    from parlor.cli.options import game_options
    from parlor.training.cli.train import TRAIN_MODULES

    procs = _procs(args.procs)
    require([*TRAIN_MODULES, *([] if args.no_rllib else RLLIB_MODULES)], "parlor bench --train",
            alternative="" if args.no_rllib else "or SB3 alone: --no-rllib")
    from parlor.training.benchmarks import scale, train_speed
    from parlor.training.learning.vec_env import wait_seconds

    options = game_options(args.train, args.preset, args.option)
    sb3 = scale.train_config(args.train, options, "sb3")
    sb3 = replace(sb3, ppo=replace(sb3.ppo, device=args.device))
    print(f"training: {args.train} {options}: net {list(scale.NET)} relu, {scale.ROLLOUT} env steps per update, "
          f"minibatch {scale.MINIBATCH}, {scale.EPOCHS} epochs, learner vs heuristic, {args.steps:,} steps per row, "
          f"{os.cpu_count()} CPUs, learner on {args.device}")
    row = train_speed.sb3_row
    rows = [row(train_speed.sb3_config(sb3, 1, "dummy"), args.steps, "sb3, 1 env in this process", split=True),
            row(train_speed.sb3_config(sb3, 2, "dummy"), args.steps, "sb3, 2 envs in this process", split=True),
            row(train_speed.sb3_config(sb3, 2, "dummy"), args.steps, "sb3, 2 envs here, sb3-contrib's loop+update",
                split=True, stock=True)]
    asleep = []  # rows with more processes than cores whose waits sleep: their learner's CPU is its work
    for n in (n for n in procs if n > 1):
        config = train_speed.sb3_config(sb3, n, "subproc")
        rows.append(row(config, args.steps, f"sb3, {n} envs: SB3's SubprocVecEnv", every_env_in_a_process=True))
        auto = "spin" if wait_seconds("auto", n) else "sleep"  # what vec_env_wait: auto takes here
        rows += [row(replace(config, vec_env_wait=wait), args.steps, f"sb3, {n} envs: 1 here + {n - 1} in processes, "
                     f"{doing}{' (auto)' if wait == auto else ''}")
                 for wait, doing in (("spin", "spinning"), ("sleep", "sleeping"))]
        if auto == "sleep":  # fewer cores than processes: steps/s cannot show what n cores would give
            asleep.append(rows[-1])
    def rllib(runners: int) -> Any:
        config = scale.train_config(args.train, options, "rllib", runners)
        return replace(config, rllib=replace(config.rllib, learner_device=args.device))

    # the rows again, alternated: ratios within a round (the machine drifts over a run)
    makers: list[tuple[str, Any]] = [
        ("sb3, 1 env", lambda: row(train_speed.sb3_config(sb3, 1, "dummy"), args.steps, "sb3, 1 env")),
        ("sb3, 2 envs here", lambda: row(train_speed.sb3_config(sb3, 2, "dummy"), args.steps, "sb3, 2 envs here"))]
    comparisons = []
    for n in (n for n in procs if n > 1):
        label = f"sb3, {n} envs: 1 here + {n - 1} in processes"
        makers.append((label, lambda n=n, label=label: row(train_speed.sb3_config(sb3, n, "subproc"), args.steps, label)))
        comparisons.append((label, "sb3, 1 env", False))
    if not args.no_rllib:
        makers.append(("rllib, 2 envs here", lambda: train_speed.rllib_row(rllib(0), args.steps, "rllib, 2 envs here")))
        comparisons.append(("rllib, 2 envs here", "sb3, 2 envs here", True))
    with contextlib.ExitStack() as stack:
        if not args.no_rllib:
            from parlor.training.evaluation import ray_runner

            stack.enter_context(ray_runner.session(ray_runner.LOCAL, num_cpus=max(os.cpu_count() or 1, max(procs) + 1)))
            rows.append(train_speed.rllib_row(rllib(0), args.steps, "rllib, 2 envs in this process", split=True))
            rows.append(train_speed.rllib_row(rllib(0), args.steps, "rllib, 2 envs here, RLlib's runner", split=True,
                                              stock_runner=True))
            rows += [train_speed.rllib_row(rllib(n), args.steps, f"rllib, {n} env runner(s) x 2 envs") for n in procs]
        print("\n".join(train_speed.report(rows, reference=rows[0], cpu_reference=rows[1])))
        print("\n".join(train_speed.breakdown(rows)))
        if asleep:
            print("\n".join(train_speed.learner_bound(asleep, rows[0])))
        if args.rounds > 0 and comparisons:
            print("\n".join(train_speed.rounds_report(train_speed.alternated(makers, args.rounds), comparisons)))
    return 0


def run(args: argparse.Namespace) -> int:
    if args.train:
        return run_train(args)
    if args.scale:
        return run_scale(args)
    if args.ofc_advisors:
        return run_ofc_advisors(args)
    if args.ofc_expert or args.ofc_agents:
        return run_ofc_expert(args)
    if args.ofc_misplays is not None:
        return run_ofc_misplays(args)
    if args.ofc_shortlist is not None:
        return run_ofc_shortlist(args)
    if args.eval_workers:
        return run_eval_workers(args)
    if args.reference:
        raise SystemExit("--reference compares the OFC advisors: add --ofc-advisors")
    require(["rlcard"], "the reference env texas_holdem_v4 (PettingZoo classic)")
    names = [n for n in args.envs.split(",") if n]
    # the reference is re-measured right before each env: shared machines change speed
    # within a run, and a ratio is only fair between two back-to-back measurements
    # a ratio to the reference, not a verdict: what is fast enough is the reader's call
    print(f"{'environment':24s} {'steps/s':>10s} {'texas_holdem_v4':>16s} {'ratio':>7s}")
    for name in names:
        reference = steps_per_second(reference_env, args.seconds)
        rate = steps_per_second(functools.partial(envs.make, name), args.seconds)
        print(f"{name:24s} {rate:10,.0f} {reference:16,.0f} {rate / reference:6.1f}x")
    if not args.skip_hands:
        from parlor.training.benchmarks.hands import bench_hands, summary

        rows = bench_hands(args.seconds)
        print(f"\n{'hand evaluator':28s} {'hands/s':>14s}")
        for r in rows:
            print(f"{r['name']:28s} {r['hands_per_s']:14,.0f}")
        print("\n".join(summary(rows)))
    return 0


def run_eval_workers(args: argparse.Namespace) -> int:
    from parlor.training.benchmarks.eval_workers import DEFAULT_EVAL, eval_arguments, measure, parse_counts, report

    counts = parse_counts(args.eval_workers)
    if args.rounds < 1:
        raise SystemExit(f"--rounds {args.rounds}: at least 1")
    rounds = measure(eval_arguments(args.eval or DEFAULT_EVAL), counts, args.rounds, args.reference)
    print("\n".join(report(rounds, counts)))
    return 0


def run_ofc_expert(args: argparse.Namespace) -> int:
    from parlor.cli.options import game_options
    from parlor.training.benchmarks.ofc_expert import report, timed_hands

    budgets = [b for b in (args.ofc_expert or "").split(",") if b]
    if args.ofc_expert is not None and (not budgets or not all(b.isdigit() and int(b) > 0 for b in budgets)):
        raise SystemExit(f"--ofc-expert {args.ofc_expert!r}: comma-separated positive sample counts, e.g. 16,48,192")
    others = [a for a in (args.ofc_agents or "").split(",") if a]
    if args.ofc_agents is not None and not others:
        raise SystemExit(f"--ofc-agents {args.ofc_agents!r}: comma-separated agent names, e.g. ppo:policy.zip")
    if args.hands < 1:
        raise SystemExit(f"--hands {args.hands}: at least 1")
    options = {"variant": "pineapple", **game_options("ofc_v0", args.preset, args.option)}
    if options.get("num_players", 2) != 2:
        raise SystemExit("--ofc-expert times heads-up hands: leave num_players at 2")
    costs = [timed_hands("heuristic", options, args.hands)]
    costs += [timed_hands(spec, options, args.hands) for spec in [f"expert:{b}" for b in budgets] + others]
    print("\n".join(report(costs, options)))
    return 0


def run_ofc_misplays(args: argparse.Namespace) -> int:
    from pathlib import Path

    from parlor.cli.options import game_options
    from parlor.training.benchmarks.ofc_misplays import StudyConfig, collect_positions, compare, report, worst

    budgets = args.budgets.split(",")
    if len(budgets) != 2 or not all(b.isdigit() and int(b) > 0 for b in budgets):
        raise SystemExit(f"--budgets {args.budgets!r}: the expert's budget and a larger one, e.g. 128,2048")
    options = {"variant": "pineapple", **game_options("ofc_v0", args.preset, args.option)}
    try:
        config = StudyConfig(tuple(sorted(options.items())), args.ofc_misplays, args.seed, int(budgets[0]),
                             int(budgets[1]), args.batches)
    except ValueError as error:
        raise SystemExit(f"--ofc-misplays: {error}") from None
    positions = collect_positions(config)
    print(f"{len(positions)} decisions collected", flush=True)

    def progress(c, done: int) -> None:
        print(f"  {done}/{len(positions)} {c.street}: {c.kind}, gap {c.gap:+.3f} ± {c.se:.3f}", flush=True)

    results = compare(config, positions, Path(args.out) if args.out else None, progress)
    print("\n".join(report(config, results)))
    print("\n".join(worst(config, positions, results, args.worst)))
    return 0


def run_ofc_shortlist(args: argparse.Namespace) -> int:
    from parlor.agents.ofc.expert import MAX_SAMPLES
    from parlor.agents.policy import read_signature
    from parlor.cli.options import game_options
    from parlor.training.benchmarks.ofc_misplays import StudyConfig
    from parlor.training.benchmarks.ofc_shortlist import rank_decisions, report

    if not args.policy:
        raise SystemExit("--ofc-shortlist: name the policy file with --policy PATH")
    header = read_signature(args.policy)  # its own game, unless --option changes a portable option
    if header["env"] != "ofc_v0":
        raise SystemExit(f"--policy {args.policy}: a policy of {header['env']}, not ofc_v0")
    options = {**header.get("options", {}), **game_options("ofc_v0", args.preset, args.option)}
    if args.worlds is not None and not 1 <= args.worlds <= MAX_SAMPLES:
        raise SystemExit(f"--worlds {args.worlds}: worlds per decision in 1..{MAX_SAMPLES}")
    try:
        config = StudyConfig(tuple(sorted(options.items())), args.ofc_shortlist, args.seed)
    except ValueError as error:
        raise SystemExit(f"--ofc-shortlist: {error}") from None
    ranked = rank_decisions(args.policy, config, worlds=args.worlds)
    print("\n".join(report(config, args.policy, ranked)))
    return 0


def run_ofc_advisors(args: argparse.Namespace) -> int:
    import os

    from parlor.training.benchmarks.ofc_advisors import compare, report

    if args.reference and not os.path.isdir(os.path.join(args.reference, "envs")):
        raise SystemExit(f"--reference {args.reference}: not a checkout of parlor (no envs/ folder)")
    workloads = [w for w in args.workloads.split(",") if w]
    if any(w.startswith("ofc_pineapple") for w in workloads):  # each run is a subprocess: check here, in one line
        require(["torch", "sb3_contrib", "safetensors"], "the shipped OFC policies' workloads",
                alternative="or leave them out of --workloads")
    rows = compare(workloads, args.reference, args.rounds, args.size)
    print("\n".join(report(rows)))
    print("CPU time of each process (torch: 1 thread); best of", args.rounds, "alternating rounds")
    return 0
