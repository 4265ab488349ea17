"""Skills: SKILL.md files (a name and a description saying when to use it, then Markdown) the team
keeps for one kind of work, with usage events, 1-5 ratings with comments and improvement proposals
(the full new content, a rationale, a diff summary) that another decision accepts or rejects. A skill
rated at least twice with an average under 3 is flagged, and session_init shows it so someone fixes it."""

from __future__ import annotations

import difflib
import re
from pydantic import BaseModel, Field

from graphctx.coord.errors import InvalidRequest, NotFound, WorkConflict
from graphctx.coord.files import parse_skill
from graphctx.coord.models import Event, Skill, SkillProposal, new_id, now
from graphctx.coord.repository import WorkRepository

NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_BODY = 200_000
MAX_COMMENT = 2000
FLAG_MIN_RATINGS = 2
FLAG_BELOW = 3.0


class Rating(BaseModel):
    agent: str
    rating: int
    comment: str = ""
    at: str


class SkillInfo(BaseModel):
    """A skill as listed: its usage and ratings, whether it is flagged, and its open proposals."""

    skill: Skill
    uses: int = 0
    ratings: int = 0
    average: float | None = None
    flagged: bool = False
    open_proposals: int = 0
    recent_ratings: list[Rating] = Field(default_factory=list)


def check_skill_name(name: str | None) -> str:
    text = (name or "").strip()
    if not NAME.match(text) or len(text) > MAX_NAME:
        raise InvalidRequest(f"skill name {text!r} is invalid: use lower-case letters, digits and hyphens "
                             f"(at most {MAX_NAME}), e.g. 'release-checklist'")
    return text


def _description(text: str | None) -> str:
    line = " ".join((text or "").split())
    if not line:
        raise InvalidRequest("a skill needs a description saying what it does and when to use it")
    if len(line) > MAX_DESCRIPTION:
        raise InvalidRequest(f"a skill description has at most {MAX_DESCRIPTION} characters; got {len(line)}: shorten it")
    return line


def _body(text: str | None) -> str:
    body = (text or "").replace("\r\n", "\n").strip("\n").rstrip()
    if len(body) > MAX_BODY:
        raise InvalidRequest(f"a skill has at most {MAX_BODY:,} characters; got {len(body):,}: split it into skills")
    return body


def from_skill_md(text: str, where: str = "SKILL.md") -> tuple[str, str, str]:
    """(name, description, body) of a SKILL.md's text (front matter, then Markdown)."""
    skill = parse_skill(text, where)
    return skill.name, skill.description, skill.body


def diff(old: str, new: str, name: str) -> str:
    """The unified diff from the current SKILL.md body to a proposed one."""
    return "".join(difflib.unified_diff((old + "\n").splitlines(True), (new + "\n").splitlines(True),
                                        f"a/skills/{name}/SKILL.md", f"b/skills/{name}/SKILL.md"))


def diff_stat(old: str, new: str) -> str:
    lines = diff(old, new, "x").splitlines()[2:]
    added = sum(1 for line in lines if line.startswith("+"))
    removed = sum(1 for line in lines if line.startswith("-"))
    return f"+{added} -{removed} lines"


