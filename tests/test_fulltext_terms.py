"""Free text's full-text query leaves out words in the paths of half the entities or more (the
project's folder, the language's extension): BM25 gives them no weight, so the ranking is the same
to a millionth of a score without them, and a text made only of such words still matches. It asks
for a compound identifier's words side by side, so the code that spells it comes first."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from conftest import run_graphctx

from graphctx import Project
from graphctx.context.intents import policy_for
from graphctx.context.seeds import _full_text, phrases, query_terms, title
from graphctx.graph import lookup
from graphctx.index.indexer import index_repository

FILES = {
    "acme/orders.py": '''
        def place_order(cart):
            """Place an order for the cart; refuse an empty cart."""
            if not cart:
                raise ValueError("empty cart")
            return submit(cart)

        def submit(cart):
            """Send the order to the warehouse."""
            return {"items": list(cart)}
        ''',
    "acme/billing.py": '''
        class Invoice:
            """An invoice for a placed order."""

            def total(self, lines):
                return sum(line.amount for line in lines)

        def refund(invoice):
            """Refund an invoice that was paid twice."""
            return -invoice.total([])
        ''',
    "acme/shipping.py": '''
        def ship(order, address):
            """Ship an order to the address; a missing address fails."""
            if not address:
                raise ValueError("no address")
            return (order, address)
        ''',
    "acme/settings.py": '''
        def describe_targets(config):
            """Describe the targets of the shipping description."""
            return [config.target, config.description, config.shipping]

        def shipping_labels(order):
            """The label of each shipping target; its description is the order's."""
            return [(order.target, order.description)]

        def label_order(order, config):
            if config.shipping_description_target == "documented":
                return order
            return None
        ''',
    "README.md": "# Acme\n\nOrders, billing and shipping.\n",
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("terms")
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    index_repository(root)
    return root


def test_words_in_half_the_paths_are_uninformative(repo):
    with Project(repo, find=False) as project:
        g = project.graph
        common = lookup.uninformative_words(g)
        assert {"acme", "py"} <= common  # every entity but the README's is under acme/ in a .py file
        assert not common & {"orders", "billing", "shipping", "readme", "md"}


def test_the_ranking_without_them_is_the_same_to_a_millionth(repo):
    text = "acme: refund of an invoice paid twice fails in acme/billing.py"
    policy = policy_for("debug").seeds
    with Project(repo, find=False) as project:
        g, conn = project.graph, project.graph.connection()
        terms = query_terms(text, policy)
        assert {"acme", "py"} <= set(terms)
        every_term = lookup.bm25(conn, terms, policy.columns, policy.text_scores_limit)
        best = every_term[0][1]
        shares = dict(_full_text(g, conn, text, policy))
        assert len(shares) < len(every_term)  # the common words no longer drag in every entity
        informative = [(entity, score) for entity, score in every_term if entity in shares]
        assert [entity for entity, _ in informative][:3] == list(shares)[:3]
        assert all(abs(score / best - shares[entity]) < 1e-5 for entity, score in informative)
        # what only the common words matched scored nothing: a millionth of the best at most
        assert all(abs(score / best) < 1e-5 for entity, score in every_term if entity not in shares)


def test_a_text_of_only_common_words_still_matches(repo):
    with Project(repo, find=False) as project:
        assert _full_text(project.graph, project.graph.connection(), "acme py", policy_for("debug").seeds)


def test_intent_on_free_text_from_the_cli_ranks_the_named_code_first(repo):
    done = run_graphctx("intent", "debug", "acme: refund of an invoice paid twice fails", "--json", cwd=repo)
    assert done.returncode == 0, done.stderr
    items = [item["id"] for item in json.loads(done.stdout)["items"]]
    assert items[0] == "acme/billing.py::refund"


def test_a_compound_identifier_is_asked_for_as_a_phrase(repo):
    """The code that reads the setting spells its name; the others only use its words."""
    assert phrases("set `shipping_description_target` and --min-similarity-lines; a __init__") == [
        "shipping description target", "min similarity lines"]
    text = "`shipping_description_target` has no effect"
    ranked = [entity for entity, _ in Project(repo, find=False).rank_text(text, limit=1)]
    assert ranked == ["acme/settings.py::label_order"]


def test_a_titles_words_count_twice():
    """An issue's first line (a commit's subject) sums the rest up: its words are asked for again."""
    assert title("Refund fails\n\nWhen a warehouse ships twice") == "Refund fails"
    assert title("Refund fails") == ""  # one line: every word is the title's, none stands out
    assert title("x" * 201 + "\nmore") == ""  # a paragraph, not a title


@pytest.mark.parametrize("text, first", [
    ("Refund an invoice\nthe order ships to an address", "acme/billing.py::refund"),
    ("The order ships to an address\nrefund an invoice", "acme/shipping.py::ship"),
])
def test_the_title_decides_between_equal_matches(repo, text, first):
    with Project(repo, find=False) as project:
        ranked = _full_text(project.graph, project.graph.connection(), text, policy_for("debug").seeds)
    assert ranked[0][0] == first
