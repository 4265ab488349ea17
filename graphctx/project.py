"""The one library face: `Project(root)` offers every capability of graphctx as a method over one
repository, and owns what those capabilities share there: the index connections, the loaded graph
and the record store. The CLI, the MCP server and the benchmark call it and nothing else.

    >>> from graphctx import Project
    >>> with Project(".") as project:
    ...     answer, text = project.context("resolve_entity")
    ...     print(text)
"""

from __future__ import annotations

import importlib
import threading
from functools import cached_property
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphctx.context.tokens import count as count_tokens
from graphctx.coord import traces
from graphctx.errors import GraphctxError
from graphctx.graph.loader import GraphCache
from graphctx.index import store as index_store
from graphctx.index.root import find_root
from graphctx.memory_verbs import MemoryVerbs
from graphctx.package_facts import PackageFacts
from graphctx.models import DEFAULT_BUDGET

if TYPE_CHECKING:
    from graphctx.models import ContextAnswer, DocumentAnswer, EntityEdges, IndexStats, ProjectFacts, SearchAnswer
    from graphctx.coord import WorkStore
    from graphctx.context.policy import RankingPolicy
    from graphctx.freshness import Freshness
    from graphctx.graph.loader import CodeGraph
    from graphctx.index.indexer import IndexResult, Progress
    from graphctx.index.keeper import TableKeeper
    from graphctx.records import RecordStore

# What a command needs is imported when it runs: a one-shot command (a context answer) then loads
# the ranking and packing code, not the indexer, the records or the coordination store it never uses,
# and a server can answer the MCP handshake before any of it is loaded.
def _api():
    from graphctx.context import api

    return api


class _Module:
    """A class attribute that is a module, imported on first use."""

    def __init__(self, name: str):
        self.name = name

    def __get__(self, instance: object, owner: type) -> Any:
        return importlib.import_module(self.name)


