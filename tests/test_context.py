"""The context engine on a small project with known answers: every mode, its parameters, bad
input, and the budget invariant as a property over random projects, queries and budgets."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphctx import Project
from graphctx.context.tokens import count
from graphctx.errors import Ambiguous, InvalidRequest, NotFound
from graphctx.index.indexer import index_repository

PROJECT = {
    "app/__init__.py": "",
    "app/models.py": '''
        """Storage models."""


        class Repo:
            """Keeps items."""

            def save(self, item):
                """Store one item."""
                self._write(item)

            def _write(self, item):
                print(item)


        class CachedRepo(Repo):
            def save(self, item):
                super().save(item)
    ''',
    "app/service.py": '''
        from app.models import Repo


        def create_item(name):
            """Validate and store a new item."""
            repo = Repo()
            repo.save(name)
            return validate(name)


        def validate(name):
            if not name:
                raise ValueError("empty name")
            return name
    ''',
    "app/api.py": '''
        from app.service import create_item


        def handle(request):
            return create_item(request)
    ''',
    "app/memory.py": '''
        from app.models import Repo


        class MemoryRepo(Repo):
            def _write(self, item):
                self.items = [item]
    ''',
    "app/unrelated.py": '''
        def lonely():
            return 1
    ''',
    "tests/test_service.py": '''
        from app.service import create_item


        def test_create_item():
            assert create_item("x") == "x"
    ''',
}


def write_project(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = write_project(tmp_path_factory.mktemp("project"), PROJECT)
    index_repository(root)
    return root


def ids(answer) -> list[str]:
    return [item.id for item in answer.items]


def test_context_ranks_the_neighbourhood(repo):
    answer, text = Project(repo, find=False).context("create_item")
    assert answer.root == "app/service.py::create_item"
    assert ids(answer)[0] == answer.root and answer.items[0].detail == "full"
    relations = {item.id: item.relation for item in answer.items}
    assert relations["app/api.py::handle"] == "called-by"
    assert relations["app/service.py::validate"] == "calls"
    assert relations["app/models.py::Repo.save"] == "calls"  # through `repo = Repo()`
    assert "tests/test_service.py::test_create_item" in relations
    assert "app/unrelated.py::lonely" not in relations
    assert "def create_item(name):" in text and answer.tokens_used == count(text)
    assert answer.total_candidates >= len(answer.items) and answer.generation >= 1


def test_context_depth_limits_hops(repo):
    near, _ = Project(repo, find=False).context("handle", depth=1)
    far, _ = Project(repo, find=False).context("handle", depth=3)
    assert "app/models.py::Repo.save" not in ids(near)
    assert "app/models.py::Repo.save" in ids(far)
    assert all(item.distance <= 1 for item in near.items)


def test_exclude_inferred_edges(repo):
    answer, _ = Project(repo, find=False).context("create_item", depth=1, include_inferred=False)
    assert "app/models.py::Repo.save" not in ids(answer)  # reached only through an inferred edge
    assert "app/service.py::validate" in ids(answer)


def test_detail_levels(repo):
    summary, _ = Project(repo, find=False).context("create_item", detail_level="summary")
    assert {item.detail for item in summary.items} <= {"summary", "line"}
    neighbors, _ = Project(repo, find=False).context("create_item", detail_level="neighbors")
    assert neighbors.items[0].detail == "full"
    assert {item.detail for item in neighbors.items[1:]} <= {"summary", "line"}


def test_known_hash_gives_a_short_unchanged_answer(repo):
    shown = Project(repo, find=False).show("create_item")
    answer, text = Project(repo, find=False).context("create_item", known_hash=shown.entity.body_hash)
    assert any("unchanged" in note for note in answer.notes)
    assert "def create_item" not in text and len(answer.items) == 1


def test_json_format_is_the_answer_model(repo):
    answer, text = Project(repo, find=False).context("create_item", format="json", token_budget=600)
    data = json.loads(text)
    assert data["root"] == "app/service.py::create_item" and data["tokens_used"] == count(text) <= 600
    assert {"items", "omitted", "truncated", "total_candidates", "generation"} <= set(data)


def test_small_budget_degrades_before_dropping(repo):
    answer, text = Project(repo, find=False).context("create_item", token_budget=150)
    assert count(text) <= 150 and answer.truncated
    assert answer.items and answer.items[0].id == "app/service.py::create_item"


def test_a_candidate_listed_twice_leaves_out_neither_copy_once_chosen(repo):
    """The omitted count is of the candidates left out: a chosen entity listed twice (no ranking lists
    one twice, but a caller's list may) is left out in neither place."""
    from graphctx.context.engine import new_answer
    from graphctx.context.packer import Candidate, pack
    from graphctx.context.views import Views

    g = Project(repo, find=False).graph
    ids = sorted(n for n in g.nodes if g.nodes[n]["kind"] in ("function", "method"))[:8]
    candidates = [Candidate(i, 1.0 - k / 10, "calls", 1) for k, i in enumerate(ids)] + [Candidate(ids[0], 0.1, "calls", 2)]
    answer, _ = pack(new_answer(g, "context", ids[0], ids[0], 130), candidates, Views(g), "compact", "cl100k_base")
    chosen = {item.id for item in answer.items}
    left_out = [c.id for c in candidates if c.id not in chosen]
    assert ids[0] in chosen and len(answer.items) < len(ids)
    assert answer.omitted_count == len(left_out) and [o.id for o in answer.omitted] == left_out[:len(answer.omitted)]


def test_names_ids_and_file_filter(repo):
    assert Project(repo, find=False).context("app/models.py::Repo.save")[0].root == "app/models.py::Repo.save"
    assert Project(repo, find=False).context("Repo.save")[0].root == "app/models.py::Repo.save"
    assert Project(repo, find=False).context("app.service.create_item")[0].root == "app/service.py::create_item"
    with pytest.raises(Ambiguous) as ambiguous:
        Project(repo, find=False).context("save")
    assert set(ambiguous.value.suggestions) == {"app/models.py::Repo.save", "app/models.py::CachedRepo.save"}


def test_unknown_name_suggests(repo):
    with pytest.raises(NotFound) as missing:
        Project(repo, find=False).context("creat_item")
    assert "app/service.py::create_item" in missing.value.suggestions


@pytest.mark.parametrize(
    "kwargs",
    [{"token_budget": 10}, {"token_budget": 10**9}, {"depth": -1}, {"format": "xml"}, {"intent": "dance"},
     {"detail_level": "everything"}],
)
def test_malformed_parameters(repo, kwargs):
    with pytest.raises(InvalidRequest):
        Project(repo, find=False).context("create_item", **kwargs)


def test_intent_on_entity_modify_brings_callers_and_tests(repo):
    answer, _ = Project(repo, find=False).intent("modify", "create_item")
    top = ids(answer)[:4]
    assert "app/api.py::handle" in top and "tests/test_service.py::test_create_item" in top


def test_intent_on_free_text_finds_the_seeds(repo):
    text = 'Saving fails: Traceback\n  File "app/models.py", line 9, in save\nValueError from `validate`'
    answer, _ = Project(repo, find=False).intent("debug", text)
    assert answer.root is None
    top = ids(answer)[:5]
    assert "app/models.py::Repo.save" in top and "app/service.py::validate" in top


# Text shapes that made a backtracking pattern quadratic: runs with no separator a path could end at.
HOSTILE_SHAPES = ("a", "a.", "a/", ".py", "-", "1", "\\a", "aB", 'File "', "```a\n", "a::", "`")


@pytest.mark.parametrize("shape", HOSTILE_SHAPES)
def test_a_megabyte_of_hostile_text_is_answered_from_a_bounded_part(repo, shape):
    text = "Saving fails in `validate` " + shape * (1_000_000 // len(shape)) + ' File "app/models.py", line 9, in save'
    answer, _ = Project(repo, find=False).intent("debug", text, token_budget=1000)
    assert any("seeds came from its first 16,000 and last 4,000" in note for note in answer.notes)
    assert len(answer.query) <= 120 and answer.tokens_used <= 1000
    assert "app/models.py::Repo.save" in ids(answer)  # the innermost frame closes the text


def test_intent_on_file_path_and_plan(repo):
    answer, _ = Project(repo, find=False).intent("plan", "app/service.py")
    assert answer.root == "app/service.py"
    assert answer.items[0].kind == "file"


def test_unknown_intent_and_empty_target(repo):
    with pytest.raises(InvalidRequest):
        Project(repo, find=False).intent("dance", "create_item")
    with pytest.raises(InvalidRequest):
        Project(repo, find=False).intent("debug", "   ")


def test_path_along_a_known_chain(repo):
    answer, text = Project(repo, find=False).path("handle", "Repo._write")
    assert ids(answer) == [
        "app/api.py::handle", "app/service.py::create_item", "app/models.py::Repo.save", "app/models.py::Repo._write",
    ]
    assert "def _write" in text


def test_path_without_a_chain_says_how_far_each_side_reaches(repo):
    answer, _ = Project(repo, find=False).path("lonely", "handle")
    assert "no call chain" in answer.notes[0] and "reaches 0 entities" in answer.notes[0]


def test_file_context_orders_by_line_and_truncates(repo):
    answer, _ = Project(repo, find=False).file("app/models.py")
    assert ids(answer) == [
        "app/models.py", "app/models.py::Repo", "app/models.py::Repo.save", "app/models.py::Repo._write",
        "app/models.py::CachedRepo", "app/models.py::CachedRepo.save",
    ]
    assert answer.items[2].text.splitlines() == ["def save(self, item)", "  Store one item."]
    small, text = Project(repo, find=False).file("models.py", token_budget=100)
    assert small.truncated and count(text) <= 100 and small.total_candidates == 6
    assert ids(small) == ids(answer)[: len(small.items)]


def test_file_context_refuses_paths_outside_the_repository(repo):
    with pytest.raises(InvalidRequest):
        Project(repo, find=False).file("../../etc/passwd")
    with pytest.raises(NotFound):
        Project(repo, find=False).file("app/nothing.py")


def test_impact_tiers(repo):
    answer, _ = Project(repo, find=False).impact("Repo.save")
    tiers = {item.id: item.relation.split()[0] for item in answer.items[1:]}
    assert tiers["app/service.py::create_item"] == "tier1"
    assert tiers["app/models.py::CachedRepo.save"] == "tier1"
    assert tiers["app/api.py::handle"] == "tier3"  # transitive: it calls create_item
    assert tiers["tests/test_service.py::test_create_item"] == "tier2"  # tests, at any distance
    assert list(tiers.values()) == sorted(tiers.values())
    assert "app/unrelated.py::lonely" not in tiers


def test_impact_of_files(repo):
    answer, _ = Project(repo, find=False).impact(files=["app/service.py"])
    found = ids(answer)
    assert "app/api.py::handle" in found and "tests/test_service.py::test_create_item" in found
    with pytest.raises(InvalidRequest):
        Project(repo, find=False).impact()


def test_search_ranks_exact_then_prefix(repo):
    hits = Project(repo, find=False).search("create").hits
    assert hits[0].id == "app/service.py::create_item"
    assert Project(repo, find=False).search("Repo", kind="class").hits[0].id == "app/models.py::Repo"


# ---- the budget invariant, over random projects, queries and budgets

names = st.sampled_from(["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"])


@st.composite
def projects(draw):
    modules = draw(st.integers(1, 4))
    files, defined = {}, []
    for m in range(modules):
        body = []
        for name in draw(st.lists(names, min_size=1, max_size=5, unique=True)):
            callees = draw(st.lists(st.sampled_from(defined) if defined else names, max_size=3))
            lines = draw(st.integers(1, 30))
            calls = "".join(f"    {c}()\n" for c in callees)
            filler = "".join(f"    x{i} = {i} * {i}  # filler line {i}\n" for i in range(lines))
            body.append(f"def {name}():\n    \"\"\"Does {name}.\"\"\"\n{calls}{filler}")
            defined.append(name)
        files[f"pkg/mod{m}.py"] = "\n\n".join(body)
    return files


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=projects(), budget=st.integers(100, 3000), fmt=st.sampled_from(["compact", "json"]),
       mode=st.sampled_from(["context", "intent", "file", "impact"]), data=st.data())
def test_answers_never_exceed_their_budget(tmp_path_factory, files, budget, fmt, mode, data):
    root = write_project(tmp_path_factory.mktemp("random"), files)
    index_repository(root)
    g = Project(root, find=False).graph
    entity = data.draw(st.sampled_from(sorted(n for n in g.graph.nodes if "::" in n)))
    if mode == "context":
        answer, text = Project(root, find=False).context(entity, token_budget=budget, format=fmt, depth=data.draw(st.integers(0, 4)))
    elif mode == "intent":
        query = data.draw(st.sampled_from([entity, "why does alpha call beta", "fix gamma in pkg/mod0.py"]))
        answer, text = Project(root, find=False).intent(data.draw(st.sampled_from(["modify", "debug", "plan"])), query,
                                      token_budget=budget, format=fmt)
    elif mode == "file":
        answer, text = Project(root, find=False).file(entity.split("::")[0], token_budget=budget, format=fmt)
    else:
        answer, text = Project(root, find=False).impact(entity, token_budget=budget, format=fmt)
    assert count(text) <= budget
    assert answer.tokens_used == count(text)
    assert answer.omitted_count == answer.total_candidates - len(answer.items)


def test_methods_bring_their_overrides(repo):
    answer, _ = Project(repo, find=False).intent("modify", "Repo._write", depth=1)
    relations = {item.id: item.relation for item in answer.items}
    assert relations["app/memory.py::MemoryRepo._write"] == "overridden-by"
    base, _ = Project(repo, find=False).context("MemoryRepo._write", depth=1)
    assert {item.id: item.relation for item in base.items}["app/models.py::Repo._write"] == "overrides"


def test_loaded_graph_equals_networkx_built_one(repo):
    import networkx as nx

    g = Project(repo, find=False).graph.graph
    rebuilt = nx.MultiDiGraph()
    rebuilt.add_nodes_from(g.nodes(data=True))
    rebuilt.add_edges_from(g.edges(keys=True, data=True))
    assert nx.utils.graphs_equal(g, rebuilt)
    assert all(d["kind"] == k for _, _, k, d in g.edges(keys=True, data=True))
    assert set(g.predecessors("app/service.py::create_item")) >= {"app/api.py::handle"}


def test_answers_carry_the_records_anchored_to_their_code(tmp_path):
    root = write_project(tmp_path, PROJECT)
    index_repository(root)
    project = Project(root, find=False)
    project.context("validate")  # serves validate: the record below anchors to what was seen
    store = project.records
    store.decide("Names are never empty", "validate() rejects empty names with ValueError",
                 anchors=["app/service.py::validate"])
    store.remember(title="Repo writes go through _write", body="Subclasses override _write, never save.",
                   type="convention", category="storage", anchors=["app/models.py::Repo"])
    answer, text = Project(root, find=False).context("create_item")
    records = [item for item in answer.items if item.relation == "record"]
    assert {r.kind for r in records} == {"decision", "knowledge"}
    assert "decision [accepted] Names are never empty (anchors fresh)" in text
    (root / "app/service.py").write_text((root / "app/service.py").read_text().replace("empty name", "no name"))
    index_repository(root)
    _, text = Project(root, find=False).context("create_item")
    assert "Names are never empty (anchors drifted)" in text
    answer, text = Project(root, find=False).context("create_item", token_budget=200)
    assert count(text) <= 200


def test_stale_only_when_the_content_changed(tmp_path):
    import os

    root = write_project(tmp_path, PROJECT)
    index_repository(root)
    service = root / "app/service.py"
    os.utime(service, ns=(1, 1))  # touched: new stat, same bytes
    answer, _ = Project(root, find=False).context("create_item")
    assert not answer.items[0].stale
    service.write_text(service.read_text() + "\n# edited\n")
    answer, text = Project(root, find=False).context("create_item")
    assert answer.items[0].stale and "(file changed since indexing)" in text


def test_every_intent_has_a_weight_table_and_a_shape():
    from graphctx.context.intents import INTENTS, SHAPES, WEIGHTS

    assert tuple(WEIGHTS) == INTENTS == tuple(SHAPES)


TEXT_PROJECT = {
    # Three functions about invoices in one file; one lucky mention elsewhere; a test that echoes it all.
    "billing/invoices.py": '''
        def total_invoice(invoice):
            """Sum the invoice lines with their tax."""
            return sum(line.amount * (1 + line.tax) for line in invoice.lines)


        def round_invoice(invoice):
            """Round the invoice total to cents."""
            return round(total_invoice(invoice), 2)


        def print_invoice(invoice):
            """Print the invoice lines."""
            for line in invoice.lines:
                print(line)
    ''',
    "billing/mail.py": '''
        def send_reminder(customer):
            """Mail a reminder about an invoice total that was not paid."""
            return customer.email
    ''',
    "tests/test_invoices.py": '''
        from billing.invoices import total_invoice


        def test_invoice_total_with_tax_rounds_invoice_lines():
            """The invoice total sums the invoice lines with tax and rounds the invoice."""
            assert total_invoice(None) == 0
    ''',
    "billing/report.py": "def yearly_report(invoices):\n    \"\"\"Invoice totals per year.\"\"\"\n"
                          + "".join(f"    year_{i} = sum(i.total for i in invoices)  # invoice total\n" for i in range(120))
                          + "    return invoices\n",
}


@pytest.fixture(scope="module")
def text_repo(tmp_path_factory) -> Path:
    root = write_project(tmp_path_factory.mktemp("text"), TEXT_PROJECT)
    index_repository(root)
    return root


def test_free_text_ranks_code_above_the_tests_that_echo_it(text_repo):
    ranked = [e for e, _ in Project(text_repo, find=False).rank_text("The invoice total is wrong when invoice lines have tax")]
    assert ranked.index("billing/invoices.py::total_invoice") < ranked.index(
        "tests/test_invoices.py::test_invoice_total_with_tax_rounds_invoice_lines")


def test_a_file_that_matches_in_several_places_lifts_its_functions(text_repo):
    from graphctx.context.blend import blend
    from graphctx.context.policy import BlendPolicy
    from graphctx.context.seeds import TextEvidence
    from graphctx.graph.loader import GraphCache

    g = GraphCache(text_repo).get()
    policy = BlendPolicy()
    own_text, file_text, file_named = policy.own_text, policy.file_text, policy.file_named
    scores_of = {"billing/invoices.py::total_invoice": 0.6, "billing/invoices.py::round_invoice": 0.6,
                 "billing/invoices.py::print_invoice": 0.6, "billing/mail.py::send_reminder": 1.0}
    found = TextEvidence("some text", text_scores=dict(scores_of))
    found.named_in_file["billing/mail.py"] = 3.0  # saturates at one
    walk = {"billing/invoices.py::total_invoice": 2.0, "billing/report.py::yearly_report": 1.0}
    scores = blend(g, found, walk, policy)
    assert scores["billing/invoices.py::round_invoice"] == pytest.approx(own_text * 0.6 + file_text * 0.6)
    assert scores["billing/mail.py::send_reminder"] == pytest.approx(own_text + file_text / 3 + file_named)
    assert scores["billing/invoices.py::total_invoice"] == pytest.approx(1.0 + own_text * 0.6 + file_text * 0.6)
    assert scores["billing/report.py::yearly_report"] == pytest.approx(0.5)  # the walk alone, relative to its best
    test = "tests/test_invoices.py::test_invoice_total_with_tax_rounds_invoice_lines"
    found.text_scores[test] = 1.0
    assert blend(g, found, walk, policy)[test] == pytest.approx(policy.aside * (own_text + file_text / 3))
    named = TextEvidence("see tests/test_invoices.py", text_scores=found.text_scores)
    assert blend(g, named, walk, policy)[test] == pytest.approx(own_text + file_text / 3)  # named


def test_after_the_first_item_a_long_body_comes_as_its_summary(text_repo):
    text = "yearly invoice totals report"
    answer, _ = Project(text_repo, find=False).intent("debug", text, token_budget=4000)
    assert answer.items[0].id == "billing/report.py::yearly_report" and answer.items[0].detail == "full"
    # Put a short function first: the long one would now take over half of what is left, so it is summarised.
    answer, _ = Project(text_repo, find=False).intent("debug", "round the invoice total to cents; yearly report", token_budget=1400)
    details = {item.id: item.detail for item in answer.items}
    assert details["billing/invoices.py::round_invoice"] == "full"
    assert details["billing/report.py::yearly_report"] == "summary"
