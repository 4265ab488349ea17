"""The contract of WorkRepository (graphctx.coord.repository): every implementation, the files and the
memory and the team server's PostgreSQL one here, keeps tasks, skills, skill proposals and learned
weights with a version check, claims, agent profiles and append-only event streams the same way."""

from __future__ import annotations

import json
import threading
from datetime import timedelta

import pytest

from graphctx.coord.errors import WorkConflict
from graphctx.coord.files import FileWorkRepository, file_name
from graphctx.coord.memory import MemoryWorkRepository
from graphctx.coord.models import AgentProfile, Claim, Event, LearnedWeights, Skill, SkillProposal, Task, now


@pytest.fixture(params=["files", "memory", "postgresql"])
def repo(request, tmp_path):
    if request.param == "postgresql":
        from graphctx.teamstore.storage import TeamStore

        store = TeamStore(request.getfixturevalue("postgres_database"))
        request.addfinalizer(store.close)
        return store.project("demo").work_repository()
    return FileWorkRepository(tmp_path) if request.param == "files" else MemoryWorkRepository()


def task(task_id="t-1", version=1, **fields) -> Task:
    at = now()
    return Task(id=task_id, title=fields.pop("title", "a task"), created_at=at, updated_at=at, version=version, **fields)


def test_tasks_are_created_once_and_replaced_only_at_the_version_read(repo):
    repo.put_task(task(), None)
    with pytest.raises(WorkConflict, match="exists already"):
        repo.put_task(task(), None)
    repo.put_task(task(version=2, title="renamed"), 1)
    with pytest.raises(WorkConflict, match="is at version 2, not 1"):
        repo.put_task(task(version=2, title="lost update"), 1)
    with pytest.raises(WorkConflict, match="is gone"):
        repo.put_task(task("t-2", version=2), 1)
    assert repo.get_task("t-1").title == "renamed" and repo.get_task("t-2") is None
    assert [t.id for t in repo.tasks()] == ["t-1"]


def test_a_read_task_is_a_copy(repo):
    repo.put_task(task(depends_on=[]), None)
    repo.get_task("t-1").depends_on.append("t-9")
    assert repo.get_task("t-1").depends_on == []


def test_claims_are_replaced_whole_and_dropped(repo):
    at = now()
    repo.put_claim(Claim(task_id="t-1", agent="ann", claimed_at=at, expires_at=at + timedelta(minutes=1)))
    repo.put_claim(Claim(task_id="t-1", agent="bob", claimed_at=at, expires_at=at + timedelta(minutes=2)))
    assert repo.get_claim("t-1").agent == "bob" and [c.agent for c in repo.claims()] == ["bob"]
    repo.drop_claim("t-1")
    repo.drop_claim("t-1")  # dropping what is not there is no error
    assert repo.get_claim("t-1") is None and repo.claims() == []


def test_agents(repo):
    at = now()
    repo.put_agent(AgentProfile(name="ann/1.0", capabilities=["python"], registered_at=at, updated_at=at))
    assert repo.get_agent("ann/1.0").capabilities == ["python"]
    assert [a.name for a in repo.agents()] == ["ann/1.0"] and repo.get_agent("ann") is None


def test_streams_are_append_only_per_agent_and_filtered(repo):
    start = now()
    for number in range(3):
        repo.append("runs", Event(kind="start", subject=f"r-{number}", agent="ann" if number != 1 else "bob",
                                  at=start + timedelta(seconds=number)))
    repo.append("sessions", Event(kind="end", agent="ann", at=start))
    assert [e.subject for e in repo.events("runs")] == ["r-0", "r-1", "r-2"]
    assert [e.subject for e in repo.events("runs", ["ann"])] == ["r-0", "r-2"]
    assert [e.subject for e in repo.events("runs", since=start + timedelta(seconds=1))] == ["r-1", "r-2"]
    assert [e.kind for e in repo.events("sessions")] == ["end"] and repo.events("activity") == []
    assert repo.events("runs", ["nobody"]) == []


def test_transaction_is_reentrant_and_excludes_other_threads(repo):
    order = []

    def other():
        with repo.transaction():
            order.append("other")

    with repo.transaction():
        with repo.transaction():
            thread = threading.Thread(target=other)
            thread.start()
            thread.join(0.2)
            order.append("mine")
    thread.join()
    assert order == ["mine", "other"]


def skill(name="deploy", version=1, **fields) -> Skill:
    at = now()
    return Skill(name=name, description=fields.pop("description", "how to deploy"), created_at=at, updated_at=at,
                 version=version, **fields)


def test_skills_are_versioned_and_dropped_at_the_version_read(repo):
    repo.put_skill(skill(body="# Deploy\n\nRun make."), None)
    with pytest.raises(WorkConflict, match="skill deploy exists already"):
        repo.put_skill(skill(), None)
    repo.put_skill(skill(version=2, description="how to ship", body="# Deploy\n\nRun make."), 1)
    with pytest.raises(WorkConflict, match="skill deploy changed meanwhile"):
        repo.put_skill(skill(version=2), 1)
    assert repo.get_skill("deploy").description == "how to ship" and repo.get_skill("deploy").body == "# Deploy\n\nRun make."
    assert [s.name for s in repo.skills()] == ["deploy"]
    with pytest.raises(WorkConflict, match="is at version 2, not 1"):
        repo.drop_skill("deploy", 1)
    repo.drop_skill("deploy", 2)
    assert repo.get_skill("deploy") is None and repo.skills() == []
    with pytest.raises(WorkConflict, match="is gone"):
        repo.drop_skill("deploy", 2)


