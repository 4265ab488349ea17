"""The one compact-text rendering of coordination answers (tasks, claims, runs, agents, the board,
peers, session state, skills, review items), which the CLI prints and the MCP tools return, so both read the same."""

from __future__ import annotations

from datetime import datetime

from graphctx.coord.models import AgentProfile, BoardEntry, Claim, Peer, Run, SessionState, Skill, SkillProposal, Task, now
from graphctx.coord.sessions import SessionWork
from graphctx.coord.review import ReviewItem, ReviewQueue
from graphctx.coord.skills import SkillInfo, diff
from graphctx.coord.sync import Conflict, SyncStatus

MAX_LISTED_FILES = 10


def ago(seconds: float) -> str:
    seconds = max(0, int(seconds))
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{seconds // size} {unit} ago"
    return f"{seconds} s ago"


def since(at: datetime) -> str:
    return ago((now() - at).total_seconds())


def until(at: datetime) -> str:
    return f"{at:%H:%M:%S} UTC (in {ago((at - now()).total_seconds()).removesuffix(' ago')})"


def task_line(task: Task, claim: Claim | None = None) -> str:
    line = f"{task.id} [p{task.priority} {task.status}] {task.title}"
    if claim is not None and claim.live():
        line += f" (claimed by {claim.agent} until {until(claim.expires_at)})"
    if task.depends_on:
        line += f" (depends on {', '.join(task.depends_on)})"
    return line


def task_text(task: Task, claim: Claim | None = None) -> str:
    lines = [task_line(task, claim), f"version {task.version}, created by {task.created_by or '?'} {since(task.created_at)}"]
    if task.description:
        lines += ["", task.description.strip(), ""]
    if task.entities:
        lines.append("entities: " + ", ".join(task.entities))
    if task.files:
        lines.append("files: " + ", ".join(task.files))
    lines.append("history:")
    lines += [f"  {t.at:%Y-%m-%d %H:%M:%S} {t.previous or '-'} -> {t.status} by {t.by or '?'}"
              + (f": {t.reason}" if t.reason else "") for t in task.history]
    return "\n".join(lines)


def claimed(task: Task, claim: Claim) -> str:
    return f"claimed {task.id} {task.title!r} for {claim.agent} until {until(claim.expires_at)}; status {task.status}"


def run_line(run: Run) -> str:
    state = f"{run.outcome} {since(run.ended_at)}" if run.ended_at else f"open, started {since(run.started_at)}"
    about = " ".join(part for part in (f"task {run.task_id}" if run.task_id else "",
                                       f"ticket {run.ticket}" if run.ticket else "") if part)
    failures = f", {len(run.failures)} failure{'s' if len(run.failures) != 1 else ''}" if run.failures else ""
    return f"{run.id} {run.agent} [{state}{failures}]" + (f" {about}" if about else "")


def run_text(run: Run) -> str:
    lines = [run_line(run)]
    if run.summary:
        lines.append(f"summary: {run.summary}")
    if run.tokens is not None:
        lines.append(f"tokens: {run.tokens:,}")
    git = ", ".join(f"{k} {v}" for k, v in (("branch", run.branch), ("head", (run.head or "")[:12]), ("pr", run.pr)) if v)
    if git:
        lines.append(f"git: {git}")
    if run.files_touched:
        shown = run.files_touched[:MAX_LISTED_FILES]
        more = len(run.files_touched) - len(shown)
        lines.append("files touched: " + ", ".join(shown) + (f" and {more} more" if more else ""))
    lines += [f"failure {f.at:%H:%M:%S}: {f.error}" + (f" ({f.detail})" if f.detail else "") for f in run.failures]
    return "\n".join(lines)


def agent_line(agent: AgentProfile) -> str:
    caps = f" can: {', '.join(agent.capabilities)}" if agent.capabilities else ""
    return f"{agent.name}" + (f" ({agent.model})" if agent.model else "") + caps + f"; registered {since(agent.registered_at)}"


def peer_text(peer: Peer) -> str:
    how = f"{peer.via} {peer.task_id}" if peer.task_id else peer.via
    return f"{peer.agent} ({how}, {ago(peer.seconds_ago)}) on {', '.join(peer.on)}"


def peers_line(peers: list[Peer]) -> str:
    return "peers: " + "; ".join(peer_text(p) for p in peers) if peers else ""


def board_line(entry: BoardEntry) -> str:
    state = "in" if entry.checked_in else "out"
    about = " ".join(p for p in (f"task {entry.task_id}" if entry.task_id else "",
                                 f"issue {entry.issue}" if entry.issue else "") if p)
    return f"{entry.agent} checked {state} {since(entry.at)}" + (f" on {about}" if about else "") + (
        f": {entry.note}" if entry.note else "")


def state_text(state: SessionState) -> str:
    lines = [f"session of {state.agent} ended {since(state.ended_at)}" + (f": {state.summary}" if state.summary else "")]
    if state.current_task:
        lines.append(f"current task: {state.current_task}")
    lines += [f"blocker: {b}" for b in state.blockers]
    if state.learned:
        lines.append("learned (records): " + ", ".join(state.learned))
    return "\n".join(lines)


def session_lines(work: SessionWork) -> list[str]:
    """The coordination section of session_init, most important first (the budget cuts from the end)."""
    lines = [f"## Your work ({work.agent}, scope {work.scope})"]
    if work.last_state is not None:
        lines += state_text(work.last_state).splitlines()
    elif work.scope in ("resume", "full"):
        lines.append("no earlier session of yours was saved (session_end saves one)")
    if work.last_state is not None and work.changed_since is None:
        lines.append("changed since your last session: unknown (git cannot tell here: no repository, or that commit "
                     "is gone)")
    if work.changed_since is not None:
        shown = work.changed_since[:MAX_LISTED_FILES]
        more = len(work.changed_since) - len(shown)
        lines.append(f"changed since your last session: {', '.join(shown) or 'nothing'}" + (f" and {more} more" if more else ""))
    lines += [f"claim: {c.task_id} until {until(c.expires_at)}" for c in work.claims] or ["claims: none"]
    lines += [f"open run: {run_line(r)}" for r in work.open_runs]
    if work.peers:
        lines.append(peers_line(work.peers))
    lines += [f"board: {board_line(b)}" for b in work.board]
    if work.ready:
        lines.append("ready to claim:")
        lines += [f"  {task_line(t)}" for t in work.ready]
    if work.open_tasks:
        lines.append("open tasks:")
        lines += [f"  {task_line(t)}" for t in work.open_tasks]
    if work.recent_runs:
        lines.append("recent runs:")
        lines += [f"  {run_line(r)}" for r in work.recent_runs]
    if work.agents:
        lines.append("agents: " + "; ".join(agent_line(a) for a in work.agents))
    lines += [f"flagged skill: {skill_line(i)}: improve it (skills propose) or remove it" for i in work.flagged_skills]
    return lines


# ---- skills

def skill_line(info: SkillInfo) -> str:
    rated = f", rated {info.average:.1f} by {info.ratings}" if info.ratings else ""
    flag = " FLAGGED" if info.flagged else ""
    proposals = f", {info.open_proposals} open proposal{'s' * (info.open_proposals != 1)}" if info.open_proposals else ""
    return f"{info.skill.name}{flag}: {info.skill.description} (v{info.skill.version}, used {info.uses}x{rated}{proposals})"


def skill_text(info: SkillInfo) -> str:
    """A skill whole, as an agent reads it to follow it: its line, its ratings' comments, the Markdown."""
    lines = [skill_line(info)]
    lines += [f"rating {r.rating} by {r.agent}: {r.comment}" for r in info.recent_ratings if r.comment]
    return "\n".join([*lines, "", info.skill.body]) if info.skill.body else "\n".join(lines)


def proposal_line(p: SkillProposal) -> str:
    state = p.status if p.status == "open" else f"{p.status} by {p.resolved_by}"
    return f"{p.id} [{state}] skill {p.skill} by {p.agent} {since(p.created_at)}: {p.rationale} ({p.diff_summary})"


def proposal_text(p: SkillProposal, current: Skill | None) -> str:
    lines = [proposal_line(p)]
    if p.resolution:
        lines.append(f"resolution: {p.resolution}")
    if p.description:
        lines.append(f"new description: {p.description}")
    if current is None or p.status != "open":
        lines.append("the skill is gone; the proposed content:" if current is None else "the proposed content:")
        return "\n".join([*lines, p.content])
    return "\n".join([*lines, f"diff against v{current.version}:", diff(current.body, p.content, p.skill).rstrip()])


# ---- review

def review_counts(queue: ReviewQueue) -> str:
    parts = ", ".join(f"{n} {reason}" for reason, n in queue.counts.items() if n) or "nothing"
    return f"review queue: {len(queue.items)} items ({parts}); {queue.decided} decided so far"


def hypothesis_status(hit) -> str:
    return next((t.removeprefix("status-") for t in hit.tags if t.startswith("status-")), "open")


def hypotheses_text(candidates: list, found: list, status: str | None) -> str:
    """The hypothesize loop's state: synthesis records to draw from, then the hypotheses."""
    noun = "hypothesis" if len(found) == 1 else "hypotheses"
    return "\n".join([f"{len(candidates)} synthesis record(s) to draw hypotheses from:",
                      *(f"  {h.id} {h.title}" for h in candidates),
                      f"{len(found)} {noun}" + (f" ({status})" if status else "") + ":",
                      *(f"  {h.id} [{hypothesis_status(h)}] {h.title}" for h in found)])


def review_line(item: ReviewItem) -> str:
    return f"{item.id} [{item.reason}] {' | '.join(item.titles)}"


def review_item_text(item: ReviewItem) -> str:
    """One item as a reviewer needs it: what, why (the evidence) and the decisions it takes."""
    lines = [review_line(item), *(f"  {line}" for line in item.evidence),
             f"decide: {', '.join(item.decisions)} (review decide {item.id} DECISION)"]
    return "\n".join(lines)


# ---- sync

def sync_status_text(status: SyncStatus) -> str:
    where = f"{status.branch or '(detached)'}" + (f" -> {status.upstream}" if status.upstream else " (no upstream)")
    lines = [f"{where}: {status.ahead} ahead, {status.behind} behind"]
    lines.append(f"team memory not committed: {len(status.changed)} file(s)" if status.changed
                 else "team memory: all committed")
    lines += [f"  {path}" for path in status.changed[:MAX_LISTED_FILES]]
    if status.merging:
        lines.append(f"merging: {len(status.conflicts)} conflicted file(s)" + (": sync show FILE, sync resolve FILE, "
                                                                              "sync finalize" if status.conflicts else
                                                                              ": sync finalize commits it"))
        lines += [f"  {path}" for path in status.conflicts]
    return "\n".join(lines)


def conflict_text(conflict: Conflict) -> str:
    lines = [f"{conflict.path}: conflicting: {', '.join(conflict.conflicting) or 'nothing (resolve to settle it)'}",
             "how each part merges:", *(f"  {line}" for line in conflict.analysis)]
    for name, text in (("base", conflict.base), ("ours", conflict.ours), ("theirs", conflict.theirs)):
        lines += [f"--- {name}", text.rstrip() if text is not None else "(absent)"]
    return "\n".join(lines)
