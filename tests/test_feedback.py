"""Feedback that teaches the ranking, over real MCP sessions and CLI subprocesses: helpful=false on
one kind of neighbour, repeated, lowers that kind (and only the answers after it change); reset
restores the hand-set ranking exactly; task_id boosts what the task links; learned multipliers stay
bounded and fade; refusals say what to do."""

from __future__ import annotations

import json
import math
from datetime import timedelta

from graphctx.coord.feedback import HIGH, LOW, Feedback, NotedAnswer
from graphctx.coord.memory import MemoryWorkRepository
from graphctx.coord.models import now
from test_server_work import one, ok, refused, server  # noqa: F401 - the server fixture
from test_skills import cli


def data(result) -> dict:
    assert not result.is_error, result.content[0].text
    return result.structured_content


def ranked(result) -> list[str]:
    return [item["id"] for item in data(result)["items"]]


def ask(server, **args):  # noqa: F811
    return one(server, "ann", "get_context", {"entity": "validate", "format": "json", **args})


def test_repeated_negative_feedback_on_a_kind_of_neighbour_lowers_it_and_reset_restores(server):  # noqa: F811
    before = ranked(ask(server))
    assert before.index("shop/service.py") < before.index("shop/models.py::Repo")  # the file, reached by contains
    for _ in range(4):
        answer = ask(server, helpful=False, about=["shop/service.py"])
        assert not answer.is_error, answer.content[0].text
    after = ranked(answer)
    assert data(answer)["feedback"].startswith("unhelpful noted on your answer of ")
    assert after.index("shop/service.py") > after.index("shop/models.py::Repo")  # contains now weighs less
    learned = server.graphctx_state.project.feedback()
    assert learned.feedback == 4 and LOW <= learned.edges["contains"] < 0.7 and set(learned.edges) <= {"contains", "imports"}
    server.graphctx_state.project.feedback(reset=True)
    assert ranked(ask(server)) == before


def test_positive_feedback_raises_the_kind_it_credits(server):  # noqa: F811
    ask(server)
    ok(ask(server, helpful=True, about=["shop/service.py::create_item"]))
    assert server.graphctx_state.project.feedback().edges == {"calls": round(math.exp(0.25), 4)}


def test_feedback_refusals_name_the_fix(server):  # noqa: F811
    assert "there is none; ask for it first" in refused(one(server, "bob", "get_context", {"entity": "validate",
                                                                                          "helpful": True}))
    ask(server)
    assert "tests/nowhere.py was not in that answer" in refused(ask(server, helpful=False, about=["tests/nowhere.py"]))
    assert "give helpful=true or false with it" in refused(ask(server, about=["shop/service.py"]))
    assert "not mode=path" in refused(one(server, "ann", "get_context", {"mode": "path", "from_entity": "main",
                                                                         "to_entity": "validate", "helpful": True}))
    assert "no task has the id" in refused(ask(server, task_id="t-nothere"))


def test_task_id_boosts_what_the_task_links(server):  # noqa: F811
    created = one(server, "ann", "tasks", {"action": "create", "title": "Cache saves",
                                           "entities": ["shop/models.py::CachedRepo.save"], "format": "json"})
    task_id = created.structured_content["id"]
    plain = ranked(ask(server))
    assert "shop/models.py::CachedRepo.save" not in plain
    focused = data(ask(server, task_id=task_id))["items"]
    linked = next(item for item in focused if item["id"] == "shop/models.py::CachedRepo.save")
    assert linked["relation"] == "task" and focused[0]["id"] == "shop/service.py::validate"


def test_text_answers_credit_the_signal_that_made_the_seed(server):  # noqa: F811
    request = {"mode": "intent", "intent": "debug", "target": "validate raises ValueError on an empty name"}
    ok(one(server, "ann", "get_context", request))
    ok(one(server, "ann", "get_context", {**request, "helpful": False}))
    assert server.graphctx_state.project.feedback().signals  # the seeds' signals (names, full text) moved


def test_learned_multipliers_are_bounded_and_fade():
    feedback = Feedback(MemoryWorkRepository())
    answer = NotedAnswer(id="a-1", agent="ann", at=now(), mode="context", query="f",
                         items=[["f", "root"], ["g", "called-by"]])
    for _ in range(40):
        feedback.give(answer, False, {"g": ("calls", None)})
    assert feedback.multipliers()[0]["calls"] == LOW
    for _ in range(80):
        feedback.give(answer, True, {"g": ("calls", None)})
    assert feedback.multipliers()[0]["calls"] == HIGH
    stored = feedback.repo.get_weights()
    feedback.repo.put_weights(stored.model_copy(update={"updated_at": now() - timedelta(days=30), "version": stored.version + 1}),
                              stored.version)
    assert abs(feedback.multipliers()[0]["calls"] - math.sqrt(HIGH)) < 0.01  # half of what was learned, 30 days on


def test_feedback_cli(tmp_path):
    from conftest import make_shop

    root = make_shop(tmp_path / "shop")
    assert cli(root, "feedback", code=1).stdout.startswith("no feedback yet")
    assert "name yourself with --agent" in cli(root, "context", "validate", "--helpful", "no", code=2, agent="").stderr
    cli(root, "context", "validate", "--agent", "ann")
    taught = cli(root, "context", "validate", "--agent", "ann", "--helpful", "no", "--about", "shop/service.py").stdout
    assert "feedback: unhelpful noted on your answer of" in taught and "contains x0.78" in taught
    shown = cli(root, "feedback").stdout
    assert shown.startswith("1 answers of feedback") and "edge kinds: contains x0.78" in shown
    assert json.loads(cli(root, "feedback", "--json").stdout)["edges"] == {"contains": 0.7788}
    cli(root, "feedback", "--reset")
    assert json.loads(cli(root, "feedback", "--json").stdout)["edges"] == {}