def test_proposals_are_kept_per_skill_with_a_version_check(repo):
    at = now()
    proposal = SkillProposal(id="p-1", skill="deploy", agent="ann", content="new", rationale="clearer",
                             base_version=1, created_at=at)
    repo.put_proposal(proposal, None)
    repo.put_proposal(SkillProposal(id="p-2", skill="review", agent="bob", content="x", rationale="y",
                                    base_version=3, created_at=at), None)
    with pytest.raises(WorkConflict, match="exists already"):
        repo.put_proposal(proposal, None)
    repo.put_proposal(proposal.model_copy(update={"status": "accepted", "version": 2}), 1)
    assert repo.get_proposal("p-1").status == "accepted" and repo.get_proposal("p-9") is None
    assert [p.id for p in repo.proposals("deploy")] == ["p-1"] and len(repo.proposals()) == 2


def test_learned_weights_are_one_versioned_value_and_dropped(repo):
    assert repo.get_weights() is None
    repo.put_weights(LearnedWeights(edges={"tests": 0.8}, feedback=1, updated_at=now()), None)
    with pytest.raises(WorkConflict, match="the learned weights exists already"):
        repo.put_weights(LearnedWeights(updated_at=now()), None)
    repo.put_weights(LearnedWeights(edges={"tests": 0.6}, feedback=2, updated_at=now(), version=2), 1)
    assert repo.get_weights().edges == {"tests": 0.6}
    repo.drop_weights()
    repo.drop_weights()
    assert repo.get_weights() is None


def test_new_streams_are_kept_like_the_others(repo):
    at = now()
    for stream in ("skill_events", "review", "feedback"):
        repo.append(stream, Event(kind="x", subject=stream, agent="ann", at=at))
        assert [e.subject for e in repo.events(stream)] == [stream]


# ---- the files: a layout that merges across branches


def test_file_layout(tmp_path):
    repo = FileWorkRepository(tmp_path)
    repo.put_task(task("t-abc"), None)
    repo.append("runs", Event(kind="start", subject="r-1", agent="ann/1.0", at=now()))
    repo.append("served", Event(kind="served", agent="ann", at=now(), data={"entities": ["a.py::f"]}))
    at = now()
    repo.put_claim(Claim(task_id="t-abc", agent="ann", claimed_at=at, expires_at=at))
    folder = tmp_path / ".graphctx"
    assert json.loads((folder / "tasks" / "t-abc.json").read_text())["id"] == "t-abc"
    runs = folder / "runs" / f"{file_name('ann/1.0')}.jsonl"
    assert json.loads(runs.read_text())["agent"] == "ann/1.0" and "/" not in file_name("ann/1.0")
    assert (folder / "private" / "claims" / "t-abc.json").exists()
    assert (folder / "private" / "served" / "ann.jsonl").exists()
    assert "private/" in (folder / ".gitignore").read_text()  # claims and served context stay in this clone
    assert "runs/*.jsonl merge=union" in (folder / ".gitattributes").read_text()


def test_skill_files_are_skill_md_with_front_matter_and_a_hand_written_one_reads(tmp_path):
    repo = FileWorkRepository(tmp_path)
    repo.put_skill(skill(body="Run `make deploy`."), None)
    text = (tmp_path / ".graphctx" / "skills" / "deploy" / "SKILL.md").read_text()
    assert text.startswith("---\nname: deploy\ndescription: how to deploy\n") and text.endswith("Run `make deploy`.\n")
    hand = tmp_path / ".graphctx" / "skills" / "review-prs" / "SKILL.md"
    hand.parent.mkdir(parents=True)
    hand.write_text("---\nname: review-prs\ndescription: Review a pull request\n---\n\n# Steps\n", encoding="utf-8")
    assert repo.get_skill("review-prs").description == "Review a pull request"
    assert sorted(s.name for s in repo.skills()) == ["deploy", "review-prs"]
    repo.put_proposal(SkillProposal(id="p-1", skill="deploy", agent="ann", content="x", rationale="y",
                                    base_version=1, created_at=now()), None)
    assert (tmp_path / ".graphctx" / "proposals" / "p-1.json").exists()
    repo.put_weights(LearnedWeights(updated_at=now()), None)
    assert (tmp_path / ".graphctx" / "private" / "weights.json").exists()  # learned here, not shared
    assert "skill_events/*.jsonl merge=union" in (tmp_path / ".graphctx" / ".gitattributes").read_text()


def test_file_streams_skip_a_damaged_line_and_keep_the_rest(tmp_path, caplog):
    repo = FileWorkRepository(tmp_path)
    repo.append("runs", Event(kind="start", subject="r-1", agent="ann", at=now()))
    path = tmp_path / ".graphctx" / "runs" / "ann.jsonl"
    path.write_text(path.read_text() + "not json\n", encoding="utf-8")
    repo.append("runs", Event(kind="start", subject="r-2", agent="ann", at=now()))
    assert [e.subject for e in repo.events("runs")] == ["r-1", "r-2"]
    assert "line 2" in caplog.text and "not an event" in caplog.text


def test_distinct_names_never_share_a_file():
    assert file_name("ann") == "ann"
    assert len({file_name(n) for n in ("a/b", "a_b", "a:b", "a b")}) == 4
