"""Calls to the base class and through receivers typed outside the repository, across languages:
C#'s `base.M()` and PHP's `parent::m()` reach the base class's method as `super` does elsewhere (a
PHP variable named `$parent` does not), and a receiver declared with a type no repository class has
(`List<Shape> lines; lines.Add(x)`) calls no repository method, whatever its name."""

from __future__ import annotations

import sqlite3

from conftest import write_tree
from graphctx.index.indexer import index_repository


def calls(root, source: str) -> list[tuple[str, str]]:
    conn = sqlite3.connect(root / ".graphctx" / "index.db")
    try:
        return list(conn.execute("SELECT target, resolution FROM edges WHERE kind = 'calls' AND source = ? ORDER BY target",
                                 (source,)))
    finally:
        conn.close()


def test_csharp_base_calls_the_base_class_method(tmp_path):
    root = write_tree(tmp_path / "repo", {
        "src/Shape.cs": "namespace Acme {\n public class Shape {\n  public virtual string Describe() { return \"shape\"; }\n }\n}\n",
        "src/Circle.cs": ("namespace Acme {\n public class Circle : Shape {\n"
                          "  public override string Describe() { return base.Describe() + \" circle\"; }\n }\n}\n"),
    })
    index_repository(root, workers=1)
    assert calls(root, "src/Circle.cs::Circle.Describe") == [("src/Shape.cs::Shape.Describe", "exact")]


def test_php_parent_calls_the_base_class_method_and_a_parent_variable_does_not(tmp_path):
    root = write_tree(tmp_path / "repo", {
        "src/Model.php": "<?php\nnamespace App;\n\nclass Model\n{\n    public function save(): void\n    {\n    }\n}\n",
        "src/User.php": ("<?php\nnamespace App;\n\nclass User extends Model\n{\n    public function save(): void\n    {\n"
                         "        parent::save();\n    }\n\n    public function adopt($parent): void\n    {\n"
                         "        $parent->save();\n    }\n}\n"),
    })
    index_repository(root, workers=1)
    assert calls(root, "src/User.php::User.save") == [("src/Model.php::Model.save", "exact")]
    assert ("src/Model.php::Model.save", "exact") not in calls(root, "src/User.php::User.adopt")


def test_a_receiver_typed_outside_the_repository_calls_no_repository_method(tmp_path):
    root = write_tree(tmp_path / "repo", {
        "src/Invoice.cs": ("using System.Collections.Generic;\nnamespace Acme {\n public class Invoice {\n"
                           "  private readonly List<string> lines = new List<string>();\n"
                           "  public void Add(string line) { lines.Add(line); }\n }\n}\n"),
    })
    index_repository(root, workers=1)
    assert calls(root, "src/Invoice.cs::Invoice.Add") == [("ext:lines.Add", "unresolved")]
