"""`graphctx skills add|list|get|remove|use|rate|propose|proposals|resolve`: the CLI twin of the `skills`
MCP tool, over Project.work.skills and printed by the same renderer. Content comes from a file or
standard input (`-`); exit 1 when a listing is empty, 2 on a refusal or input to fix."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from graphctx.cli.work import action_groups, listing, open_project, show
from graphctx.errors import InvalidRequest


def register(command: Callable[..., argparse.ArgumentParser]) -> None:
    action = action_groups(command, {"skills": "the team's SKILL.md how-tos: add, list, get, remove, use, rate, "
                                               "propose, proposals, resolve"})
    p = action("skills", "add", skills_add, "add a skill from a SKILL.md (its front matter names it) or Markdown")
    p.add_argument("file", type=Path, nargs="?", help="the SKILL.md or Markdown file (- reads standard input)")
    p.add_argument("--name", help="the skill's name (default: the front matter's)")
    p.add_argument("--description", help="what it does and when to use it (default: the front matter's)")
    p = action("skills", "list", skills_list, "skills with usage, ratings and flags (exit 1 when none)")
    p.add_argument("--flagged", action="store_true", help="only skills rated 2+ times averaging under 3")
    p = action("skills", "get", skills_get, "one skill, to follow it")
    p.add_argument("name")
    p = action("skills", "remove", skills_remove, "remove a skill (its proposals stay)")
    p.add_argument("name")
    p = action("skills", "use", skills_use, "report that you used a skill")
    p.add_argument("name")
    p.add_argument("--note", default="")
    p = action("skills", "rate", skills_rate, "rate a skill from 1 (useless) to 5 (excellent)")
    p.add_argument("name")
    p.add_argument("rating", type=int, choices=range(1, 6), metavar="RATING")
    p.add_argument("--comment", default="")
    p = action("skills", "propose", skills_propose, "propose new content for a skill, with why")
    p.add_argument("name")
    p.add_argument("file", type=Path, help="the full new Markdown (- reads standard input)")
    p.add_argument("--rationale", required=True)
    p.add_argument("--diff-summary", default="")
    p.add_argument("--description", help="a new description")
    p = action("skills", "proposals", skills_proposals, "proposals, oldest first (exit 1 when none)")
    p.add_argument("name", nargs="?")
    p.add_argument("--status", choices=("open", "accepted", "rejected", "all"), default="open")
    p = action("skills", "show-proposal", skills_show_proposal, "one proposal with its diff against the skill")
    p.add_argument("proposal_id", metavar="PROPOSAL")
    p = action("skills", "resolve", skills_resolve, "accept or reject a proposal")
    p.add_argument("proposal_id", metavar="PROPOSAL")
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--accept", action="store_true")
    group.add_argument("--reject", action="store_true")
    p.add_argument("--reason", default="")


def _read(path: Path | None) -> str:
    if path is None or str(path) == "-":
        if path is None and sys.stdin.isatty():
            raise InvalidRequest("give the SKILL.md file, or - to read it from standard input")
        return sys.stdin.read()
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidRequest(f"cannot read {path} ({exc.__class__.__name__}); give a readable UTF-8 file") from None


def skills_add(args) -> int:
    project, me = open_project(args)
    skill = project.work.skills.add_markdown(args.name, args.description, _read(args.file), by=me)
    show(args, skill, f"added skill {skill.name}")
    return 0


def skills_list(args) -> int:
    project, _ = open_project(args)
    empty = "no skill is flagged" if args.flagged else "no skill yet; add one with `graphctx skills add SKILL.md`"
    return listing(args, project.work.skills.list(flagged_only=args.flagged), project.work_text.skill_line, empty)


def skills_get(args) -> int:
    project, _ = open_project(args)
    info = project.work.skills.info(args.name)
    show(args, info, project.work_text.skill_text(info))
    return 0


def skills_remove(args) -> int:
    project, _ = open_project(args)
    skill = project.work.skills.remove(args.name)
    show(args, skill, f"removed skill {skill.name} (v{skill.version})")
    return 0


def skills_use(args) -> int:
    project, me = open_project(args)
    info = project.work.skills.use(args.name, me, args.note)
    show(args, info, project.work_text.skill_line(info))
    return 0


def skills_rate(args) -> int:
    project, me = open_project(args)
    info = project.work.skills.rate(args.name, me, args.rating, args.comment)
    show(args, info, project.work_text.skill_line(info))
    return 0


def skills_propose(args) -> int:
    project, me = open_project(args)
    proposal = project.work.skills.propose(args.name, me, _read(args.file), args.rationale,
                                           diff_summary=args.diff_summary, description=args.description)
    show(args, proposal, f"proposed {project.work_text.proposal_line(proposal)}")
    return 0


def skills_proposals(args) -> int:
    project, _ = open_project(args)
    found = project.work.skills.proposals(args.name, None if args.status == "all" else args.status)
    return listing(args, found, project.work_text.proposal_line, "no proposal matches")


def skills_show_proposal(args) -> int:
    project, _ = open_project(args)
    proposal = project.work.skills.proposal(args.proposal_id)
    current = project.work.repo.get_skill(proposal.skill)
    show(args, proposal, project.work_text.proposal_text(proposal, current))
    return 0


def skills_resolve(args) -> int:
    project, me = open_project(args)
    proposal, _ = project.work.skills.resolve(args.proposal_id, me, args.accept, args.reason)
    show(args, proposal, project.work_text.proposal_line(proposal))
    return 0
