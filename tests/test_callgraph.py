"""Golden programs for the call graph's rules: one small program per rule, indexed for real, its call
edges compared whole with the ones written here, (source, target, resolution) each. Ids are short:
`m.py::f`, `ext:name`. Covers value flow (aliases, decorators, raise, recursion, returns, tuples,
annotations, super(), partial, containers, callbacks, iteration, `with`), the import semantics
(import a.b, fallbacks, re-exported external names, src layouts) and the honest labels."""

from __future__ import annotations

import textwrap

import pytest

from conftest import call_edges, query_index, write_tree
from graphctx.index.indexer import index_repository

CASES: dict[str, tuple[dict[str, str], set[tuple[str, str, str]]]] = {
    "alias": ({"m.py": """
        def f():
            pass

        a = f
        a()
    """}, {("m.py", "m.py::f", "inferred")}),
    "decorator is called, the name holds its result": ({"m.py": """
        def dec(f):
            def inner():
                return f()
            return inner

        @dec
        def g():
            pass

        g()
    """}, {("m.py", "m.py::dec", "exact"), ("m.py", "m.py::dec.inner", "inferred"),
           ("m.py::dec.inner", "m.py::g", "inferred")}),
    "external decorator keeps the definition": ({"m.py": """
        import functools

        @functools.lru_cache
        def g():
            pass

        g()
    """}, {("m.py", "m.py::g", "exact")}),
    "raise C and raise C()": ({"m.py": """
        class Oops(Exception):
            pass

        def f():
            raise Oops

        def h():
            raise Oops("no")
    """}, {("m.py::f", "m.py::Oops", "exact"), ("m.py::h", "m.py::Oops", "exact")}),
    "recursion is an edge": ({"m.py": """
        def fact(n):
            return n * fact(n - 1) if n else 1
    """}, {("m.py::fact", "m.py::fact", "exact")}),
    "return types: annotation and return C()": ({"m.py": """
        class C:
            def m(self):
                pass

            def n(self):
                pass

        def make() -> C:
            ...

        def build():
            return C()

        make().m()
        x = build()
        x.n()
    """}, {("m.py", "m.py::make", "exact"), ("m.py", "m.py::build", "exact"), ("m.py", "m.py::C.m", "inferred"),
           ("m.py", "m.py::C.n", "inferred"), ("m.py::build", "m.py::C", "exact")}),
    "tuple and starred assignment": ({"m.py": """
        def f():
            pass

        def g():
            pass

        def k():
            pass

        a, b = f, g
        b()
        first, *rest = f, g, k
        rest[0]()
    """}, {("m.py", "m.py::g", "inferred"), ("m.py", "m.py::k", "inferred")}),
    "annotated parameter": ({"m.py": """
        class C:
            def m(self):
                pass

        def use(c: C):
            c.m()
    """}, {("m.py::use", "m.py::C.m", "inferred")}),
    "super() in every form": ({"m.py": """
        class A:
            def m(self):
                pass

        class B(A):
            def m(self):
                super().m()

            def n(self):
                super(B, self).m()
    """}, {("m.py::B.m", "m.py::A.m", "exact"), ("m.py::B.n", "m.py::A.m", "inferred"),
           ("m.py::B.m", "ext:super", "external"), ("m.py::B.n", "ext:super", "external")}),
    "functools.partial": ({"m.py": """
        import functools

        def f(a, b):
            pass

        p = functools.partial(f, 1)
        p(2)
    """}, {("m.py", "ext:functools.partial", "external"), ("m.py", "m.py::f", "inferred")}),
    "dict dispatch: every candidate, inferred": ({"m.py": """
        def f():
            pass

        def g():
            pass

        HANDLERS = {"a": f, "b": g}

        def run(key):
            HANDLERS[key]()
    """}, {("m.py::run", "m.py::f", "inferred"), ("m.py::run", "m.py::g", "inferred")}),
    "list element by position": ({"m.py": """
        def f():
            pass

        def g():
            pass

        fs = [f, g]
        fs[1]()
    """}, {("m.py", "m.py::g", "inferred")}),
    "callbacks handed to builtins": ({"m.py": """
        def f(x):
            return x

        def g(x):
            return x

        list(map(f, [1]))
        sorted([1], key=g)
    """}, {("m.py", "ext:list", "external"), ("m.py", "ext:map", "external"), ("m.py", "ext:sorted", "external"),
           ("m.py", "m.py::f", "inferred"), ("m.py", "m.py::g", "inferred")}),
    "a builtin calls only what it is documented to call": ({"m.py": """
        def f(x):
            return x

        def g(x):
            return x

        isinstance(f, type)
        print(len([f]), f)
        sorted([f, g])
        max([1], key=g)
    """}, {("m.py", "ext:isinstance", "external"), ("m.py", "ext:len", "external"), ("m.py", "ext:print", "external"),
           ("m.py", "ext:sorted", "external"), ("m.py", "ext:max", "external"), ("m.py", "m.py::g", "inferred")}),
    "parameter called with a passed function, across files": ({
        "lib.py": """
            def apply(fn):
                fn()
        """,
        "m.py": """
            from lib import apply

            def job():
                pass

            apply(job)
        """}, {("lib.py::apply", "ext:fn", "unresolved"), ("m.py", "lib.py::apply", "import"),
               ("lib.py::apply", "m.py::job", "inferred")}),
    "iterator protocol": ({"m.py": """
        class It:
            def __iter__(self):
                return self

            def __next__(self):
                raise StopIteration

        for x in It():
            pass
    """}, {("m.py", "m.py::It", "exact"), ("m.py", "m.py::It.__iter__", "inferred"),
           ("m.py", "m.py::It.__next__", "inferred")}),
    "context manager": ({"m.py": """
        class Ctx:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                pass

            def use(self):
                pass

        with Ctx() as c:
            c.use()
    """}, {("m.py", "m.py::Ctx", "exact"), ("m.py", "m.py::Ctx.__enter__", "inferred"),
           ("m.py", "m.py::Ctx.__exit__", "inferred"), ("m.py", "m.py::Ctx.use", "inferred")}),
    "attribute typed in a base class": ({"m.py": """
        class Conn:
            def send(self):
                pass

        class Base:
            def __init__(self):
                self.conn = Conn()

        class Sub(Base):
            def go(self):
                self.conn.send()
    """}, {("m.py::Base.__init__", "m.py::Conn", "exact"), ("m.py::Sub.go", "m.py::Conn.send", "inferred")}),
    "a module's registry filled inside functions": ({"m.py": """
        REGISTRY = {}
        HOOKS = []

        def register(name):
            def deco(f):
                REGISTRY[name] = f
                return f
            return deco

        def hook(f):
            HOOKS.append(f)
            return f

        @register("a")
        def handle_a():
            pass

        @hook
        def on_start():
            pass

        def dispatch(key):
            REGISTRY[key]()
            for h in HOOKS:
                h()
    """}, {("m.py::hook", "ext:list.append", "external"), ("m.py", "m.py::register", "exact"),
           ("m.py", "m.py::register.deco", "inferred"), ("m.py", "m.py::hook", "exact"),
           ("m.py::dispatch", "m.py::handle_a", "inferred"), ("m.py::dispatch", "m.py::on_start", "inferred")}),
    "methods of literals are the builtin type's": ({"m.py": """
        def f(items):
            d = {"a": 1}
            name = "ab"
            d.items()
            d.run()
            d.update({})
            name.upper()
            return " ".join(items) + "a b".split()[0]
    """}, {("m.py::f", "ext:dict.items", "external"), ("m.py::f", "ext:d.run", "unresolved"),
           ("m.py::f", "ext:dict.update", "external"), ("m.py::f", "ext:str.upper", "external"),
           ("m.py::f", "ext:str.join", "external"), ("m.py::f", "ext:str.split", "external")}),
    "a store into a builtin container is the builtin's call, and calls nothing it stores": ({"m.py": """
        def f():
            pass

        HANDLERS = {}
        ITEMS = []

        def register(xs):
            HANDLERS["a"] = f
            HANDLERS.update({"b": f})
            ITEMS.append(f)
            seen = set()
            seen.add(f)
            xs.append(f)

        def run():
            HANDLERS["b"]()
    """}, {("m.py::register", "ext:dict.update", "external"), ("m.py::register", "ext:list.append", "external"),
           ("m.py::register", "ext:set", "external"), ("m.py::register", "ext:set.add", "external"),
           ("m.py::register", "ext:xs.append", "unresolved"), ("m.py::run", "m.py::f", "inferred")}),
    "with closing(x) as y: y is x, and its exit closes x": ({"m.py": """
        import contextlib
        from contextlib import closing

        class Stream:
            def connect(self):
                pass

            def close(self):
                pass

        def f():
            with closing(Stream()) as s:
                s.connect()
            with contextlib.nullcontext(Stream()) as t:
                t.connect()
    """}, {("m.py::f", "ext:contextlib.closing", "external"), ("m.py::f", "ext:contextlib.nullcontext", "external"),
           ("m.py::f", "m.py::Stream", "exact"), ("m.py::f", "m.py::Stream.connect", "inferred"),
           ("m.py::f", "m.py::Stream.close", "inferred")}),
    "an assignment expression binds its name": ({"m.py": """
        import re

        class Job:
            def start(self):
                pass

        def f(line):
            if m := re.search("x", line):
                m.start()
            if (job := Job()) is not None:
                job.start()
    """}, {("m.py::f", "ext:re.search", "external"), ("m.py::f", "ext:re.search.start", "external"),
           ("m.py::f", "m.py::Job", "exact"), ("m.py::f", "m.py::Job.start", "inferred")}),
    "an interface declaration is no candidate beside its override": ({
        "conn.py": """
            class Connection:
                def finish(self):
                    raise NotImplementedError()

            class HTTPConnection(Connection):
                def finish(self):
                    pass

            class Other:
                def finish(self):
                    pass
        """,
        "use.py": """
            def done(request):
                request.handle.finish()
        """}, {("conn.py::Connection.finish", "ext:NotImplementedError", "external"),
               ("use.py::done", "conn.py::HTTPConnection.finish", "ambiguous"),
               ("use.py::done", "conn.py::Other.finish", "ambiguous")}),
    "candidates for an untyped receiver: no local class elsewhere, no other test file, no future's method": ({
        "app.py": """
            class Scaffold:
                def delete(self, rule):
                    pass

                def done(self):
                    pass
        """,
        "tests/test_a.py": """
            def test_one():
                class View:
                    def delete(self):
                        pass

                View().delete()
        """,
        "tests/test_c.py": """
            class Helper:
                def delete(self):
                    pass
        """,
        "tests/test_b.py": """
            def test_two(client, fut):
                client.delete("/")
                fut.done()
        """}, {("tests/test_a.py::test_one", "tests/test_a.py::test_one.View", "exact"),
               ("tests/test_a.py::test_one", "tests/test_a.py::test_one.View.delete", "inferred"),
               ("tests/test_b.py::test_two", "app.py::Scaffold.delete", "heuristic"),
               ("tests/test_b.py::test_two", "ext:fut.done", "unresolved")}),
    "a method calling its own name on another object hands the work on: not itself alone": ({
        "dataset.py": """
            class Dataset:
                def quantile(self, q):
                    return [var.quantile(q) for var in self.variables]

                def median(self):
                    return self.summary.quantile(0.5)
        """,
        "variable.py": """
            class Variable:
                def quantile(self, q):
                    pass
        """}, {("dataset.py::Dataset.quantile", "dataset.py::Dataset.quantile", "ambiguous"),
               ("dataset.py::Dataset.quantile", "variable.py::Variable.quantile", "ambiguous"),
               ("dataset.py::Dataset.median", "dataset.py::Dataset.quantile", "heuristic")}),
    "a module the repository's own package lacks is unresolved, not a library's": ({
        "app/__init__.py": "",
        "app/main.py": """
            import json
            import app.gone
            from app.nothere import ghost
            from .missing import helper


            def main():
                ghost()
                helper()
                app.gone.run()
                return json.dumps({})
        """}, {("app/main.py::main", "ext:app.nothere.ghost", "unresolved"),
               ("app/main.py::main", "ext:missing.helper", "unresolved"),
               ("app/main.py::main", "ext:app.gone.run", "unresolved"),
               ("app/main.py::main", "ext:json.dumps", "external")}),
    "a Go package under the repository's module path that is not there is unresolved": ({
        "go.mod": "module example.com/shop\n\ngo 1.21\n",
        "util/util.go": "package util\n\nfunc Slug(s string) string { return s }\n",
        "main.go": """
            package main

            import (
            	"fmt"
            	"example.com/shop/gone"
            	"example.com/shop/util"
            )

            func main() {
            	fmt.Println(util.Slug("x"))
            	gone.Run()
            }
        """}, {("main.go::main", "ext:fmt.Println", "external"), ("main.go::main", "util/util.go::Slug", "import"),
               ("main.go::main", "ext:example.com.shop.gone.Run", "unresolved")}),
    "a Rust path from the crate that names nothing in it is unresolved": ({
        "Cargo.toml": '[package]\nname = "shop"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod util;\npub mod app;\n",
        "src/util.rs": "pub fn slug() -> u32 { 1 }\n",
        "src/app.rs": """
            use crate::util::slug;
            use crate::nothere::ghost;

            pub fn run() -> u32 {
                ghost();
                slug()
            }
        """}, {("src/app.rs::run", "src/util.rs::slug", "import"), ("src/app.rs::run", "ext:crate.nothere.ghost", "unresolved")}),
    "the same call in two methods of a class: the calling method alone is no evidence, another is": ({
        "dataset.py": """
            class Dataset:
                def quantile(self, q):
                    return other.quantile(q)

                def median(self):
                    return other.quantile(0.5)
        """,
        "variable.py": """
            class Variable:
                def quantile(self, q):
                    pass
        """}, {("dataset.py::Dataset.quantile", "dataset.py::Dataset.quantile", "ambiguous"),
               ("dataset.py::Dataset.quantile", "variable.py::Variable.quantile", "ambiguous"),
               ("dataset.py::Dataset.median", "dataset.py::Dataset.quantile", "heuristic")}),
    "a stub or an abstract method is declared: its overrides are called": ({"m.py": """
        class RedirectMixin:
            def send(self, request) -> int: ...

            def follow(self, request):
                return self.send(request)

        class Session(RedirectMixin):
            def send(self, request):
                return 1

        class Store:
            def save(self):
                \"\"\"Keep it.\"\"\"
                raise NotImplementedError

            def run(self):
                return self.save()

        class DiskStore(Store):
            def save(self):
                pass

        class CloudStore(Store):
            def save(self):
                pass

        def keep(store: Store):
            store.save()
    """}, {("m.py::RedirectMixin.follow", "m.py::Session.send", "inferred"),
           ("m.py::Store.run", "m.py::DiskStore.save", "ambiguous"), ("m.py::Store.run", "m.py::CloudStore.save", "ambiguous"),
           ("m.py::keep", "m.py::DiskStore.save", "inferred"), ("m.py::keep", "m.py::CloudStore.save", "inferred")}),
    # ---- self.m() in a base class that neither defines nor inherits m: the subclasses' m
    "a base class calls what its subclasses define or assign": ({"m.py": """
        class Job:
            def run(self):
                self.step()
                self.report()
                self.missing()

        class Copy(Job):
            def step(self):
                pass

            def __init__(self):
                self.report = self.print_it

            def print_it(self):
                pass

        class Move(Job):
            def step(self):
                pass
    """}, {("m.py::Job.run", "m.py::Copy.step", "ambiguous"), ("m.py::Job.run", "m.py::Move.step", "ambiguous"),
           ("m.py::Job.run", "m.py::Copy.print_it", "inferred"), ("m.py::Job.run", "ext:self.missing", "unresolved")}),
    "a base class's template method in another language": ({"job.ts": """
        export abstract class Job {
          run(): void { this.step(); }
        }
        export class Copy extends Job {
          step(): void {}
        }
    """}, {("job.ts::Job.run", "job.ts::Copy.step", "inferred")}),
    # ---- properties: a use of the attribute is a call of its accessor, where the object's class is known
    "property getter, setter and deleter": ({"m.py": """
        class Box:
            @property
            def size(self):
                return 1

            @size.setter
            def size(self, value):
                pass

            @size.deleter
            def size(self):
                pass

            def grow(self):
                self.size += 1

        def use(b: Box):
            print(b.size)
            b.size = 2
            del b.size
    """}, {("m.py::Box.grow", "m.py::Box.size", "exact"), ("m.py::Box.grow", "m.py::Box.size.setter", "exact"),
           ("m.py::use", "ext:print", "external"), ("m.py::use", "m.py::Box.size", "inferred"),
           ("m.py::use", "m.py::Box.size.setter", "inferred"), ("m.py::use", "m.py::Box.size.deleter", "inferred")}),
    "cached_property and property(fget, fset)": ({"m.py": """
        import functools

        class Box:
            @functools.cached_property
            def weight(self):
                return 1

            def _get_label(self):
                return ""

            def _set_label(self, value):
                pass

            label = property(_get_label, _set_label)

        box = Box()
        box.weight
        box.label = box.label
    """}, {("m.py", "m.py::Box", "exact"), ("m.py", "m.py::Box.weight", "inferred"), ("m.py::Box", "ext:property", "external"),
           ("m.py", "m.py::Box._get_label", "inferred"), ("m.py", "m.py::Box._set_label", "inferred")}),
    "a base class's property through self, and a property's value": ({"m.py": """
        class Conn:
            def send(self):
                pass

        class Base:
            @property
            def conn(self) -> Conn:
                return Conn()

        class Client(Base):
            def go(self):
                self.conn.send()
    """}, {("m.py::Base.conn", "m.py::Conn", "exact"), ("m.py::Client.go", "m.py::Base.conn", "exact"),
           ("m.py::Client.go", "m.py::Conn.send", "inferred")}),
    "what a setter is given the property holds; super() and cls": ({"m.py": """
        class Foo:
            def run(self):
                pass

        class A:
            def __init__(self):
                self.handler = Foo()

            @property
            def handler(self):
                return self._h

            @handler.setter
            def handler(self, v):
                self._h = v

            def go(self):
                self.handler.run()

            @classmethod
            def make(cls):
                return cls.handler

        class B(A):
            @property
            def handler(self):
                return super().handler
    """}, {("m.py::A.__init__", "m.py::A.handler.setter", "exact"), ("m.py::A.__init__", "m.py::Foo", "exact"),
           ("m.py::A.go", "m.py::A.handler", "exact"), ("m.py::A.go", "m.py::Foo.run", "inferred"),
           ("m.py::B.handler", "ext:super", "external"), ("m.py::B.handler", "m.py::A.handler", "exact")}),
    "a property on one of several classes: each, inferred": ({"m.py": """
        class A:
            @property
            def name(self):
                return "a"

        class B:
            @property
            def name(self):
                return "b"

        class C:
            name = "c"

        def pick(flag):
            x = A() if flag else B() if flag > 1 else C()
            return x.name
    """}, {("m.py::pick", "m.py::A", "exact"), ("m.py::pick", "m.py::B", "exact"), ("m.py::pick", "m.py::C", "exact"),
           ("m.py::pick", "m.py::A.name", "inferred"), ("m.py::pick", "m.py::B.name", "inferred")}),
    "an attribute of an object of unknown class calls nothing": ({"m.py": """
        class A:
            @property
            def name(self):
                return "a"

        def show(obj):
            return obj.name
    """}, set()),
    # ---- lambdas: entities, called where their value flows
    "a lambda held by a variable, passed, returned and handed to sorted": ({"m.py": """
        def g(x):
            return x

        def apply(fn):
            return fn(1)

        def make():
            return lambda: g(2)

        f = lambda x: g(x)
        f(1)
        apply(lambda y: y)
        make()()
        sorted([3], key=lambda v: -v)
    """}, {("m.py::<lambda1>", "m.py::g", "exact"), ("m.py", "m.py::<lambda1>", "inferred"),
           ("m.py::make.<lambda1>", "m.py::g", "exact"), ("m.py", "m.py::make", "exact"),
           ("m.py", "m.py::make.<lambda1>", "inferred"), ("m.py", "m.py::apply", "exact"),
           ("m.py::apply", "m.py::<lambda2>", "inferred"), ("m.py", "ext:sorted", "external"),
           ("m.py", "m.py::<lambda3>", "inferred")}),
    # ---- honest labels and Python's import semantics
    "a re-exported external name stays external": ({
        "compat.py": "from urllib.parse import urlparse\n",
        "m.py": "from compat import urlparse\n\nurlparse('x')\n",
    }, {("m.py", "ext:urllib.parse.urlparse", "external")}),
    "a module's re-exported external name, read as an attribute": ({
        "pkg/__init__.py": "",
        "pkg/certs.py": "from certifi import where\n",
        "pkg/utils.py": "from . import certs\n\ncerts.where()\n",
    }, {("pkg/utils.py", "ext:certifi.where", "external")}),
    "a re-exported builtin stays a builtin": ({
        "compat.py": "str = str\n",
        "m.py": "from compat import str\n\nstr(1)\n",
    }, {("m.py", "ext:str", "external")}),
    "a parameter shadows a module-level function": ({"m.py": """
        def fixture():
            pass

        def test_it(fixture):
            fixture()
    """}, {("m.py::test_it", "ext:fixture", "unresolved")}),
    "locals and unknown objects are unresolved, imports and builtins external": ({"m.py": """
        import os

        def f(callback, obj):
            callback()
            obj.zzz_unknown()
            os.getcwd()
            len([])
            nowhere()
    """}, {("m.py::f", "ext:callback", "unresolved"), ("m.py::f", "ext:obj.zzz_unknown", "unresolved"),
           ("m.py::f", "ext:os.getcwd", "external"), ("m.py::f", "ext:len", "external"),
           ("m.py::f", "ext:nowhere", "unresolved")}),
    "import a.b binds a": ({
        "pkg/__init__.py": "",
        "pkg/sub.py": "def f():\n    pass\n",
        "m.py": "import os.path\nimport pkg.sub\n\nos.getcwd()\nos.path.join('a')\npkg.sub.f()\n",
    }, {("m.py", "ext:os.getcwd", "external"), ("m.py", "ext:os.path.join", "external"),
        ("m.py", "pkg/sub.py::f", "import")}),
    "import a.b as c binds c to a.b": ({
        "pkg/__init__.py": "",
        "pkg/sub.py": "def f():\n    pass\n",
        "m.py": "import pkg.sub as s\n\ns.f()\n",
    }, {("m.py", "pkg/sub.py::f", "import")}),
    "fallback imports are alternatives": ({"m.py": """
        try:
            from simplejson import loads
        except ImportError:
            from json import loads

        loads("1")
    """}, {("m.py", "ext:simplejson.loads", "ambiguous"), ("m.py", "ext:json.loads", "ambiguous")}),
    "a src folder with an __init__.py is still the import root": ({
        "src/__init__.py": "",
        "src/app/__init__.py": "",
        "src/app/core.py": "def f():\n    pass\n",
        "src/app/main.py": "from app.core import f\n\nf()\n",
    }, {("src/app/main.py", "src/app/core.py::f", "import")}),
}


