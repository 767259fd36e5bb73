"""Write the tau2-bench fixtures of runs the importer must not misread, with tau2-bench's own
data model: every file is ``Results.save`` of ``tau2.data_model.simulation.Results`` built
from tau2's Pydantic models (``Task``, ``SimulationRun``, ``RewardInfo``, ``ActionCheck``,
the messages), so its layout is tau2's own.

Not part of the suite and not a dependency of the product: tau2-bench needs model API keys to
run an agent, so the runs are scripted; run this by hand in a virtual environment (Python
3.12, as tau2-bench requires) where tau2-bench is installed from its source
(``python -m pip install PATH_TO_TAU2_BENCH``)::

    python make_tau2_runs.py [OUTPUT_FOLDER]

An ``airline`` run of three tasks, two trials each, with the user simulator on
``gpt-4.1``:

- ``tau2_airline_baseline.json`` and ``tau2_airline_candidate.json``: action checks without
  a ``tool_type`` (null; tau2-bench wrote none before it had the field); the candidate calls the
  write tool ``cancel_reservation`` on task ``1``, whose expected actions do not include it;
- ``tau2_airline_incomplete.json``: the baseline without its simulation of task ``2``,
  trial 1 (a run cut short);
- ``tau2_airline_empty.json``: the baseline with no simulation at all;
- ``tau2_voice_dir/``: the candidate as a voice run saves it (``format="dir"``), its
  ``agent_cost`` null, as tau2-bench's voice runs leave it.
"""

import os
import shutil
import sys
from pathlib import Path

from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage, UserMessage
from tau2.data_model.simulation import (ActionCheck, AgentInfo, DBCheck, Info, Results,
                                        RewardInfo, SimulationRun, TerminationReason,
                                        UserInfo)
from tau2.data_model.tasks import (Action, Description, EvaluationCriteria, RewardType,
                                   StructuredUserInstructions, Task, UserScenario)
from tau2.environment.environment import EnvironmentInfo

HERE = os.path.dirname(os.path.abspath(__file__))
STARTED = "2026-07-21T09:00:00.000000"
COMMIT = "a2c024725189473d2d7cea3a5cfdbcc67478e41f"
TRIALS = 2
# Each task: its purpose and its expected actions (the golden trajectory).
TASKS = {
    "0": ("Cancel a reservation the policy allows.",
          ["get_user_details", "get_reservation_details", "cancel_reservation"]),
    "1": ("Refuse to cancel a basic economy reservation.",
          ["get_user_details", "get_reservation_details"]),
    "2": ("Report a flight's status.", ["get_flight_status"]),
}


def task(task_id):
    purpose, actions = TASKS[task_id]
    return Task(
        id=task_id, description=Description(purpose=purpose),
        user_scenario=UserScenario(instructions=StructuredUserInstructions(
            domain="airline", reason_for_call=purpose, known_info="user id mia_li_3668",
            task_instructions=purpose)),
        evaluation_criteria=EvaluationCriteria(
            actions=[Action(action_id="%s_%d" % (task_id, index), name=name, arguments={})
                     for index, name in enumerate(actions)],
            reward_basis=[RewardType.DB]))


def simulation(task_id, trial, calls, voice=False):
    expected = TASKS[task_id][1]
    messages = [UserMessage(role="user", content="Hi, about my reservation.", turn_idx=0)]
    turn = 1
    for name in calls:
        call = ToolCall(id="call_%d" % turn, name=name, arguments={"reservation_id": "ZFA04Y"})
        messages.append(AssistantMessage(role="assistant", tool_calls=[call], turn_idx=turn,
                                         cost=None if voice else 0.0012))
        messages.append(ToolMessage(id="call_%d" % turn, role="tool", content="{}",
                                    turn_idx=turn + 1))
        turn += 2
    messages.append(AssistantMessage(role="assistant", content="Done.", turn_idx=turn,
                                     cost=None if voice else 0.0008))
    db_match = calls == expected
    return SimulationRun(
        id="sim-%s-%d" % (task_id, trial), task_id=task_id, trial=trial, seed=300 + trial,
        timestamp=STARTED, start_time=STARTED, end_time=STARTED,
        duration=6.5 + int(task_id) + trial * 0.25,
        termination_reason=TerminationReason.USER_STOP,
        agent_cost=None if voice else round(0.0008 + 0.0012 * len(calls), 6),
        user_cost=None if voice else 0.0004,
        reward_info=RewardInfo(
            reward=1.0 if db_match else 0.0,
            db_check=DBCheck(db_match=db_match, db_reward=1.0 if db_match else 0.0),
            # no tool_type (null), as tau2-bench wrote action checks before it had one
            action_checks=[ActionCheck(action=Action(action_id="%s_%d" % (task_id, index),
                                                     name=name, arguments={}),
                                       action_match=name in calls, action_reward=1.0)
                           for index, name in enumerate(expected)],
            reward_basis=[RewardType.DB]),
        messages=messages)


def results(agent_model, scripts, skip=(), voice=False):
    simulations = [simulation(task_id, trial, scripts.get(task_id, TASKS[task_id][1]), voice)
                   for task_id in TASKS for trial in range(TRIALS)
                   if (task_id, trial) not in skip]
    return Results(
        timestamp=STARTED,
        info=Info(git_commit=COMMIT, num_trials=TRIALS, max_steps=100, max_errors=10,
                  user_info=UserInfo(implementation="user_simulator", llm="gpt-4.1"),
                  agent_info=AgentInfo(implementation="llm_agent", llm=agent_model),
                  environment_info=EnvironmentInfo(domain_name="airline",
                                                   policy="Airline policy (abridged).")),
        tasks=[task(task_id) for task_id in TASKS], simulations=simulations)


def main(output):
    candidate_scripts = {"1": ["get_user_details", "get_reservation_details",
                               "cancel_reservation"]}
    written = {
        "tau2_airline_baseline.json": results("gpt-4.1-mini", {}),
        "tau2_airline_candidate.json": results("gpt-4.1", candidate_scripts),
        "tau2_airline_incomplete.json": results("gpt-4.1-mini", {}, skip={("2", 0)}),
        "tau2_airline_empty.json": results("gpt-4.1-mini", {}, skip={
            (task_id, trial) for task_id in TASKS for trial in range(TRIALS)}),
    }
    for name, value in written.items():
        value.save(Path(output) / name)
    folder = Path(output) / "tau2_voice_dir"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    results("gpt-realtime", candidate_scripts, voice=True).save(folder / "results.json",
                                                                format="dir")
    print(", ".join(sorted(written)), folder)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "fixtures"))
