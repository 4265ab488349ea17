"""Working together, the use cases (graphctx.coord.WorkStore) on the files and in memory: the task
state machine and its refusals, dependencies, exclusive claims with leases that expire and renew,
runs that are never rewritten (with git facts read from a real repository), the activity board,
peers, and session state with resume."""

from __future__ import annotations

import subprocess
import time

import pytest

from graphctx.coord import WorkStore
from graphctx.coord.memory import MemoryWorkRepository
from graphctx.errors import GraphctxError, InvalidRequest, NotFound


def git(root, *args):
    subprocess.run(["git", "-C", str(root), "-c", "user.name=dev", "-c", "user.email=dev@example.com", *args],
                   check=True, capture_output=True)


@pytest.fixture
def git_repo(tmp_path):
    root = tmp_path / "repo"
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "m.py").write_text("def a():\n    return 1\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    return root


@pytest.fixture(params=["files", "memory"])
def work(request, git_repo):
    return WorkStore(git_repo) if request.param == "files" else WorkStore(None, MemoryWorkRepository())


def test_state_machine_and_its_refusals(work):
    t = work.tasks
    task = t.create("Fix the cart", by="ann")
    assert task.status == "pending" and task.id.startswith("t-")
    with pytest.raises(InvalidRequest, match="cannot go from pending to done; from pending it may go to in_progress, blocked"):
        t.transition(task.id, "done", "ann")
    t.claim(task.id, "ann")
    assert t.get(task.id).status == "in_progress"
    with pytest.raises(GraphctxError, match="claimed by ann until .*only the holder may move it to done"):
        t.transition(task.id, "done", "bob")
    assert t.transition(task.id, "blocked", "ann", "waiting for review").status == "blocked"
    assert t.holder(task.id) is None  # blocking ends the lease
    with pytest.raises(InvalidRequest, match="from blocked it may go to pending"):
        t.transition(task.id, "in_progress", "ann")
    t.transition(task.id, "pending", "ann", "review came")
    t.claim(task.id, "bob")
    done = t.transition(task.id, "done", "bob", "shipped")
    with pytest.raises(InvalidRequest, match="done is final; create a new task"):
        t.transition(task.id, "pending", "bob")
    with pytest.raises(GraphctxError, match="is done, so it cannot be claimed"):
        t.claim(task.id, "ann")
    assert [(h.previous, h.status, h.by, h.reason) for h in done.history] == [
        (None, "pending", "ann", "created"), ("pending", "in_progress", "ann", "claimed"),
        ("in_progress", "blocked", "ann", "waiting for review"), ("blocked", "pending", "ann", "review came"),
        ("pending", "in_progress", "bob", "claimed"), ("in_progress", "done", "bob", "shipped")]
    with pytest.raises(InvalidRequest, match="unknown status 'don' \\(did you mean 'done'\\?\\)"):
        t.transition(task.id, "don", "bob")


def test_failed_tasks_are_retried(work):
    t = work.tasks
    task = t.create("Flaky", by="ann")
    t.claim(task.id, "ann")
    t.transition(task.id, "failed", "ann", "tests time out")
    assert t.transition(task.id, "pending", "bob", "retry").status == "pending"
    assert t.list(ready=True)[0].id == task.id


def test_dependencies_must_be_done_before_a_claim(work):
    t = work.tasks
    schema = t.create("Schema", by="ann")
    api = t.create("API", by="ann", depends_on=[schema.id], priority=1)
    with pytest.raises(GraphctxError, match=f"cannot be claimed until its dependencies are done: {schema.id} 'Schema' \\(pending\\)"):
        t.claim(api.id, "bob")
    assert [x.id for x in t.list(ready=True)] == [schema.id]
    t.claim(schema.id, "ann")
    t.transition(schema.id, "done", "ann")
    assert [x.id for x in t.list(ready=True)] == [api.id]
    t.claim(api.id, "bob")
    with pytest.raises(NotFound, match="no dependency has the id 't-missing'"):
        t.create("Docs", by="ann", depends_on=["t-missing"])
    with pytest.raises(InvalidRequest, match="would make a cycle"):
        t.update(schema.id, by="ann", depends_on=[api.id])


def test_a_claim_is_exclusive_until_its_lease_ends(work):
    t = work.tasks
    task = t.create("Cache", by="ann")
    _, first = t.claim(task.id, "ann", lease_seconds=1)
    with pytest.raises(GraphctxError, match=f"task {task.id} is claimed by ann until "):
        t.claim(task.id, "bob")
    _, renewed = t.claim(task.id, "ann", lease_seconds=1)  # the holder renews
    assert renewed.claimed_at == first.claimed_at and renewed.expires_at >= first.expires_at
    time.sleep(1.2)
    assert t.holder(task.id) is None
    _, taken = t.claim(task.id, "bob", lease_seconds=60)  # an expired lease holds nothing
    assert taken.agent == "bob" and t.list(agent="bob")[0].id == task.id and t.list(agent="ann") == []
    with pytest.raises(InvalidRequest, match="a lease must be between 1 and 86400 seconds"):
        t.claim(task.id, "bob", lease_seconds=0)


def test_release_gives_the_task_back(work):
    t = work.tasks
    task = t.create("Docs", by="ann")
    t.claim(task.id, "ann")
    with pytest.raises(GraphctxError, match="claimed by ann, not bob; only the holder releases it"):
        t.release(task.id, "bob")
    assert t.release(task.id, "ann", "no time").status == "pending"
    with pytest.raises(GraphctxError, match="is not claimed by anyone now"):
        t.release(task.id, "ann")


def test_updates_and_bad_input(work):
    t = work.tasks
    task = t.create("  Index   speed ", by="ann", entities=["a.py::f", "a.py::f"])
    assert task.title == "Index speed" and task.entities == ["a.py::f"]
    updated = t.update(task.id, by="ann", priority=1, files=["a.py"])
    assert (updated.priority, updated.files, updated.version) == (1, ["a.py"], 2)
    with pytest.raises(InvalidRequest, match="priority must be between 1 \\(most urgent\\) and 5; got 9"):
        t.update(task.id, by="ann", priority=9)
    with pytest.raises(InvalidRequest, match="no editable field 'statuss'"):
        t.update(task.id, by="ann", statuss="done")
    with pytest.raises(InvalidRequest, match="a task needs a title"):
        t.create("  ", by="ann")
    with pytest.raises(NotFound) as found:
        t.get(task.id[:-1])
    assert task.id in found.value.suggestions[0]


def test_runs_are_append_only(work):
    task = work.tasks.create("Cache", by="ann")
    run = work.start_run("ann", task_id=task.id, ticket="#17")
    work.runs.fail(run.id, "ann", "tests failed", "3 of 40")
    with pytest.raises(GraphctxError, match="only that agent may end it"):
        work.runs.end(run.id, "bob", outcome="success")
    ended = work.runs.end(run.id, "ann", outcome="partial", summary="half", tokens=1200, files_touched=["b.py", "a.py"])
    assert (ended.outcome, ended.summary, ended.tokens, ended.files_touched) == ("partial", "half", 1200, ["a.py", "b.py"])
    assert [f.error for f in ended.failures] == ["tests failed"]
    events = work.repo.events("runs")
    with pytest.raises(GraphctxError, match="runs are never rewritten: start a new run"):
        work.runs.end(run.id, "ann", outcome="success")
    with pytest.raises(GraphctxError, match="never rewritten"):
        work.runs.fail(run.id, "ann", "late")
    assert work.repo.events("runs") == events  # a refused write appends nothing
    assert work.runs.get(run.id) == ended
    with pytest.raises(NotFound, match="no task has the id"):
        work.start_run("ann", task_id="t-nope")
    with pytest.raises(InvalidRequest, match="outcome must be one of success, partial, failure, abandoned"):
        work.runs.end(work.start_run("ann").id, "ann", outcome="great")
    assert [r.id for r in work.runs.list(open_only=True)] != [] and work.runs.list(task_id=task.id) == [ended]


def test_run_end_reads_git_facts(git_repo, monkeypatch):
    work = WorkStore(git_repo)
    run = work.start_run("ann")
    (git_repo / "shop" / "m.py").write_text("def a():\n    return 2\n")
    (git_repo / "shop" / "new.py").write_text("x = 1\n")
    git(git_repo, "add", "shop/m.py")
    git(git_repo, "commit", "-qm", "change")
    monkeypatch.setenv("GITHUB_REF", "refs/pull/42/merge")
    ended = work.runs.end(run.id, "ann", outcome="success")
    head = subprocess.run(["git", "-C", str(git_repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert (ended.branch, ended.head, ended.pr) == ("main", head, "42")
    assert ended.files_touched == ["shop/m.py", "shop/new.py"]
    lines = (git_repo / ".graphctx" / "runs" / "ann.jsonl").read_text().splitlines()
    assert [line.split('"kind":"')[1].split('"')[0] for line in lines] == ["start", "end"]


def test_board_and_peers(work):
    t = work.tasks
    cart = t.create("Cart", by="ann", entities=["shop/cart.py::Cart.add"], files=["shop/cart.py"])
    t.claim(cart.id, "ann")
    assert work.peers(["shop/cart.py::Cart.total"], me="bob")[0].model_dump(exclude={"seconds_ago"}) == {
        "agent": "ann", "via": "claim", "on": ["shop/cart.py::Cart.add", "shop/cart.py"], "task_id": cart.id}
    assert work.peers(["shop/cart.py::Cart.add"], me="ann") == []  # never yourself
    assert work.peers(["shop/other.py::f"], me="bob") == []
    work.note_served("carol", ["shop/pay.py::pay"])
    assert [p.via for p in work.peers(["shop/pay.py::pay"], me="bob")] == ["context"]
    run = work.start_run("dave", task_id=cart.id)
    assert {p.agent for p in work.peers(files=["shop/cart.py"], me="bob")} == {"ann", "dave"}
    work.runs.end(run.id, "dave", outcome="success", files_touched=[])
    assert {p.agent for p in work.peers(me="bob")} == {"ann", "carol"}  # anywhere
    work.team.check_in("ann", task_id=cart.id, issue="#17", note="on the cart")
    with pytest.raises(InvalidRequest, match="bob is not checked in"):
        work.team.check_out("bob")
    work.team.check_in("bob")
    work.team.check_out("bob", "lunch")
    assert [(b.agent, b.checked_in, b.task_id) for b in work.team.board()] == [("ann", True, cart.id), ("bob", False, None)]


def test_session_end_then_resume(git_repo):
    from graphctx.records import RecordStore

    work, records = WorkStore(git_repo), RecordStore(git_repo, author="dev")
    task = work.tasks.create("Cart", by="ann")
    work.tasks.claim(task.id, "ann")
    run = work.start_run("ann", task_id=task.id)
    state = work.session_end("ann", records=records, summary="half way", learned=["totals are cached per cart"],
                             current_task=task.id, blockers=["needs a review"])
    assert records.get(state.learned[0]).body.strip() == "totals are cached per cart"
    assert records.get(state.learned[0]).author == "ann"
    (git_repo / "shop" / "m.py").write_text("def a():\n    return 3\n")
    resumed = work.session_start("ann", "resume")
    assert (resumed.last_state.summary, resumed.last_state.current_task, resumed.last_state.blockers) == (
        "half way", task.id, ["needs a review"])
    assert resumed.changed_since == ["shop/m.py"]
    assert [c.task_id for c in resumed.claims] == [task.id] and [r.id for r in resumed.open_runs] == [run.id]
    assert work.session_start("ann", "quick").last_state is None  # quick: only claims and runs
    assert [e.kind for e in work.sessions.history("ann")] == ["end", "start", "start"]
    with pytest.raises(InvalidRequest, match="scope must be one of quick, standard, resume, full"):
        work.session_start("ann", "everything")
    with pytest.raises(NotFound):
        work.session_end("ann", records=records, current_task="t-nope")
