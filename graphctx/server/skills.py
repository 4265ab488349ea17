"""The `skills` tool: the team's SKILL.md files and how they fare, grouped by an `action` (add, list,
get, remove, use, rate, propose, proposals, resolve), acting as the session's agent over
Project.work.skills and answering in the text the CLI prints (structured content for format=json)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult
from pydantic import Field

from graphctx.server.records import as_json
from graphctx.server.work import AgentId, Fmt, acting, check_action, listed, tool_adder

SKILL_ARGS = {
    "add": {"name", "description", "content"},
    "list": {"flagged"},
    "get": {"name"},
    "remove": {"name"},
    "use": {"name", "note"},
    "rate": {"name", "rating", "comment"},
    "propose": {"name", "content", "description", "rationale", "diff_summary"},
    "proposals": {"name", "status", "proposal_id"},
    "resolve": {"proposal_id", "accept", "reason"},
}
REQUIRED = {("skills", "add"): ("content",), ("skills", "propose"): ("name", "content", "rationale"),
            ("skills", "rate"): ("name", "rating"), ("skills", "resolve"): ("proposal_id", "accept"),
            **{("skills", a): ("name",) for a in ("get", "remove", "use")}}


def register(server: MCPServer, state: Any) -> None:
    work = state.project.work
    text = state.project.work_text
    tool, act = tool_adder(server, state), acting(state)

    @tool
    def skills(
        ctx: Context,
        action: Annotated[Literal["add", "list", "get", "remove", "use", "rate", "propose", "proposals", "resolve"], Field(
            description="add a skill; list skills (with usage, ratings, flags); get one to follow it; remove one; use: "
                        "report that you used it; rate it 1-5 with a comment; propose an improvement; list proposals; "
                        "resolve one (accept or reject)")],
        name: Annotated[str | None, Field(description="the skill's name: lower-case words with hyphens")] = None,
        description: Annotated[str | None, Field(
            description="add, propose: what the skill does and when to use it (one line)")] = None,
        content: Annotated[str | None, Field(
            description="add: the SKILL.md Markdown (front matter with name and description may lead it); "
                        "propose: the full new Markdown")] = None,
        rating: Annotated[int | None, Field(ge=1, le=5, description="rate: 1 (useless) to 5 (excellent)")] = None,
        comment: Annotated[str, Field(description="rate: what worked or did not")] = "",
        note: Annotated[str, Field(description="use: what you used it for")] = "",
        rationale: Annotated[str | None, Field(description="propose: why the new content is better")] = None,
        diff_summary: Annotated[str, Field(description="propose: what changes, in a line (default: a line count)")] = "",
        proposal_id: Annotated[str | None, Field(
            description="resolve: the proposal's id (p-...); proposals: show that one with its diff")] = None,
        accept: Annotated[bool | None, Field(description="resolve: true accepts (the skill takes the content), "
                                                         "false rejects")] = None,
        reason: Annotated[str, Field(description="resolve: why")] = "",
        status: Annotated[Literal["open", "accepted", "rejected", "all"], Field(
            description="proposals: which (default open)")] = "open",
        flagged: Annotated[bool, Field(description="list: only skills flagged by poor ratings")] = False,
        format: Fmt = "compact",
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Skills are the team's how-tos for recurring work, kept as SKILL.md files: get one and follow it, report
        that you used it, rate it 1-5 (a skill rated twice or more averaging under 3 is flagged in session_init),
        propose an improvement with the full new content and why, and accept or reject proposals."""
        given = dict(name=name, description=description, content=content, rating=rating, comment=comment, note=note,
                     rationale=rationale, diff_summary=diff_summary, proposal_id=proposal_id, accept=accept,
                     reason=reason, flagged=flagged, status=None if status == "open" else status)

        def answer(me: str) -> CallToolResult | str:
            check_action("skills", action, SKILL_ARGS, given, REQUIRED)
            s = work.skills
            if action == "list":
                return listed(s.list(flagged_only=flagged), text.skill_line, format, "skills",
                              "no skill is flagged" if flagged else "no skill yet; add one with action=add")
            if action == "add":
                skill = s.add_markdown(name, description, content or "", by=me)
                return as_json(skill, f"added skill {skill.name}") if format == "json" else f"added skill {skill.name}"
            if action == "remove":
                skill = s.remove(name)
                return f"removed skill {skill.name} (v{skill.version})"
            if action == "proposals" and proposal_id:
                p = s.proposal(proposal_id)
                return as_json(p, text.proposal_line(p)) if format == "json" else text.proposal_text(
                    p, work.repo.get_skill(p.skill))
            if action == "proposals":
                found = s.proposals(name, None if status == "all" else status)
                return listed(found, text.proposal_line, format, "proposals", f"no {'' if status == 'all' else status + ' '}"
                              "proposal" + (f" for skill {name}" if name else ""))
            if action == "propose":
                p = s.propose(name, me, content, rationale, diff_summary=diff_summary, description=description)
                return as_json(p, text.proposal_line(p)) if format == "json" else f"proposed {text.proposal_line(p)}"
            if action == "resolve":
                p, _ = s.resolve(proposal_id, me, accept, reason)
                return as_json(p, text.proposal_line(p)) if format == "json" else text.proposal_line(p)
            if action == "use":
                info = s.use(name, me, note)
            elif action == "rate":
                info = s.rate(name, me, rating, comment)
            else:
                info = s.info(name)
            return as_json(info, text.skill_line(info)) if format == "json" else text.skill_text(info)

        return act(ctx, agent_id, answer)