class Project(MemoryVerbs, PackageFacts):
    """One repository, by its root folder (or any folder inside it: the root is found the way the
    CLI finds it). A context manager: `close()` releases its index connections and record store.

    `ephemeral=True` (the default, for a long-lived process such as the MCP server) keeps this
    process's ephemeral records and the hashes of entities served to it; a short command passes
    False, and writing an ephemeral record is then refused, since it would vanish at once."""

    def __init__(self, root: Path | str | None = None, *, ephemeral: bool = True, find: bool = True,
                 storage: Any = None) -> None:
        self.root = (find_root(Path(root) if root is not None else None) if find else Path(root or ".")).resolve()
        self.ephemeral = ephemeral
        self.storage = storage  # a project of the team store (open_team_store): records and work kept there
        self._graphs = GraphCache(self.root)
        self._kept_symbols: TableKeeper | None = None
        self._records: RecordStore | None = None
        self._work: WorkStore | None = None
        self._freshness: Freshness | None = None
        self._lock = threading.Lock()
        self._closed = False

    def __repr__(self) -> str:
        return f"Project({str(self.root)!r})"

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the index connections and the record store this project opened; a later call
        opens them again."""
        with self._lock:
            if self._records is not None:
                self._records.close()
            self._records = None
            if self._work is not None:
                self._work.close()
            self._work = None
            self._graphs.close()
            if self._kept_symbols is not None:
                self._kept_symbols.clear()

    @property
    def kept_symbols(self) -> TableKeeper:
        """The last index run's symbol table, for this project's next run."""
        with self._lock:
            if self._kept_symbols is None:
                from graphctx.index.keeper import TableKeeper

                self._kept_symbols = TableKeeper()
            return self._kept_symbols

    # ---- the index

    def index(self, *, full: bool = False, progress: Progress | None = None, verify: bool = False) -> IndexResult:
        """Build or update the index (incremental; `full` rebuilds, `verify` checks an existing file first).
        A long-lived project keeps the run's symbol table for its next run; a short command has none."""
        from graphctx.index.indexer import index_repository  # (not through the answering code: `graphctx index` needs none)

        keeper = self.kept_symbols if self.ephemeral else None
        return index_repository(self.root, full=full, progress=progress, verify=verify, keeper=keeper)

    def refresh(self) -> IndexResult:
        """Bring an existing index up to date with the working tree; a missing index is an error."""
        return _api().refresh(self.root, keeper=self.kept_symbols)

    def prepare_folder(self) -> None:
        """Create `.graphctx/` with the .gitignore that keeps the index, private records and derived
        files out of git."""
        from graphctx.records.files import ensure_layout

        ensure_layout(self.root)

    def has_index(self) -> bool:
        """Whether an index file exists (usable or not)."""
        return index_store.index_path(self.root).exists()

    def index_usable(self, thorough: bool = True) -> bool:
        """Whether the index file exists and passes the check: its tables and version, and with
        `thorough` every page read."""
        return index_store.usable(index_store.index_path(self.root), thorough=thorough)

    @property
    def graph(self) -> CodeGraph:
        """The loaded graph of the current index generation (reloaded when the index moved)."""
        return self._graphs.get()

    @property
    def freshness(self) -> Freshness:
        """The keeper of fresh answers: changes marked, index runs, files an answer names checked."""
        with self._lock:
            if self._freshness is None:
                from graphctx.freshness import Freshness

                self._freshness = Freshness(self)
            return self._freshness

    def changed_files(self, paths: Iterable[str] | None = None) -> list[str]:
        """The indexed files (among `paths`, default all) whose content on disk differs from the index."""
        return self.freshness.check(self.graph.files if paths is None else paths)[0]

    def facts(self) -> ProjectFacts:
        """What the project is (name, overview), its size and entry points: cheap, no graph load (nor
        the answering code: a server tells them in its `initialize` answer)."""
        from graphctx.context.facts import project_facts

        return project_facts(self.root, self._graphs.connection())

    def stats(self) -> IndexStats:
        return _api().stats(self._graphs)

    # ---- lookups

    def search(self, query: str, kind: str | None = None, limit: int = 20, mode: str = "name") -> SearchAnswer:
        return _api().search(self._graphs, query, kind, limit, mode)

    def show(self, entity: str, file: str | None = None) -> EntityEdges:
        return _api().show(self._graphs, entity, file)

    # ---- answers: each returns the answer model and its rendering in the format asked for

    def context(self, entity: str, *, agent: str | None = None, learner: str | None = None, task_id: str | None = None,
                helpful: bool | None = None, about: list[str] | None = None, **options: Any) -> tuple[ContextAnswer, str]:
        """An entity with its most relevant neighbourhood within `token_budget` (see get_context), with
        the other agents active on that code (`agent` is who asks: noted as served, left out of peers).
        `task_id` boosts what that task is about; `helpful` is feedback on the last answer for this entity
        to the asker (`learner`, else `agent`), which the ranking learns from (see Feedback)."""
        from graphctx.teaching import Teaching

        teach = Teaching(self, "context", entity, learner or agent, options.get("intent"), task_id, helpful, about)
        return teach.answer(lambda opts: self._shared(lambda budget: _api().get_context(
            self._graphs, entity, records=self._answer_records(), **{**opts, "token_budget": budget}), agent, opts), options)

    def intent(self, intent: str, target: str, *, agent: str | None = None, learner: str | None = None,
               task_id: str | None = None, helpful: bool | None = None, about: list[str] | None = None,
               **options: Any) -> tuple[ContextAnswer, str]:
        from graphctx.teaching import Teaching

        teach = Teaching(self, f"intent/{intent}", target, learner or agent, intent, task_id, helpful, about)
        return teach.answer(lambda opts: self._shared(lambda budget: _api().get_intent(
            self._graphs, intent, target, records=self._answer_records(), **{**opts, "token_budget": budget}),
            agent, opts), options)

    def feedback(self, reset: bool = False):
        """What feedback taught the ranking here (FeedbackView); `reset` forgets it first."""
        return self.work.feedback.reset() if reset else self.work.feedback.view()

    def _shared(self, pack, agent: str | None, options: Mapping[str, Any]) -> tuple[ContextAnswer, str]:
        """An answer with its peers line, noted as served to `agent`; plain where nothing was ever
        coordinated here and no agent asks."""
        budget, fmt = options.get("token_budget", DEFAULT_BUDGET), options.get("format", "compact")
        answered = self._peered(pack, agent, budget, fmt)
        if self.ephemeral:  # a long-lived process: ranking's compiled products pay off from its next answer
            from graphctx.graph.transition import accelerate_in_background

            accelerate_in_background()
        return answered

    def _peered(self, pack, agent: str | None, budget: int, fmt: str) -> tuple[ContextAnswer, str]:
        if agent is None and self.storage is None and not traces.has_activity(self.root):
            return pack(budget)  # nothing coordinated here: no peers, and no work store to load

        def peers_of(answer: ContextAnswer):
            ids = [item.id for item in answer.items]
            if agent:
                self.work.note_served(agent, ids)
            me = agent or self.work.agent_from_environment()  # from the CLI: $GRAPHCTX_AGENT is not its own peer
            return self.work.peers(ids, [item.path for item in answer.items], me=me) if ids else []

        from graphctx.context import teamwork

        return teamwork.with_peers(pack, budget, fmt, peers_of)

    def path(self, source: str, target: str, **options: Any) -> tuple[ContextAnswer, str]:
        return _api().get_path(self._graphs, source, target, **options)

    def file(self, file: str, **options: Any) -> tuple[ContextAnswer, str]:
        return _api().get_file_context(self._graphs, file, **options)

    def document(self, file: str, *, view: str = "outline", heading: str | None = None,
                 format: str = "compact") -> tuple[DocumentAnswer, str]:
        """A repository Markdown document's outline, one section, or its tables."""
        from graphctx.context import documents

        return documents.read_document(self._graphs, file, view=view, heading=heading, format=format)

    def impact(self, symbol: str | None = None, files: list[str] | None = None, **options: Any) -> tuple[ContextAnswer, str]:
        return _api().get_impact(self._graphs, symbol, files, **options)

    def session(self, *, token_budget: int = DEFAULT_BUDGET, format: str = "compact", scope: str | None = None,
                agent: str | None = None) -> tuple[ContextAnswer, str]:
        """The onboarding packet; for an agent (or with a `scope`), opened by its coordination section:
        claims, open runs, peers, ready tasks, and with scope=resume its last state and what changed since."""
        def pack(budget: int) -> tuple[ContextAnswer, str]:
            return _api().session_init(self._graphs, records=self._answer_records(), token_budget=budget, format=format)

        if scope is None and agent is None:
            return pack(token_budget)
        from graphctx.context import teamwork
        from graphctx.context.engine import check_request

        check_request(token_budget, format)
        work = self.work.session_start(self.agent_name(agent), scope or "standard")
        return teamwork.with_work(pack, work, token_budget, format)

    def rank_text(self, text: str, **options: Any) -> list:
        """Entities for free text, best first, by `policy`, else the intent's configured policy."""
        if "policy" not in options:  # (a caller's own policy needs no configuration read)
            options["policy"] = self.configured_policy(options.get("intent", "debug"))
        return _api().rank_text(self._graphs, text, **options)

    def rank_text_features(self, text: str, **options: Any) -> tuple[list[str], Any]:
        """(the best candidates for free text by the hand-set blend, their learned-ranker feature matrix)."""
        if "policy" not in options:
            options["policy"] = self.configured_policy(options.get("intent", "debug"))
        return _api().rank_text_features(self._graphs, text, **options)

    def asides(self, text: str, intent: str = "debug") -> set[str]:
        """The files ranking sets aside for `text`: tests, documents and docs/examples/benchmarks files
        it does not name. The retrieval benchmark's baselines leave them out, as graphctx scales them down."""
        from graphctx.context.seeds import asides

        return asides(self.graph, self.issue_text.read(self.graph, text), Project.policy(intent).seeds)

    def export(self, fmt: str = "json", **options: Any):
        """(Selection, text): the graph or a neighbourhood as node-link JSON, GraphML, Mermaid or HTML."""
        return _api().export(self._graphs, fmt, **options)

    def members(self, entity_id: str) -> list[str]:
        """The entities defined directly inside a class (or a file), in line order."""
        from graphctx.context.views import Views

        return Views(self.graph).members(entity_id)

    # ---- helpers that need no repository: the same tokenizer, parser and policies answers use

    # The one renderer of records (records/render.py): the CLI and the MCP record tools print through it.
    record_text = _Module("graphctx.records.render")
    # How ranking reads free text (`issue_text.read`): the benchmark's baselines read it the same way.
    issue_text = _Module("graphctx.context.issuetext")

    @staticmethod
    def header(answer: ContextAnswer) -> str:
        """The first line of an answer's compact text: subject, mode, budget use, completeness."""
        from graphctx.context.render import header

        return header(answer)

    @staticmethod
    def count_tokens(text: str) -> int:
        """Tokens in `text` by the tokenizer every budget is counted with."""
        return count_tokens(text)

    @staticmethod
    def policy(intent: str, settings: Iterable[str] = ()) -> RankingPolicy:
        """The intent's ranking policy changed by `settings` ("group.name=value"); pass it as `policy=`
        to rank_text and the answers."""
        return _api().with_overrides(_api().policy_for(intent), tuple(settings))

    def configured_policy(self, intent: str | None = None) -> RankingPolicy:
        """The intent's ranking policy with this repository's `[ranking]` settings (.graphctx/config.toml):
        what its answers rank by unless a caller passes a policy of its own."""
        from graphctx import configfile

        api = _api()
        policy, table = api.policy_for(intent), configfile.table(self.root, "ranking")
        try:
            return api.with_overrides(policy, api.table_settings(table))
        except GraphctxError as exc:
            raise configfile.ConfigError(f"{configfile.config_path(self.root)}: [ranking] {exc}") from None

    # ---- working together: tasks, claims, runs, agents, peers, session state (graphctx.coord)

    work_text = _Module("graphctx.coord.render")  # the one renderer of coordination answers, for the CLI and the MCP tools

    @property
    def work(self) -> WorkStore:
        """Tasks, runs, agents and sessions of this repository, opened on first use."""
        with self._lock:
            if self._work is None:
                from graphctx.coord import WorkStore

                self._work = WorkStore(self.root, self.storage.work_repository() if self.storage else None)
            return self._work

    def session_end(self, agent: str | None = None, **state: Any):
        """Save an agent's session state (summary, current_task, blockers) and turn `learned` into
        knowledge records signed by it."""
        return self.work.session_end(self.agent_name(agent), records=self.records, **state)

    # ---- the team server: its store, and federation with the other projects it hosts

    @cached_property
    def federation(self):
        """This project's links to other projects' graphs (graphctx.federation.Federation), kept with it."""
        from graphctx.federation import Federation

        return Federation(self)

    @staticmethod
    def open_team_store(url: str, *, migrate: bool = True):
        """The team server's PostgreSQL store (teamstore.storage.TeamStore); `.project(key)` is a Project's storage."""
        from graphctx.teamstore.storage import TeamStore

        return TeamStore(url, migrate=migrate)

    def agent_name(self, agent: str | None = None) -> str:
        """Who acts: the name given, else $GRAPHCTX_AGENT, else the records' author ($GRAPHCTX_AUTHOR or
        the git user); an error saying how to name one when there is none."""
        from graphctx.coord import WorkStore

        return WorkStore.agent(agent or WorkStore.agent_from_environment() or self.records.author or None)

    # ---- records

    @property
    def records(self) -> RecordStore:
        """The record store, opened on first use; the answers use it too, so that the records anchored
        to what they rank, and the hashes they served, are this project's."""
        with self._lock:
            if self._records is None:
                from graphctx.records import RecordStore

                self._records = RecordStore(self.root, holds_ephemeral=self.ephemeral, repositories=(
                    self.storage.record_repositories(holds_ephemeral=self.ephemeral) if self.storage else None))
            return self._records

    def _answer_records(self) -> RecordStore | None:
        """The store answers draw records from and note served code in: always for a long-lived
        (ephemeral) project; for a short command only when there are records to draw, as opening
        the store costs more than an answer without records."""
        if self.ephemeral or self._records is not None or self._may_have_records():
            return self.records
        return None

    def _may_have_records(self) -> bool:
        from graphctx.context.anchored import may_have_records

        return may_have_records(self.root)
