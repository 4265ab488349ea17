"""How one context request meets what the team taught the ranking (used by Project): feedback it
carries (`helpful` on the asker's last answer for the same query) is learned from first; the answer
is then ranked by the repository's configured policy (unless the caller gave its own) with the learned
multipliers and the boost of its task (`task_id`), noted for later feedback, and closed by a line
saying what was learned."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from graphctx.context import learning
from graphctx.context.tokens import count
from graphctx.coord import traces
from graphctx.errors import InvalidRequest
from graphctx.models import MIN_BUDGET, ContextAnswer

if TYPE_CHECKING:
    from graphctx.project import Project

Answered = tuple[ContextAnswer, str]


class Teaching:
    def __init__(self, project: Project, mode: str, query: str, learner: str | None, intent: str | None,
                 task_id: str | None, helpful: bool | None, about: list[str] | None):
        self.project, self.mode, self.query, self.intent = project, mode, query, intent
        self.learner, self.task_id, self.helpful, self.about = learner, task_id, helpful, about

    def answer(self, run: Callable[[dict[str, Any]], Answered], options: dict[str, Any]) -> Answered:
        if self.about and self.helpful is None:
            raise InvalidRequest("`about` names the items that helped or not: give helpful=true or false with it")
        note = self._learn() if self.helpful is not None else ""
        extra: dict[str, Any] = {}
        if "policy" not in options:  # a caller's own policy (a benchmark's) ranks as given
            extra["policy"] = self.project.configured_policy(self.intent)
            if self._may_have_learned():
                edges, signals = self.project.work.feedback.multipliers()
                if edges or signals:
                    extra["policy"] = learning.with_learned(extra["policy"], edges, signals)
        if self.task_id:
            entities, files = self.project.work.task_focus(self.task_id)
            extra["boost"] = learning.Boost(frozenset(entities), frozenset(files), task_id=self.task_id)
        opts = {**options, **extra}
        budget = options.get("token_budget")
        if note and budget is not None and budget - count(note) - 4 >= MIN_BUDGET:
            opts["token_budget"] = budget - count(note) - 4  # room for the feedback line below
        answer, text = run(opts)
        if self.learner:
            self.project.work.feedback.note_answer(self.learner, self.mode, self.query, [(i.id, i.relation) for i in answer.items])
        if note and (budget is None or count(text + note) + 4 <= budget):
            text = _with_line(text, note, options.get("format", "compact"))
        return answer, text

    def _may_have_learned(self) -> bool:
        """Whether feedback may have taught the ranking here; on files, known without loading the work store."""
        return self.project.storage is not None or traces.has_learned(self.project.root)

    def _learn(self) -> str:
        if not self.learner:
            raise InvalidRequest("helpful is feedback from whoever asked before: name the agent (agent_id, --agent "
                                 "or $GRAPHCTX_AGENT)")
        feedback = self.project.work.feedback
        noted = feedback.last_answer(self.learner, self.mode, self.query)
        text = self.query if self.mode.startswith("intent/") else None
        credit = learning.credit(self.project.graph, [tuple(i) for i in noted.items], text, self.project.configured_policy(self.intent))
        view = feedback.give(noted, self.helpful, credit, self.about)
        moved = ", ".join(f"{k} x{v:.2f}" for k, v in {**view.edges, **view.signals}.items()) or "nothing yet"
        return (f"{'helpful' if self.helpful else 'unhelpful'} noted on your answer of "
                f"{noted.at:%H:%M:%S} UTC; learned weights: {moved}")


def _with_line(text: str, line: str, fmt: str) -> str:
    if fmt == "json":
        import json

        data = json.loads(text)
        data["feedback"] = line
        return json.dumps(data, separators=(",", ":"))
    return f"{text}\nfeedback: {line}"
