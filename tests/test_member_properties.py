"""Properties beyond Python, indexed for real: JavaScript and TypeScript `get`/`set` accessors, C#
properties with accessor bodies, Kotlin getters and setters, Swift computed properties, Scala's
parameterless and `_=` methods and Ruby's writer methods. Reading or assigning such a member on an object of known class is a call of its
accessor (`exact` through this/self, `inferred` on a typed or constructed variable); on an object
of unknown class it is no edge. Each program's call edges are compared whole."""

from __future__ import annotations

import json
import textwrap

import pytest

from conftest import call_edges, query_index, run_graphctx, write_tree
from graphctx.index.indexer import index_repository

CASES: dict[str, tuple[dict[str, str], set[tuple[str, str, str]]]] = {
    "javascript get and set": ({
        "shape.js": """
            export class Box {
              constructor() { this.w = 1; }
              get area() { return this.w * 2; }
              set area(v) { this.w = v; }
              static get unit() { return 1; }
              grow() { this.area += 1; }
            }
        """,
        "main.js": """
            import { Box } from './shape';
            export function use(other) {
              const b = new Box();
              const a = b.area;
              b.area = 3;
              other.area = 4;
              b.w = 5;
              return a + b.unit + Box.unit + Box.area;
            }
        """}, {("shape.js::Box.grow", "shape.js::Box.area", "exact"),
               ("shape.js::Box.grow", "shape.js::Box.area.setter", "exact"),
               ("main.js::use", "shape.js::Box", "import"), ("main.js::use", "shape.js::Box.unit", "import"),
               ("main.js::use", "shape.js::Box.area", "inferred"),
               ("main.js::use", "shape.js::Box.area.setter", "inferred")}),
    "typescript accessors on an annotated parameter": ({
        "shape.ts": """
            export class Box {
              private w = 1;
              get area(): number { return this.w * 2; }
              set area(v: number) { this.w = v; }
            }
            export function use(b: Box, c: any): number {
              b.area = 2;
              c.area = 3;
              return b.area;
            }
        """}, {("shape.ts::use", "shape.ts::Box.area", "inferred"),
               ("shape.ts::use", "shape.ts::Box.area.setter", "inferred")}),
    "csharp accessor bodies, expression bodies, auto-properties": ({
        "Shape.cs": """
            namespace Geo {
            public class Box {
                private int w;
                public int Area { get { return w * 2; } set { w = value; } }
                public int Half => w / 2;
                public int Auto { get; set; }
                public static int Unit { get { return 1; } }
                public void Grow() { this.Area += 1; }
            }
            public class User {
                public int Use(Box other, object any) {
                    var b = new Box();
                    int a = b.Area;
                    b.Area = 3;
                    b.Auto = 2;
                    return a + other.Half + any.GetHashCode() + Box.Unit;
                }
            }
            }
        """}, {("Shape.cs::Box.Grow", "Shape.cs::Box.Area", "exact"),
               ("Shape.cs::Box.Grow", "Shape.cs::Box.Area.setter", "exact"),
               ("Shape.cs::User.Use", "Shape.cs::Box", "exact"),
               ("Shape.cs::User.Use", "Shape.cs::Box.Area", "inferred"),
               ("Shape.cs::User.Use", "Shape.cs::Box.Area.setter", "inferred"),
               ("Shape.cs::User.Use", "Shape.cs::Box.Half", "inferred"), ("Shape.cs::User.Use", "Shape.cs::Box.Unit", "exact"),
               ("Shape.cs::User.Use", "ext:any.GetHashCode", "unresolved")}),
    "kotlin getters and setters": ({
        "Shape.kt": """
            class Box {
                var w = 1
                val area: Int get() = w * 2
                var side: Int
                    get() { return w }
                    set(v) { w = v }
                fun grow() { this.side += 1 }
            }
            fun use(other: Any): Int {
                val b = Box()
                b.side = 3
                return b.area
            }
        """}, {("Shape.kt::Box.grow", "Shape.kt::Box.side", "exact"),
               ("Shape.kt::Box.grow", "Shape.kt::Box.side.setter", "exact"),
               ("Shape.kt::use", "Shape.kt::Box", "exact"),
               ("Shape.kt::use", "Shape.kt::Box.area", "inferred"),
               ("Shape.kt::use", "Shape.kt::Box.side.setter", "inferred")}),
    "swift computed properties": ({
        "Sources/Geo/Shape.swift": """
            class Box {
                var w = 1
                var area: Int { return w * 2 }
                var side: Int {
                    get { return w }
                    set { w = newValue }
                }
                func grow() { self.side += 1 }
            }
            func use(other: AnyObject) -> Int {
                let b = Box()
                b.side = 3
                return b.area
            }
        """}, {("Sources/Geo/Shape.swift::Box.grow", "Sources/Geo/Shape.swift::Box.side", "exact"),
               ("Sources/Geo/Shape.swift::Box.grow", "Sources/Geo/Shape.swift::Box.side.setter", "exact"),
               ("Sources/Geo/Shape.swift::use", "Sources/Geo/Shape.swift::Box", "exact"),
               ("Sources/Geo/Shape.swift::use", "Sources/Geo/Shape.swift::Box.area", "inferred"),
               ("Sources/Geo/Shape.swift::use", "Sources/Geo/Shape.swift::Box.side.setter", "inferred")}),
    "ruby: assigning obj.x calls the writer x=": ({
        "shape.rb": """
            class Box
              def initialize
                @w = 1
              end

              def area
                @w * 2
              end

              def area=(v)
                @w = v
              end

              def grow
                self.area += 1
              end
            end

            def use
              b = Box.new
              b.area = 3
              b.area
            end
        """}, {("shape.rb::Box.grow", "shape.rb::Box.area", "exact"),
               ("shape.rb::Box.grow", "shape.rb::Box.area=", "exact"),
               ("shape.rb::use", "shape.rb::Box", "exact"),
               ("shape.rb::use", "shape.rb::Box.area", "inferred"),
               ("shape.rb::use", "shape.rb::Box.area=", "inferred")}),
    "scala: a parameterless def is read, def x_= is assigned": ({
        "Shape.scala": """
            class Box {
              private var w = 1
              def area: Int = w * 2
              def area_=(v: Int): Unit = { w = v }
              def size(): Int = w
              def grow(): Unit = { this.area = this.area + 1 }
            }
            object Main {
              def use(other: Any): Int = {
                val b = new Box()
                b.area = 3
                val s = b.size
                b.area
              }
            }
        """}, {("Shape.scala::Box.grow", "Shape.scala::Box.area", "exact"),
               ("Shape.scala::Box.grow", "Shape.scala::Box.area_=", "exact"),
               ("Shape.scala::Main.use", "Shape.scala::Box", "exact"),
               ("Shape.scala::Main.use", "Shape.scala::Box.area", "inferred"),
               ("Shape.scala::Main.use", "Shape.scala::Box.area_=", "inferred")}),
    "a field declared in a subclass hides its base's property": ({
        "Tags.kt": """
            interface Taggable {
                val tags: Map<String, Any>
                    get() = emptyMap()
            }
            class TagMap(override val tags: Map<String, Any>) : Taggable
            class Plain : Taggable
            fun viaMap(map: TagMap): Int {
                return map.tags.size
            }
            fun viaPlain(plain: Plain): Int {
                return plain.tags.size
            }
        """}, {("Tags.kt::viaPlain", "Tags.kt::Taggable.tags", "inferred"), ("Tags.kt::Taggable.tags", "ext:emptyMap", "external")}),
    "a property of a base class through this, from another file": ({
        "base.ts": """
            export class Base {
              get name(): string { return "b"; }
            }
        """,
        "child.ts": """
            import { Base } from './base';
            export class Child extends Base {
              greet(): string { return this.name; }
            }
        """}, {("child.ts::Child.greet", "base.ts::Base.name", "exact")}),
}


