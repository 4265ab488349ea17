"""The ranking policy: one frozen value per request holding every weight and limit, a default per
intent, changed copies for tuning, and proof that each part is passed down and used (seeds and
their text evidence, blend, walk, packing, edge weights), over a small project indexed for real.
Also the one BM25 query, its column weights given by the caller."""

from __future__ import annotations

import dataclasses
import json
import pickle
import textwrap
from pathlib import Path

import pytest

from graphctx import Project
from graphctx.context.blend import blend
from graphctx.context.intents import CONTEXT, CONTEXT_POLICY, DETAIL_SHAPES, SHAPES, WEIGHTS, policy_for
from graphctx.context.policy import BlendPolicy, RankingPolicy, SeedPolicy, with_overrides
from graphctx.context.seeds import from_text
from graphctx.errors import InvalidRequest
from graphctx.graph import lookup
from graphctx.graph.loader import GraphCache
from graphctx.index.indexer import index_repository
from graphctx.models import INTENTS

PROJECT = {
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
    "billing/ledger.py": '''
        def post_entry(account, amount):
            """Record a posting."""
            return account, amount


        def reconcile(statement):
            """Match a bank statement against the postings."""
            for row in statement:
                post_entry(row, 0)
    ''',
    "tests/test_invoices.py": '''
        from billing.invoices import total_invoice


        def test_invoice_total_with_tax_rounds_invoice_lines():
            """The invoice total sums the invoice lines with tax and rounds the invoice."""
            assert total_invoice(None) == 0
    ''',
}
TEXT = "The invoice total is wrong when invoice lines have tax"
TEST = "tests/test_invoices.py::test_invoice_total_with_tax_rounds_invoice_lines"


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("policy")
    for rel, text in PROJECT.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    index_repository(root)
    return root


# ---- the value

def test_each_intent_has_a_default_policy_built_from_its_documented_tables():
    for intent in INTENTS:
        policy = policy_for(intent)
        assert dict(policy.edges) == WEIGHTS[intent] and policy.shape == SHAPES[intent]
    assert policy_for(None) is CONTEXT_POLICY
    assert dict(CONTEXT_POLICY.edges) == CONTEXT and CONTEXT_POLICY.shape == DETAIL_SHAPES["full"]


def test_an_unknown_intent_is_refused_with_the_closest_one():
    with pytest.raises(InvalidRequest, match="unknown intent 'debgu'; did you mean 'debug'"):
        policy_for("debgu")


def test_a_policy_cannot_be_changed_in_place():
    policy = policy_for("debug")
    with pytest.raises(dataclasses.FrozenInstanceError):
        policy.seeds = SeedPolicy(text=9.0)  # type: ignore[misc]
    with pytest.raises(TypeError):
        policy.edges["calls"] = (0.0, 0.0)  # type: ignore[index]
    assert policy_for("debug").edges["calls"] == WEIGHTS["debug"]["calls"]


def test_overrides_change_a_copy_and_only_what_they_name():
    base = policy_for("debug")
    trial = with_overrides(base, ["seeds.text=1.5", "edges.calls=0.6,1.0", "walk.max_nodes=50", "packing.container_detail=line",
                                  "shape.files_first=true", "seeds.columns=4,1,0.5,2"])
    assert (trial.seeds.text, trial.edges["calls"], trial.walk.max_nodes) == (1.5, (0.6, 1.0), 50)
    assert (trial.packing.container_detail, trial.shape.files_first, trial.seeds.columns) == ("line", True, (4.0, 1.0, 0.5, 2.0))
    assert trial.seeds.frame == base.seeds.frame and trial.edges["tests"] == base.edges["tests"]
    assert base == policy_for("debug") and base.seeds.text == 3.0
    assert with_overrides(base, {"blend.own_text": "0.4"}).blend.own_text == 0.4


@pytest.mark.parametrize(("setting", "message"), [
    ("seeds.txt=1", "unknown policy setting 'seeds.txt'; did you mean seeds.text"),
    ("sedes.text=1", "did you mean seeds.text"),
    ("edges.cals=1,1", "unknown edge kind 'cals' in edges.cals; did you mean 'calls'?"),
    ("edges.calls=1", "edges.calls takes two weights"),
    ("seeds.text=much", "seeds.text takes a number; got 'much'"),
    ("walk.max_nodes=1.5", "walk.max_nodes takes a whole number"),
    ("seeds.columns=1,2", "seeds.columns takes 4 numbers"),
    ("shape.root=everything", "shape.root takes a detail level, one of full, summary, line"),
    ("shape.files_first=maybe", "shape.files_first takes true or false"),
    ("seeds.text", "has no value; write it as group.name=value"),
])
def test_a_bad_override_says_what_to_write(setting, message):
    with pytest.raises(InvalidRequest, match=message.replace("(", r"\(").replace("?", r"\?")):
        with_overrides(policy_for("debug"), [setting])