class Skills:
    def __init__(self, repo: WorkRepository):
        self.repo = repo

    # ---- reading

    def get(self, name: str) -> Skill:
        skill = self.repo.get_skill((name or "").strip())
        if skill is None:
            raise self._unknown(name)
        return skill

    def info(self, name: str, recent: int = 5) -> SkillInfo:
        skill = self.get(name)
        return self._info(skill, self._events().get(skill.name, []), recent)

    def list(self, *, flagged_only: bool = False) -> list[SkillInfo]:
        events = self._events()
        found = [self._info(s, events.get(s.name, []), 0) for s in self.repo.skills()]
        return sorted((i for i in found if i.flagged or not flagged_only), key=lambda i: i.skill.name)

    def flagged(self) -> list[SkillInfo]:
        return self.list(flagged_only=True)

    def _events(self) -> dict[str, list[Event]]:
        by_skill: dict[str, list[Event]] = {}
        for event in self.repo.events("skill_events"):
            by_skill.setdefault(event.subject, []).append(event)
        return by_skill

    def _info(self, skill: Skill, events: list[Event], recent: int) -> SkillInfo:
        # Usage and ratings count since the skill last changed: a rewrite starts its ratings afresh.
        current = [e for e in events if e.at >= skill.updated_at]
        ratings = [Rating(agent=e.agent, rating=e.data["rating"], comment=e.data.get("comment", ""),
                          at=e.at.isoformat(timespec="seconds")) for e in current if e.kind == "rated"]
        average = round(sum(r.rating for r in ratings) / len(ratings), 2) if ratings else None
        flagged = len(ratings) >= FLAG_MIN_RATINGS and average is not None and average < FLAG_BELOW
        return SkillInfo(skill=skill, uses=sum(1 for e in current if e.kind == "used"), ratings=len(ratings),
                         average=average, flagged=flagged,
                         open_proposals=sum(1 for p in self.repo.proposals(skill.name) if p.status == "open"),
                         recent_ratings=ratings[-recent:] if recent else [])

    # ---- writing

    def add(self, name: str, description: str, body: str = "", *, by: str) -> Skill:
        name, description, body = check_skill_name(name), _description(description), _body(body)
        at = now()
        with self.repo.transaction():
            if self.repo.get_skill(name) is not None:
                raise WorkConflict(f"skill {name} exists already; propose a change to it (skills propose) or remove it first")
            return self.repo.put_skill(Skill(name=name, description=description, body=body, author=by,
                                             created_at=at, updated_at=at), None)

    def add_markdown(self, name: str | None, description: str | None, content: str, *, by: str) -> Skill:
        """Add a skill from SKILL.md text: a leading front matter gives the name and description where
        the arguments do not (and must agree with them where both do)."""
        if content.lstrip("\ufeff").startswith("---\n"):
            found_name, found_description, content = from_skill_md(content)
            if name and found_name and name.strip() != found_name:
                raise InvalidRequest(f"the name given ({name.strip()}) differs from the SKILL.md's ({found_name}); "
                                     "give one or make them agree")
            name, description = name or found_name, description or found_description
        return self.add(name or "", description or "", content, by=by)

    def remove(self, name: str) -> Skill:
        with self.repo.transaction():
            skill = self.get(name)
            self.repo.drop_skill(skill.name, skill.version)
            return skill

    def use(self, name: str, agent: str, note: str = "") -> SkillInfo:
        skill = self.get(name)
        self.repo.append("skill_events", Event(kind="used", subject=skill.name, agent=agent, at=now(),
                                               data={"note": note.strip()} if note.strip() else {}))
        return self.info(skill.name)

    def rate(self, name: str, agent: str, rating: int, comment: str = "") -> SkillInfo:
        if not isinstance(rating, int) or isinstance(rating, bool) or not 1 <= rating <= 5:
            raise InvalidRequest(f"a rating is a whole number from 1 (useless) to 5 (excellent); got {rating!r}")
        if len(comment) > MAX_COMMENT:
            raise InvalidRequest(f"a rating comment has at most {MAX_COMMENT} characters; got {len(comment)}")
        skill = self.get(name)
        self.repo.append("skill_events", Event(kind="rated", subject=skill.name, agent=agent, at=now(),
                                               data={"rating": rating, "comment": " ".join(comment.split())}))
        return self.info(skill.name)

    # ---- proposals

    def propose(self, name: str, agent: str, content: str, rationale: str, *, diff_summary: str = "",
                description: str | None = None) -> SkillProposal:
        skill = self.get(name)
        content = _body(content)
        if not rationale or not rationale.strip():
            raise InvalidRequest("a proposal needs a rationale: why the new content is better")
        new_description = _description(description) if description else None
        if content == skill.body and new_description in (None, skill.description):
            raise InvalidRequest(f"the proposal changes nothing: its content is skill {skill.name}'s as it stands")
        proposal = SkillProposal(id=new_id("p-"), skill=skill.name, agent=agent, content=content,
                                 description=new_description, rationale=" ".join(rationale.split()),
                                 diff_summary=" ".join(diff_summary.split()) or diff_stat(skill.body, content),
                                 base_version=skill.version, created_at=now())
        return self.repo.put_proposal(proposal, None)

    def proposal(self, proposal_id: str) -> SkillProposal:
        found = self.repo.get_proposal((proposal_id or "").strip())
        if found is None:
            known = [p.id for p in self.repo.proposals()]
            close = difflib.get_close_matches(proposal_id or "", known, n=3, cutoff=0.5)
            hint = f"did you mean {', '.join(close)}? " if close else ""
            raise NotFound(f"no skill proposal {proposal_id!r}; {hint}skills proposals lists them")
        return found

    def proposals(self, skill: str | None = None, status: str | None = "open") -> list[SkillProposal]:
        if status not in (None, "open", "accepted", "rejected"):
            raise InvalidRequest(f"a proposal status is open, accepted or rejected; got {status!r}")
        if skill:
            skill = self.get(skill).name
        found = [p for p in self.repo.proposals(skill) if status is None or p.status == status]
        return sorted(found, key=lambda p: p.created_at)

    def resolve(self, proposal_id: str, agent: str, accept: bool, reason: str = "") -> tuple[SkillProposal, Skill | None]:
        """Accept (the skill takes the proposed content, one version on) or reject a proposal. A proposal
        written against an older version of the skill is refused: propose again against the current text."""
        with self.repo.transaction():
            proposal = self.proposal(proposal_id)
            if proposal.status != "open":
                raise WorkConflict(f"proposal {proposal.id} is {proposal.status} already (by {proposal.resolved_by}); "
                                   "only an open proposal can be resolved")
            skill = None
            if accept:
                current = self.get(proposal.skill)
                if current.version != proposal.base_version:
                    raise WorkConflict(f"skill {current.name} changed since proposal {proposal.id} was written (version "
                                       f"{current.version}, not {proposal.base_version}); reject it and propose again")
                skill = self.repo.put_skill(current.model_copy(update={
                    "body": proposal.content, "description": proposal.description or current.description,
                    "version": current.version + 1, "updated_at": now()}), current.version)
            resolved = proposal.model_copy(update={
                "status": "accepted" if accept else "rejected", "resolved_by": agent, "resolved_at": now(),
                "resolution": " ".join(reason.split()), "version": proposal.version + 1})
            return self.repo.put_proposal(resolved, proposal.version), skill

    def _unknown(self, name: str | None) -> NotFound:
        known = [s.name for s in self.repo.skills()]
        close = difflib.get_close_matches((name or "").strip(), known, n=3, cutoff=0.5)
        hint = f"did you mean {', '.join(close)}? " if close else ""
        where = "skills list shows them" if known else "none exists yet: add one with skills add"
        return NotFound(f"no skill named {name!r}; {hint}{where}")