def _index(tmp_path, files: dict[str, str]):
    root = write_tree(tmp_path / "repo", {path: textwrap.dedent(text).lstrip() for path, text in files.items()})
    index_repository(root, workers=1)
    return root


@pytest.mark.parametrize("name", CASES)
def test_property_uses_call_their_accessors(name, tmp_path):
    files, expected = CASES[name]
    assert call_edges(_index(tmp_path, files)) == expected


def test_accessors_are_entities_whose_signature_says_what_they_are(tmp_path):
    root = _index(tmp_path, {**CASES["csharp accessor bodies, expression bodies, auto-properties"][0],
                             **CASES["kotlin getters and setters"][0], **CASES["javascript get and set"][0]})
    rows = dict(query_index(root, "SELECT id, signature FROM entities WHERE kind = 'method'"))
    assert rows["Shape.cs::Box.Area"] == "public int Area { get }"
    assert rows["Shape.cs::Box.Area.setter"] == "public int Area { set }"
    assert rows["Shape.cs::Box.Half"] == "public int Half { get }"
    assert "Shape.cs::Box.Auto" not in rows  # an auto-property runs no code of ours
    assert rows["Shape.kt::Box.side.setter"] == "var side: Int { set }"
    assert rows["shape.js::Box.area.setter"] == "set area(v)"
    assert rows["shape.js::Box.unit"] == "static get unit()"


def test_show_lists_an_accessors_readers_and_writers(tmp_path):
    root = _index(tmp_path, CASES["javascript get and set"][0])
    proc = run_graphctx("show", "Box.area.setter", "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    callers = {(e["source"], e["resolution"]) for e in json.loads(proc.stdout)["incoming"] if e["kind"] == "calls"}
    assert callers == {("shape.js::Box.grow", "exact"), ("main.js::use", "inferred")}