@pytest.mark.parametrize("name", CASES)
def test_call_edges(name, tmp_path):
    files, expected = CASES[name]
    root = write_tree(tmp_path / "repo", {path: textwrap.dedent(text).lstrip() for path, text in files.items()})
    index_repository(root, workers=1)
    assert call_edges(root) == expected


def test_alternatives_and_candidates_share_the_confidence(tmp_path):
    files, _ = CASES["dict dispatch: every candidate, inferred"]
    root = write_tree(tmp_path / "repo", {p: textwrap.dedent(t).lstrip() for p, t in files.items()})
    index_repository(root, workers=1)
    shares = [c for (c,) in query_index(root, "SELECT confidence FROM edges WHERE kind = 'calls' AND source = 'm.py::run'")]
    assert shares == [0.4, 0.4]


def test_a_base_a_module_does_not_define_is_unresolved_not_the_module(tmp_path):
    """`from pkg import Engine` where pkg/__init__.py defines no Engine: a class is no subclass of a file."""
    root = write_tree(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/core.py": "class Engine:\n    pass\n",
                                          "app.py": "from pkg import Engine\n\nclass Widget(Engine):\n    pass\n"})
    index_repository(root, workers=1)
    bases = set(query_index(root, "SELECT target, resolution FROM edges WHERE kind = 'inherits' AND source = 'app.py::Widget'"))
    assert bases == {("ext:Engine", "unresolved")}
