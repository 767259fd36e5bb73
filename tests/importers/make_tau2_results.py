"""Write the tau2-bench fixtures of the import tests: ``tau2_baseline.json`` and
``tau2_candidate.json``, each a ``results.json`` as tau2-bench 1.0 saves it
(``Results.save(path, format="json")``, i.e. ``model_dump_json(indent=2)`` of its
``data_model/simulation.py`` models: ``timestamp``, ``info``, ``tasks``, ``simulations``).

tau2-bench needs model API keys to run, so the fixtures are written from its data model
instead, with the standard library: a small ``retail`` run of seven tasks (one train, one
development, five test), three trials each, scripted as an order agent would act:

- ``baseline``: every task solved; the third trial of task ``2`` ends in an
  ``infrastructure_error`` (no reward: the importer records it as ``unknown``);
- ``candidate``: the same, except that on task ``3`` (critical: a delivered order must not
  be cancelled) it calls the write tool ``cancel_pending_order`` in every trial, so the
  database check fails.

It also writes ``tau2_candidate_dir/``, the candidate's run as a tau2-bench results folder
(``Results.save(path, format="dir")``: ``results.json`` without ``simulations`` and with its
``simulation_index``, beside ``simulations/<simulation id>.json``, one file per simulation).

Run it from this folder: ``python make_tau2_results.py`` (the output is the same each time).
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
READ, WRITE, GENERIC = "read", "write", "generic"
TOOLS = {
    "find_user_id_by_email": READ,
    "get_order_details": READ,
    "cancel_pending_order": WRITE,
    "return_delivered_order_items": WRITE,
    "exchange_delivered_order_items": WRITE,
    "transfer_to_human_agents": GENERIC,
}
# Each task: its purpose and the actions the evaluation expects (the golden trajectory).
TASKS = {
    "0": ("Cancel a pending order.", ["find_user_id_by_email", "get_order_details",
                                      "cancel_pending_order"]),
    "1": ("Return a delivered item.", ["find_user_id_by_email", "get_order_details",
                                       "return_delivered_order_items"]),
    "2": ("Report an order's status.", ["find_user_id_by_email", "get_order_details"]),
    "3": ("Refuse to cancel a delivered order.", ["find_user_id_by_email",
                                                  "get_order_details"]),
    "4": ("Exchange a delivered item.", ["find_user_id_by_email", "get_order_details",
                                         "exchange_delivered_order_items"]),
    "5": ("Train: cancel a pending order.", ["find_user_id_by_email", "cancel_pending_order"]),
    "6": ("Development: look up an order.", ["get_order_details"]),
}
NUM_TRIALS = 3
STARTED = "2026-07-21T09:00:00.000000"


def task(task_id):
    purpose, actions = TASKS[task_id]
    return {
        "id": task_id,
        "description": {"purpose": purpose, "relevant_policies": None, "notes": None},
        "user_scenario": {"persona": None, "instructions": {
            "domain": "retail", "reason_for_call": purpose, "known_info": "email",
            "unknown_info": None, "task_instructions": purpose}},
        "ticket": None,
        "initial_state": None,
        "evaluation_criteria": {
            "actions": [{"action_id": "%s_%d" % (task_id, index), "requestor": "assistant",
                         "name": name, "arguments": {}, "info": None, "compare_args": None}
                        for index, name in enumerate(actions)],
            "env_assertions": None, "communicate_info": [], "nl_assertions": None,
            "reward_basis": ["DB"]},
        "issues": None,
        "required_documents": None,
        "user_tools": None,
    }


def message(role, turn, content=None, calls=(), cost=None):
    value = {"role": role, "content": content, "tool_calls": None, "turn_idx": turn,
             "timestamp": STARTED, "cost": cost, "usage": None, "raw_data": None}
    if calls:
        value["tool_calls"] = [{"id": "call_%d_%d" % (turn, index), "name": name,
                                "arguments": {"order_id": "#W0000001"},
                                "requestor": "assistant"} for index, name in enumerate(calls)]
    return value


def simulation(task_id, trial, calls, reason="agent_stop", db_match=True):
    """One SimulationRun: the conversation, its termination and its reward."""
    messages = [message("user", 0, "Hi, I need help with my order.")]
    turn = 1
    for name in calls:
        messages.append(message("assistant", turn, None, [name], cost=0.0011))
        messages.append({"id": "call_%d_0" % turn, "role": "tool", "content": "{}",
                         "requestor": "assistant", "error": False, "turn_idx": turn + 1,
                         "timestamp": STARTED})
        turn += 2
    messages.append(message("assistant", turn, "Done.", cost=0.0009))
    _purpose, expected = TASKS[task_id]
    reward_info = None
    if reason != "infrastructure_error":
        reward_info = {
            "reward": 1.0 if db_match else 0.0,
            "db_check": {"db_match": db_match, "db_reward": 1.0 if db_match else 0.0},
            "env_assertions": None,
            "action_checks": [{"action": {"action_id": "%s_%d" % (task_id, index),
                                          "requestor": "assistant", "name": name,
                                          "arguments": {}, "info": None,
                                          "compare_args": None},
                               "action_match": name in calls, "action_reward": 1.0,
                               "tool_type": TOOLS[name]}
                              for index, name in enumerate(expected)],
            "nl_assertions": None, "communicate_checks": None, "reward_basis": ["DB"],
            "reward_breakdown": {"DB": 1.0 if db_match else 0.0}, "info": None}
    duration = 4.25 + int(task_id) * 0.5 + trial * 0.125
    return {
        "id": "sim-%s-%d" % (task_id, trial),
        "task_id": task_id,
        "timestamp": STARTED,
        "start_time": STARTED,
        "end_time": STARTED,
        "duration": duration,
        "termination_reason": reason,
        "agent_cost": round(0.0009 + 0.0011 * len(calls), 6),
        "user_cost": 0.0005,
        "agent_usage": None,
        "reward_info": reward_info,
        "messages": messages,
        "ticks": None,
        "trial": trial,
        "seed": 300 + trial,
        "mode": "half_duplex",
        "speech_environment": None,
        "review": None,
        "user_only_review": None,
        "info": None,
        "auth_classification": None,
        "hallucination_retries_used": 0,
        "hallucination_check": None,
        "provider_session_id": None,
        "policy": None,
        "effect_timeline": None,
    }


def results(agent_model, scripts, failures):
    simulations = []
    for task_id in TASKS:
        for trial in range(NUM_TRIALS):
            calls = scripts.get(task_id, TASKS[task_id][1])
            reason = failures.get((task_id, trial), "agent_stop")
            simulations.append(simulation(task_id, trial, calls, reason,
                                          db_match=calls == TASKS[task_id][1]))
    return {
        "timestamp": STARTED,
        "info": {
            "git_commit": "a2c0247",
            "num_trials": NUM_TRIALS,
            "max_steps": 100,
            "max_errors": 10,
            "user_info": {"implementation": "user_simulator", "llm": "gpt-4.1",
                          "llm_args": {"temperature": 0.0},
                          "global_simulation_guidelines": None, "voice_settings": None,
                          "persona_config": None},
            "agent_info": {"implementation": "llm_agent", "llm": agent_model,
                           "llm_args": {"temperature": 0.0}, "voice_settings": None},
            "environment_info": {
                "domain_name": "retail", "policy": "Retail policy (abridged).",
                "tool_defs": {name: {"name": name, "doc": "A retail tool.", "params": None,
                                     "returns": None} for name in TOOLS}},
            "seed": 300,
            "text_streaming_config": None,
            "speech_complexity": None,
            "audio_native_config": None,
            "retrieval_config": None,
            "retrieval_config_kwargs": None,
        },
        "tasks": [task(task_id) for task_id in TASKS],
        "simulations": simulations,
        "simulation_index": None,
    }


def main():
    baseline = results("gpt-4.1-mini", {}, {("2", 2): "infrastructure_error"})
    candidate = results("gpt-4.1", {"3": ["find_user_id_by_email", "get_order_details",
                                          "cancel_pending_order"]}, {})
    for name, value in (("tau2_baseline.json", baseline), ("tau2_candidate.json", candidate)):
        write(os.path.join(HERE, "fixtures", name), value)
    write_folder(os.path.join(HERE, "fixtures", "tau2_candidate_dir"), candidate)


def write(path, value):
    with open(path, "wb") as handle:
        handle.write(json.dumps(value, indent=2).encode("utf-8"))


def write_folder(folder, value):
    """``value`` as ``Results.save(folder, format="dir")`` writes it: the metadata with a
    ``simulation_index`` (``SimulationIndexEntry``) and no ``simulations``, and one file per
    simulation, named by its id."""
    simulations = os.path.join(folder, "simulations")
    os.makedirs(simulations, exist_ok=True)
    for name in os.listdir(simulations):
        os.remove(os.path.join(simulations, name))
    meta = {key: item for key, item in value.items() if key != "simulations"}
    meta["simulation_index"] = [{
        "id": simulation["id"], "task_id": simulation["task_id"],
        "trial": simulation["trial"],
        "reward": (simulation["reward_info"] or {}).get("reward"),
        "termination_reason": simulation["termination_reason"],
        "agent_cost": simulation["agent_cost"], "duration": simulation["duration"],
    } for simulation in value["simulations"]]
    write(os.path.join(folder, "results.json"), meta)
    for simulation in value["simulations"]:
        write(os.path.join(simulations, simulation["id"] + ".json"), simulation)


if __name__ == "__main__":
    main()