def test_a_policy_travels_to_worker_processes_and_into_a_record():
    trial = with_overrides(policy_for("plan"), ["blend.aside=0.5"])
    assert pickle.loads(pickle.dumps(trial)) == trial
    described = json.loads(json.dumps(trial.describe()))
    assert described["blend"]["aside"] == 0.5 and described["edges"]["imports"] == [1.0, 1.0]
    assert described["shape"] == {"root": "summary", "others": "summary", "files_first": True}


# ---- passed down and used

def test_the_default_policy_is_what_ranks_when_none_is_given(repo):
    assert Project(repo, find=False).rank_text(TEXT) == Project(repo, find=False).rank_text(TEXT, policy=policy_for("debug"))
    assert Project(repo, find=False).intent("debug", TEXT)[1] == Project(repo, find=False).intent("debug", TEXT, policy=policy_for("debug"))[1]


def test_asides_count_less_by_the_two_documented_factors(repo):
    """A test that echoes the text ranks low by default; scaled by 1 instead it rises."""
    default = [e for e, _ in Project(repo, find=False).rank_text(TEXT)]
    plain = with_overrides(policy_for("debug"), ["seeds.aside=1", "blend.aside=1"])
    unscaled = [e for e, _ in Project(repo, find=False).rank_text(TEXT, policy=plain)]
    assert unscaled.index(TEST) < default.index(TEST)


def test_the_text_evidence_is_gathered_once_and_shared_by_seeds_and_blend(repo):
    g = GraphCache(repo).get()
    policy = SeedPolicy()
    seeds = from_text(g, GraphCache(repo).connection(), TEXT, policy)
    evidence = seeds.evidence
    share = evidence.text_scores[TEST]
    assert evidence.is_aside(g, "tests/test_invoices.py") and not evidence.is_aside(g, "billing/invoices.py")
    assert seeds.weights[TEST] == pytest.approx(policy.text * share * policy.aside)  # the seed, before the walk
    scores = blend(g, evidence, {}, BlendPolicy())
    own, file_top = BlendPolicy().own_text * share, BlendPolicy().file_text * share / 3
    assert scores[TEST] == pytest.approx(BlendPolicy().aside * (own + file_top))  # the score, after it
    named = from_text(g, GraphCache(repo).connection(), TEXT + " (see tests/test_invoices.py)", policy)
    assert not named.evidence.is_aside(g, "tests/test_invoices.py")
    assert named.weights[TEST] == pytest.approx(policy.text * named.evidence.text_scores[TEST])


def test_an_entity_the_text_names_is_lifted_by_the_blend_itself(repo):
    """A walk from many full-text seeds can bury the one entity the text names under the hubs they
    share: the blend adds `named` (saturating at one mention as code) to it, not to its file's others."""
    g, conn = GraphCache(repo).get(), GraphCache(repo).connection()
    evidence = from_text(g, conn, TEXT + " after `reconcile`", SeedPolicy()).evidence
    assert evidence.named["billing/ledger.py::reconcile"] >= 1
    lifted, plain = blend(g, evidence, {}, BlendPolicy()), blend(g, evidence, {}, BlendPolicy(named=0))
    assert lifted["billing/ledger.py::reconcile"] - plain["billing/ledger.py::reconcile"] == pytest.approx(BlendPolicy().named)
    assert lifted.get("billing/ledger.py::post_entry") == plain.get("billing/ledger.py::post_entry")
    prose = from_text(g, conn, TEXT + " after reconcile", SeedPolicy()).evidence  # a plain word: a weaker name
    assert 0 < prose.named["billing/ledger.py::reconcile"] < 1


def test_a_test_file_is_named_by_its_folder_and_its_name(repo):
    """A bare `test_invoices.py` is as often the reporter's own file, or the test a report was cut
    from, as the repository's: its tests stay asides. Its folder and name bring them back."""
    g, conn, policy = GraphCache(repo).get(), GraphCache(repo).connection(), SeedPolicy()
    assert from_text(g, conn, TEXT + " (cut from test_invoices.py)", policy).evidence.is_aside(g, "tests/test_invoices.py")
    assert not from_text(g, conn, TEXT + " (cut from tests/test_invoices.py)", policy).evidence.is_aside(g, "tests/test_invoices.py")
    bare = [e for e, _ in Project(repo, find=False).rank_text(TEXT + " (cut from test_invoices.py)")]
    with_folder = [e for e, _ in Project(repo, find=False).rank_text(TEXT + " (cut from tests/test_invoices.py)")]
    assert with_folder.index(TEST) < bare.index(TEST)


def test_the_edge_weights_of_the_policy_steer_the_walk(repo):
    default, _ = Project(repo, find=False).context("round_invoice")
    no_calls, _ = Project(repo, find=False).context("round_invoice", policy=with_overrides(CONTEXT_POLICY, ["edges.calls=0,0"]))
    assert {"calls", "called-by"} & {item.relation for item in default.items}
    assert not {"calls", "called-by"} & {item.relation for item in no_calls.items}


def test_the_packing_share_of_the_policy_decides_later_bodies(repo):
    query = "round the invoice total to cents"
    default, _ = Project(repo, find=False).intent("debug", query, token_budget=2000)
    tight = with_overrides(policy_for("debug"), ["packing.full_share=0.01"])
    squeezed, _ = Project(repo, find=False).intent("debug", query, token_budget=2000, policy=tight)
    assert default.items[0].id == squeezed.items[0].id and squeezed.items[0].detail == "full"  # the first may
    assert any(item.detail == "full" for item in default.items[1:])
    assert all(item.detail != "full" for item in squeezed.items[1:])


def test_an_intent_with_a_policy_is_still_checked_and_names_the_mode(repo):
    answer, _ = Project(repo, find=False).intent("plan", TEXT, policy=policy_for("debug"))
    assert answer.mode == "intent/plan"
    with pytest.raises(InvalidRequest, match="did you mean 'plan'"):
        Project(repo, find=False).intent("plna", TEXT, policy=policy_for("debug"))
    assert isinstance(policy_for("plan"), RankingPolicy)


# ---- one BM25 query

def test_bm25_weighs_the_columns_it_is_given(repo):
    conn = GraphCache(repo).connection()
    # "reconcile" is a name; "posting" is in post_entry's doc, and in no name.
    by_name = lookup.bm25(conn, ["reconcile", "posting"], (4.0, 1.0, 0.5, 1.0), 10)
    by_doc = lookup.bm25(conn, ["reconcile", "posting"], (0.1, 1.0, 20.0, 1.0), 10)
    assert by_name[0][0] == "billing/ledger.py::reconcile" and by_name[0][1] < 0
    assert by_doc[0][0] == "billing/ledger.py::post_entry"  # its doc says "posting"
    assert [row[1] for row in by_name] == sorted(row[1] for row in by_name)  # best (most negative) first


def test_bm25_columns_and_kind_narrow_the_match(repo):
    conn = GraphCache(repo).connection()
    everywhere = {i for i, _ in lookup.bm25(conn, ["row"], (4.0, 1.0, 0.5, 1.0), 10)}
    assert "billing/ledger.py::reconcile" in everywhere  # "row" is only in its body
    assert not lookup.bm25(conn, ["row"], lookup.SEARCH_WEIGHTS, 10, columns=lookup.SEARCH_COLUMNS)
    files = lookup.bm25(conn, ["invoices", "ledger"], (4.0, 1.0, 0.5, 1.0), 10, kind="file")
    assert {i for i, _ in files} == {"billing/invoices.py", "billing/ledger.py", "tests/test_invoices.py"}
    assert lookup.bm25(conn, [], (4.0,), 10) == []


def test_a_text_walk_at_alpha_zero_stays_at_what_the_text_matches(repo):
    """graphctx-text, the ablation's first rung: with `walk.text_alpha=0` no edge is followed, so a
    callee the text does not match (post_entry) is found only by the walk of the default policy."""
    text = "Matching the bank statement fails"
    default = [e for e, _ in Project(repo, find=False).rank_text(text)]
    alone = [e for e, _ in Project(repo, find=False).rank_text(
        text, policy=with_overrides(policy_for("debug"), ["walk.text_alpha=0"]))]
    assert default[0] == alone[0] == "billing/ledger.py::reconcile"
    assert "billing/ledger.py::post_entry" in default and "billing/ledger.py::post_entry" not in alone
