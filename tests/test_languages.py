"""Golden tests for every supported language: each small project under tests/fixtures/<language>/
is indexed, and its entities and edges are compared with sets written by hand from what the code
means. The tables are read as (id, kind) and (source, target, kind, resolution); `contains` edges
follow from the entity ids, plus the ones a language adds across files (Go methods). Docs, calls
that must stay ambiguous, and every import form (fact by fact, on snippets) are checked too."""

from __future__ import annotations

import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from graphctx.index.indexer import index_repository
from graphctx.parse.extract import extract

FIXTURES = Path(__file__).parent / "fixtures"
CHECKED_KINDS = ("calls", "imports", "inherits", "implements", "tests", "contains")


@dataclass(frozen=True)
class Golden:
    language: str
    entities: str  # "id kind" lines
    edges: str  # "source target kind resolution" lines; `contains` edges that follow from ids are implied
    ambiguous: tuple[tuple[str, str, frozenset[str]], ...]  # (caller, called name, candidates)
    references: str = ""  # "source target resolution" lines that must be among the references edges
    extra_contains: str = ""  # "source target resolution" lines: containment across files
    folders: tuple[tuple[str, str], ...] = ()  # (short, long): a path written "short/x" stands for "long/x"
    docs: tuple[tuple[str, str], ...] = ()  # (entity id, its doc): docstrings, doc comments, file headers

    def expand(self, word: str) -> str:
        for short, long in self.folders:
            if word.startswith(short + "/"):
                return long + word[len(short):]
        return word

    def rows(self, text: str) -> list[tuple[str, ...]]:
        return [tuple(self.expand(word) for word in line.split()) for line in _lines(text)]

    def entity_set(self) -> set[tuple[str, str]]:
        return set(self.rows(self.entities))

    def edge_set(self) -> set[tuple[str, str, str, str]]:
        edges = set(self.rows(self.edges))
        edges |= {(s, t, "contains", r) for s, t, r in self.rows(self.extra_contains)}
        ids = {entity_id for entity_id, kind in self.entity_set() if kind != "file"}
        for entity_id in ids:
            path, _, qualified = entity_id.partition("::")
            owner = f"{path}::{qualified.rpartition('.')[0]}"
            edges.add((owner if owner in ids else path, entity_id, "contains", "exact"))
        return edges


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]


@dataclass
class Indexed:
    entities: set[tuple[str, str]]
    edges: list[tuple[str, str, str, str, float]]
    docs: dict[str, str] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)

    def edge_set(self, kinds=CHECKED_KINDS) -> set[tuple[str, str, str, str]]:
        return {(s, t, k, r) for s, t, k, r, _ in self.edges if k in kinds}


def index_fixture(language: str, base: Path) -> Indexed:
    root = base / language
    shutil.copytree(FIXTURES / language, root)
    index_repository(root)
    conn = sqlite3.connect(root / ".graphctx" / "index.db")
    try:
        return Indexed(
            entities=set(conn.execute("SELECT id, kind FROM entities")),
            edges=list(conn.execute("SELECT source, target, kind, resolution, confidence FROM edges")),
            docs=dict(conn.execute("SELECT id, doc FROM entities")),
            errors=dict(conn.execute("SELECT path, error_count FROM files WHERE error_count > 0")),
        )
    finally:
        conn.close()


# ---------------------------------------------------------------- Python

PYTHON = Golden(
    "python",
    entities="""
        inventory/__init__.py                       file
        inventory/labels.py                         file
        inventory/labels.py::check                  function
        inventory/models.py                         file
        inventory/models.py::MAX_QUANTITY           constant
        inventory/models.py::Item                   class
        inventory/models.py::Item.__init__          method
        inventory/models.py::Item.total             method
        inventory/models.py::Item.describe          method
        inventory/models.py::Perishable             class
        inventory/models.py::Perishable.__init__    method
        inventory/models.py::Perishable.is_expired  method
        inventory/pricing.py                        file
        inventory/pricing.py::round_price           function
        inventory/pricing.py::check                 function
        inventory/store.py                          file
        inventory/store.py::Store                   class
        inventory/store.py::Store.__init__          method
        inventory/store.py::Store.add               method
        inventory/store.py::Store._record           method
        inventory/store.py::Store.value             method
        inventory/store.py::open_store              function
        inventory/store.py::audit                   function
        tests/test_store.py                         file
        tests/test_store.py::test_open_store_adds_welcome_card  function
        tests/test_store.py::test_perishable_expiry             function
    """,
    edges="""
        # calls: same file, through self and super(), imported, on typed instances, external
        inventory/models.py::Item.describe        inventory/models.py::Item.total         calls exact
        inventory/models.py::Perishable.__init__  inventory/models.py::Item.__init__      calls exact
        inventory/models.py::Perishable.__init__  ext:super                               calls external
        inventory/pricing.py::check               inventory/pricing.py::round_price       calls exact
        inventory/pricing.py::round_price         ext:math.floor                          calls external
        inventory/labels.py::check                ext:bool                                calls external
        inventory/labels.py::check                ext:str.strip                           calls external
        inventory/store.py                        ext:logging.getLogger                   calls external
        inventory/store.py::Store._record         ext:logging.getLogger.info              calls external
        inventory/store.py::Store._record         inventory/models.py::Item.describe      calls inferred
        inventory/store.py::Store.add             inventory/models.py::Item               calls import
        inventory/store.py::Store.add             inventory/pricing.py::round_price       calls import
        inventory/store.py::Store.add             inventory/store.py::Store._record       calls exact
        inventory/store.py::Store.add             ext:min                                 calls external
        inventory/store.py::Store.value           ext:sum                                 calls external
        inventory/store.py::Store.value           ext:dict.values                         calls external
        inventory/store.py::Store.value           inventory/models.py::Item.total         calls heuristic
        inventory/store.py::open_store            inventory/store.py::Store               calls exact
        inventory/store.py::open_store            inventory/store.py::Store.add           calls inferred
        inventory/store.py::audit                 inventory/labels.py::check              calls ambiguous
        inventory/store.py::audit                 inventory/pricing.py::check             calls ambiguous
        tests/test_store.py::test_open_store_adds_welcome_card  inventory/store.py::open_store   calls import
        # store = open_store(...): open_store declares it returns a Store
        tests/test_store.py::test_open_store_adds_welcome_card  inventory/store.py::Store.value  calls inferred
        tests/test_store.py::test_perishable_expiry  inventory/models.py::Perishable             calls import
        tests/test_store.py::test_perishable_expiry  inventory/models.py::Perishable.is_expired  calls inferred
        tests/test_store.py::test_perishable_expiry  ext:datetime.date                           calls external
        # imports
        inventory/models.py   ext:datetime.date                   imports external
        inventory/pricing.py  ext:math                            imports external
        inventory/store.py    ext:logging                         imports external
        inventory/store.py    inventory/models.py::MAX_QUANTITY   imports import
        inventory/store.py    inventory/models.py::Item           imports import
        inventory/store.py    inventory/pricing.py::round_price   imports import
        tests/test_store.py   inventory/models.py::Perishable     imports import
        tests/test_store.py   inventory/store.py::open_store      imports import
        tests/test_store.py   ext:datetime.date                   imports external
        # inheritance
        inventory/models.py::Perishable  inventory/models.py::Item  inherits exact
        # tests
        tests/test_store.py  inventory/models.py  tests import
        tests/test_store.py  inventory/store.py   tests import
        tests/test_store.py::test_open_store_adds_welcome_card  inventory/store.py::open_store   tests import
        tests/test_store.py::test_open_store_adds_welcome_card  inventory/store.py::Store.value  tests inferred
        tests/test_store.py::test_perishable_expiry  inventory/models.py::Perishable             tests import
        tests/test_store.py::test_perishable_expiry  inventory/models.py::Perishable.is_expired  tests inferred
    """,
    ambiguous=(
        ("inventory/store.py::audit", "check", frozenset({"inventory/labels.py::check", "inventory/pricing.py::check"})),
    ),
    docs=(
        ("inventory/models.py", "Stock items."),
        ("inventory/models.py::Item", "A thing on a shelf."),
        ("inventory/store.py::Store.add", "Add stock, capped at MAX_QUANTITY."),
    ),
    references="""
        inventory/store.py::Store._record  inventory/models.py::Item  import
        inventory/store.py::open_store     inventory/store.py::Store  exact
    """,
)

# ---------------------------------------------------------------- JavaScript

JAVASCRIPT = Golden(
    "javascript",
    entities="""
        package.json                         file
        scripts/report.cjs                   file
        scripts/report.cjs::main             function
        src/cart.js                          file
        src/cart.js::Cart                    class
        src/cart.js::Cart.constructor        method
        src/cart.js::Cart.add                method
        src/cart.js::Cart.useCoupon          method
        src/cart.js::Cart.total              method
        src/cart.js::Cart.check              method
        src/cart.js::Cart.summary            method
        src/catalog.js                       file
        src/catalog.js::Product              class
        src/catalog.js::Product.constructor  method
        src/catalog.js::Product.label        method
        src/catalog.js::Product.validate     method
        src/catalog.js::DigitalProduct       class
        src/catalog.js::DigitalProduct.label method
        src/catalog.js::findProduct          function
        src/coupon.js                        file
        src/coupon.js::Coupon                class
        src/coupon.js::Coupon.constructor    method
        src/coupon.js::Coupon.validate       method
        src/coupon.js::Coupon.discount       method
        src/money.js                         file
        src/money.js::CURRENCY               constant
        src/money.js::formatPrice            function
        src/money.js::toUnits                function
        src/money.js::applyRate              function
        test/cart.test.js                    file
    """,
    edges="""
        # calls
        src/money.js::formatPrice              src/money.js::toUnits           calls exact
        src/money.js::toUnits                  ext:?.toFixed                   calls unresolved
        src/money.js::applyRate                ext:Math.round                  calls external
        src/catalog.js::Product.label          src/money.js::formatPrice       calls import
        src/catalog.js::Product.validate       ext:RangeError                  calls external
        src/catalog.js::DigitalProduct.label   src/catalog.js::Product.label   calls exact
        src/catalog.js::findProduct            ext:products.find                      calls unresolved
        src/coupon.js::Coupon.validate         ext:Error                       calls external
        src/coupon.js::Coupon.discount         src/money.js::applyRate         calls import
        src/cart.js::Cart.add                  src/catalog.js::Product         calls import
        src/cart.js::Cart.add                  src/catalog.js::Product.validate  calls inferred
        src/cart.js::Cart.add                  ext:self.lines.push                      calls unresolved
        src/cart.js::Cart.add                  ext:node:events.EventEmitter.emit  calls external
        src/cart.js::Cart.useCoupon            src/coupon.js::Coupon           calls import
        src/cart.js::Cart.total                ext:self.lines.reduce                    calls unresolved
        src/cart.js::Cart.total                src/coupon.js::Coupon.discount  calls inferred
        src/cart.js::Cart.check                ext:entries.forEach                   calls unresolved
        src/cart.js::Cart.check                src/catalog.js::Product.validate  calls ambiguous
        src/cart.js::Cart.check                src/coupon.js::Coupon.validate  calls ambiguous
        src/cart.js::Cart.summary              src/money.js::formatPrice       calls import
        src/cart.js::Cart.summary              src/cart.js::Cart.total         calls exact
        scripts/report.cjs                     scripts/report.cjs::main        calls exact
        scripts/report.cjs::main               src/cart.js::Cart               calls import
        scripts/report.cjs::main               src/cart.js::Cart.add           calls inferred
        scripts/report.cjs::main               src/cart.js::Cart.summary       calls inferred
        scripts/report.cjs::main               src/catalog.js::findProduct     calls import
        scripts/report.cjs::main               ext:console.log                 calls external
        scripts/report.cjs::main               ext:node:path.basename          calls external
        test/cart.test.js                      ext:vitest.describe             calls external
        test/cart.test.js                      ext:vitest.test                 calls external
        test/cart.test.js                      ext:vitest.expect               calls external
        test/cart.test.js                      ext:?.toBe                      calls unresolved
        test/cart.test.js                      src/cart.js::Cart               calls import
        test/cart.test.js                      src/cart.js::Cart.add           calls inferred
        test/cart.test.js                      src/cart.js::Cart.useCoupon     calls inferred
        test/cart.test.js                      src/cart.js::Cart.total         calls inferred
        # imports: named, renamed, default, namespace, CommonJS
        src/catalog.js      src/money.js::formatPrice      imports import
        src/coupon.js       src/money.js::applyRate        imports import
        src/cart.js         ext:node:events.EventEmitter   imports external
        src/cart.js         src/catalog.js::Product        imports import
        src/cart.js         src/coupon.js::Coupon          imports import
        src/cart.js         src/money.js                   imports import
        scripts/report.cjs  ext:node:path                  imports external
        scripts/report.cjs  src/cart.js::Cart              imports import
        scripts/report.cjs  src/catalog.js                 imports import
        test/cart.test.js   ext:vitest.describe            imports external
        test/cart.test.js   ext:vitest.expect              imports external
        test/cart.test.js   ext:vitest.test                imports external
        test/cart.test.js   src/cart.js::Cart              imports import
        # inheritance
        src/cart.js::Cart               ext:node:events.EventEmitter  inherits external
        src/catalog.js::DigitalProduct  src/catalog.js::Product       inherits exact
        # tests
        test/cart.test.js  src/cart.js  tests import
    """,
    docs=(
        ("src/money.js", "Money helpers: prices are integer cents."),
        ("src/money.js::formatPrice", "Render cents as a price tag."),
        ("src/cart.js::Cart", "The lines a customer is about to buy."),
        ("scripts/report.cjs", "Prints a sample cart: node scripts/report.cjs"),
    ),
    ambiguous=(
        ("src/cart.js::Cart.check", "validate",
         frozenset({"src/catalog.js::Product.validate", "src/coupon.js::Coupon.validate"})),
    ),
)

# ---------------------------------------------------------------- TypeScript and TSX

TYPESCRIPT = Golden(
    "typescript",
    entities="""
        package.json                       file
        src/audit.ts                           file
        src/audit.ts::AuditLog                 class
        src/audit.ts::AuditLog.record          method
        src/audit.ts::AuditLog.flush           method
        src/components/TaskList.tsx            file
        src/components/TaskList.tsx::Props     interface
        src/components/TaskList.tsx::TaskList  function
        src/format.ts                          file
        src/format.ts::MAX_TITLE               constant
        src/format.ts::formatTitle             function
        src/models/task.ts                     file
        src/models/task.ts::Task               interface
        src/models/task.ts::TaskId             interface
        src/models/task.ts::Priority           enum
        src/models/task.ts::TaskNotFound       class
        src/models/task.ts::TaskNotFound.constructor  method
        src/service.test.ts                    file
        src/service.ts                         file
        src/service.ts::TaskService            class
        src/service.ts::TaskService.constructor  method
        src/service.ts::TaskService.add        method
        src/service.ts::TaskService.complete   method
        src/service.ts::flushAll               function
        src/store.ts                           file
        src/store.ts::Repository               interface
        src/store.ts::Repository.get           method
        src/store.ts::Repository.save          method
        src/store.ts::MemoryStore              class
        src/store.ts::MemoryStore.get          method
        src/store.ts::MemoryStore.save         method
        src/store.ts::MemoryStore.nextId       method
        src/store.ts::MemoryStore.flush        method
    """,
    edges="""
        # calls; self.tasks is a Map (a field initialiser), self.repo a Repository (a parameter property)
        src/audit.ts::AuditLog.record       ext:self.entries.push                       calls unresolved
        src/audit.ts::AuditLog.record       ext:Date.now                     calls external
        src/audit.ts::AuditLog.flush        ext:self.entries.splice                     calls unresolved
        src/format.ts::formatTitle          ext:title.trim                       calls unresolved
        src/format.ts::formatTitle          ext:trimmed.slice                      calls unresolved
        src/store.ts::MemoryStore           ext:Map                          calls external
        src/store.ts::MemoryStore.get       ext:Map.get                      calls external
        src/store.ts::MemoryStore.get       src/models/task.ts::TaskNotFound  calls import
        src/store.ts::MemoryStore.save      ext:Map.set                      calls external
        src/store.ts::MemoryStore.nextId    ext:node:crypto.randomUUID       calls external
        src/store.ts::MemoryStore.flush     ext:Map.values                   calls external
        src/store.ts::MemoryStore.flush     ext:Map.clear                    calls external
        src/service.ts::TaskService         src/audit.ts::AuditLog           calls import
        src/service.ts::TaskService.constructor  src/store.ts::MemoryStore   calls import
        src/service.ts::TaskService.add     ext:String                       calls external
        src/service.ts::TaskService.add     ext:Date.now                     calls external
        src/service.ts::TaskService.add     src/format.ts::formatTitle       calls import
        src/service.ts::TaskService.add     src/store.ts::Repository.save    calls inferred
        src/service.ts::TaskService.add     src/audit.ts::AuditLog.record    calls inferred
        src/service.ts::TaskService.complete  src/store.ts::Repository.get   calls inferred
        src/service.ts::TaskService.complete  src/store.ts::Repository.save  calls inferred
        src/service.ts::flushAll            ext:targets.forEach                    calls unresolved
        src/service.ts::flushAll            src/store.ts::MemoryStore.flush  calls ambiguous
        src/service.ts::flushAll            src/audit.ts::AuditLog.flush     calls ambiguous
        # a destructured callback parameter is not a repository definition
        src/components/TaskList.tsx::TaskList  ext:tasks.filter                  calls unresolved
        src/components/TaskList.tsx::TaskList  ext:open.map                     calls unresolved
        src/components/TaskList.tsx::TaskList  ext:onSelect                  calls unresolved
        src/components/TaskList.tsx::TaskList  src/format.ts::formatTitle    calls import
        src/service.test.ts  ext:vitest.describe                calls external
        src/service.test.ts  ext:vitest.it                      calls external
        src/service.test.ts  ext:vitest.expect                  calls external
        src/service.test.ts  ext:?.toBe                         calls unresolved
        src/service.test.ts  src/store.ts::MemoryStore          calls import
        src/service.test.ts  src/store.ts::MemoryStore.get      calls inferred
        src/service.test.ts  src/service.ts::TaskService        calls import
        src/service.test.ts  src/service.ts::TaskService.add    calls inferred
        src/service.test.ts  src/service.ts::TaskService.complete  calls inferred
        # imports
        src/store.ts                 ext:node:crypto.randomUUID        imports external
        src/store.ts                 src/models/task.ts::Task          imports import
        src/store.ts                 src/models/task.ts::TaskId        imports import
        src/store.ts                 src/models/task.ts::TaskNotFound  imports import
        src/service.ts               src/audit.ts::AuditLog            imports import
        src/service.ts               src/format.ts::formatTitle        imports import
        src/service.ts               src/models/task.ts::Task          imports import
        src/service.ts               src/models/task.ts::TaskId        imports import
        src/service.ts               src/store.ts::MemoryStore         imports import
        src/service.ts               src/store.ts::Repository          imports import
        src/components/TaskList.tsx  src/models/task.ts::Task          imports import
        src/components/TaskList.tsx  src/format.ts::formatTitle        imports import
        src/service.test.ts          ext:vitest.describe               imports external
        src/service.test.ts          ext:vitest.expect                 imports external
        src/service.test.ts          ext:vitest.it                     imports external
        src/service.test.ts          src/service.ts::TaskService       imports import
        src/service.test.ts          src/store.ts::MemoryStore         imports import
        # inheritance
        src/models/task.ts::TaskNotFound  ext:Error                  inherits external
        src/store.ts::MemoryStore         src/store.ts::Repository   implements exact
        # tests
        src/service.test.ts  src/service.ts  tests import
        src/service.test.ts  src/store.ts    tests import
    """,
    docs=(
        # the comment opening task.ts documents the interface right below it, not the file
        ("src/models/task.ts", ""),
        ("src/models/task.ts::Task", "A unit of work."),
        ("src/store.ts::Repository", "Where tasks are kept."),
        ("src/components/TaskList.tsx::TaskList", "The open tasks, as a clickable list."),
    ),
    ambiguous=(
        ("src/service.ts::flushAll", "flush",
         frozenset({"src/store.ts::MemoryStore.flush", "src/audit.ts::AuditLog.flush"})),
    ),
    references="""
        src/service.ts::TaskService.constructor  src/store.ts::Repository           import
        src/store.ts::MemoryStore.get            src/models/task.ts::Task           import
        src/models/task.ts::Task                 src/models/task.ts::TaskId         exact
        src/components/TaskList.tsx::TaskList    src/components/TaskList.tsx::Props  exact
    """,
)

# ---------------------------------------------------------------- Go

GO = Golden(
    "go",
    entities="""
        go.mod                         file
        audit/log.go                       file
        audit/log.go::Log                  struct
        audit/log.go::Log.Record           method
        audit/log.go::Log.Len              method
        catalog/book.go                    file
        catalog/book.go::MaxTitle          constant
        catalog/book.go::Book              struct
        catalog/book.go::NewBook           function
        catalog/book.go::Book.Label        method
        catalog/book.go::clip              function
        catalog/book.go::Lender            interface
        catalog/book.go::Lender.Lend       method
        catalog/lending.go                 file
        catalog/lending.go::Shelf.Lend     method
        catalog/shelf.go                   file
        catalog/shelf.go::Shelf            struct
        catalog/shelf.go::Library          struct
        catalog/shelf.go::NewShelf         function
        catalog/shelf.go::Shelf.Add        method
        catalog/shelf.go::Shelf.keepSorted  method
        catalog/shelf.go::Shelf.Len        method
        catalog/shelf.go::Shelf.Log        method
        catalog/shelf_test.go              file
        catalog/shelf_test.go::TestLendRemovesTheBook  function
        cmd/shelf/main.go                  file
        cmd/shelf/main.go::main            function
        cmd/shelf/main.go::report          function
        cmd/shelf/main.go::printEvents     function
    """,
    extra_contains="""
        catalog/shelf.go::Shelf  catalog/lending.go::Shelf.Lend  same-scope
    """,
    edges="""
        # calls; receivers and parameters are typed, s.log by the Shelf struct's field (declared in shelf.go)
        audit/log.go::Log.Record         ext:append                  calls external
        audit/log.go::Log.Record         ext:time.Now                calls external
        audit/log.go::Log.Record         ext:?.Format                calls unresolved
        audit/log.go::Log.Len            ext:len                     calls external
        catalog/book.go::NewBook         catalog/book.go::clip       calls exact
        catalog/book.go::Book.Label      ext:fmt.Sprintf             calls external
        catalog/book.go::clip            ext:len                     calls external
        catalog/lending.go               ext:errors.New              calls external
        catalog/lending.go::Shelf.Lend   ext:append                  calls external
        catalog/lending.go::Shelf.Lend   audit/log.go::Log.Record    calls inferred
        catalog/shelf.go::Shelf.Add      ext:append                  calls external
        catalog/shelf.go::Shelf.Add      catalog/shelf.go::Shelf.keepSorted  calls inferred
        catalog/shelf.go::Shelf.keepSorted  ext:sort.Slice           calls external
        catalog/shelf.go::Shelf.Add      audit/log.go::Log.Record    calls inferred
        catalog/shelf.go::Shelf.Add      catalog/book.go::Book.Label  calls inferred
        catalog/shelf.go::Shelf.Len      ext:len                     calls external
        # shelf := NewShelf(): NewShelf returns *Shelf; same package without import
        catalog/shelf_test.go::TestLendRemovesTheBook  catalog/shelf.go::NewShelf     calls same-scope
        catalog/shelf_test.go::TestLendRemovesTheBook  catalog/book.go::NewBook       calls same-scope
        catalog/shelf_test.go::TestLendRemovesTheBook  catalog/shelf.go::Shelf.Add    calls inferred
        catalog/shelf_test.go::TestLendRemovesTheBook  catalog/lending.go::Shelf.Lend  calls inferred
        catalog/shelf_test.go::TestLendRemovesTheBook  catalog/shelf.go::Shelf.Len    calls inferred
        catalog/shelf_test.go::TestLendRemovesTheBook  ext:testing.T.Fatalf           calls external
        catalog/shelf_test.go::TestLendRemovesTheBook  ext:testing.T.Errorf           calls external
        # home.Add: Library embeds Shelf
        cmd/shelf/main.go::main         catalog/book.go::NewBook      calls import
        cmd/shelf/main.go::main         catalog/shelf.go::Shelf.Add   calls inferred
        cmd/shelf/main.go::main         cmd/shelf/main.go::report     calls exact
        cmd/shelf/main.go::main         cmd/shelf/main.go::printEvents  calls exact
        cmd/shelf/main.go::report       catalog/shelf.go::Shelf.Len   calls inferred
        cmd/shelf/main.go::report       ext:fmt.Println               calls external
        # s.Log().Len(): the receiver is a call result, and two types have a Len method
        cmd/shelf/main.go::printEvents  catalog/shelf.go::Shelf.Log   calls inferred
        cmd/shelf/main.go::printEvents  audit/log.go::Log.Len         calls ambiguous
        cmd/shelf/main.go::printEvents  catalog/shelf.go::Shelf.Len   calls ambiguous
        cmd/shelf/main.go::printEvents  ext:fmt.Println               calls external
        # imports: a package is its files, test files excepted
        audit/log.go           ext:time               imports external
        catalog/book.go        ext:fmt                imports external
        catalog/lending.go     ext:errors             imports external
        catalog/shelf.go       ext:sort               imports external
        catalog/shelf.go       audit/log.go           imports import
        catalog/shelf_test.go  ext:testing            imports external
        cmd/shelf/main.go      ext:fmt                imports external
        cmd/shelf/main.go      catalog/book.go        imports import
        cmd/shelf/main.go      catalog/lending.go     imports import
        cmd/shelf/main.go      catalog/shelf.go       imports import
        # embedding
        catalog/shelf.go::Library  catalog/shelf.go::Shelf  inherits exact
        # tests
        catalog/shelf_test.go  catalog/shelf.go  tests heuristic
        catalog/shelf_test.go::TestLendRemovesTheBook  catalog/shelf.go::NewShelf      tests same-scope
        catalog/shelf_test.go::TestLendRemovesTheBook  catalog/book.go::NewBook        tests same-scope
        catalog/shelf_test.go::TestLendRemovesTheBook  catalog/shelf.go::Shelf.Add     tests inferred
        catalog/shelf_test.go::TestLendRemovesTheBook  catalog/lending.go::Shelf.Lend  tests inferred
        catalog/shelf_test.go::TestLendRemovesTheBook  catalog/shelf.go::Shelf.Len     tests inferred
    """,
    docs=(
        ("catalog/book.go", "Package catalog keeps the books of a shelf."),
        ("catalog/book.go::MaxTitle", "MaxTitle is the longest title a label shows."),
        ("catalog/shelf.go::Shelf.Add", "Add puts a book on the shelf, keeping title order."),
        ("catalog/lending.go::Shelf.Lend", "Lend takes a book off the shelf for someone; Shelf is a Lender."),
    ),
    ambiguous=(
        ("cmd/shelf/main.go::printEvents", "Len",
         frozenset({"audit/log.go::Log.Len", "catalog/shelf.go::Shelf.Len"})),
    ),
    references="""
        catalog/shelf.go::Shelf          audit/log.go::Log         import
        catalog/shelf.go::Shelf          catalog/book.go::Book     same-scope
        catalog/lending.go::Shelf.Lend   catalog/shelf.go::Shelf   same-scope
        cmd/shelf/main.go::main          catalog/shelf.go::Library  import
    """,
)

# ---------------------------------------------------------------- Rust

RUST = Golden(
    "rust",
    entities="""
        Cargo.toml                         file
        src/canvas.rs                           file
        src/canvas.rs::Canvas                   struct
        src/canvas.rs::Canvas.new               method
        src/canvas.rs::Canvas.add               method
        src/canvas.rs::Canvas.add_circle        method
        src/canvas.rs::Canvas.total_area        method
        src/canvas.rs::Canvas.border            method
        src/canvas.rs::fence_length             function
        src/lib.rs                              file
        src/shapes/circle.rs                    file
        src/shapes/circle.rs::Circle            struct
        src/shapes/circle.rs::Circle.new        method
        src/shapes/circle.rs::Circle.perimeter  method
        src/shapes/circle.rs::Circle.area       method
        src/shapes/mod.rs                       file
        src/shapes/mod.rs::Shape                trait
        src/shapes/mod.rs::Shape.area           method
        src/shapes/mod.rs::Shape.describe       method
        src/shapes/polygon.rs                   file
        src/shapes/polygon.rs::Polygon          struct
        src/shapes/polygon.rs::Polygon.square     method
        src/shapes/polygon.rs::Polygon.perimeter  method
        src/shapes/polygon.rs::Polygon.edges      method
        src/shapes/polygon.rs::Polygon.area       method
        src/units.rs                            file
        src/units.rs::round2                    function
        src/units.rs::EPSILON                   constant
        tests/canvas.rs                         file
        tests/canvas.rs::total_area_sums_every_shape  function
        tests/canvas.rs::circle_describes_itself      function
    """,
    edges="""
        # calls; fields and parameters are typed, Type::new() returns Self, std and primitives are external
        src/canvas.rs::Canvas.new          ext:std.collections.BTreeMap.new     calls external
        src/canvas.rs::Canvas.new          src/shapes/polygon.rs::Polygon.square  calls import
        src/canvas.rs::Canvas.add          ext:std.collections.BTreeMap.insert  calls external
        src/canvas.rs::Canvas.add          ext:str.to_string                    calls external
        src/canvas.rs::Canvas.add_circle   src/shapes/circle.rs::Circle.new     calls import
        src/canvas.rs::Canvas.add_circle   src/canvas.rs::Canvas.add            calls exact
        src/canvas.rs::Canvas.add_circle   ext:Box.new                          calls external
        src/canvas.rs::Canvas.total_area   ext:std.collections.BTreeMap.values  calls external
        src/canvas.rs::Canvas.total_area   ext:?.map                            calls unresolved
        src/canvas.rs::Canvas.total_area   ext:?.sum                            calls unresolved
        # |s| s.area() on a boxed trait object: the trait's and both implementations
        src/canvas.rs::Canvas.total_area   src/shapes/mod.rs::Shape.area        calls ambiguous
        src/canvas.rs::Canvas.total_area   src/shapes/circle.rs::Circle.area    calls ambiguous
        src/canvas.rs::Canvas.total_area   src/shapes/polygon.rs::Polygon.area  calls ambiguous
        src/canvas.rs::Canvas.border       src/shapes/polygon.rs::Polygon.perimeter  calls inferred
        src/canvas.rs::fence_length        ext:circles.iter                     calls unresolved
        src/canvas.rs::fence_length        ext:polygons.iter                    calls unresolved
        src/canvas.rs::fence_length        ext:?.map                            calls unresolved
        src/canvas.rs::fence_length        ext:?.sum                            calls unresolved
        src/canvas.rs::fence_length        src/shapes/circle.rs::Circle.perimeter    calls ambiguous
        src/canvas.rs::fence_length        src/shapes/polygon.rs::Polygon.perimeter  calls ambiguous
        src/shapes/circle.rs::Circle.area  ext:f64.powi                         calls external
        src/shapes/mod.rs::Shape.describe  src/shapes/mod.rs::Shape.area        calls exact
        src/shapes/mod.rs::Shape.describe  src/units.rs::round2                 calls import
        src/shapes/polygon.rs::Polygon.perimeter  src/shapes/polygon.rs::Polygon.edges  calls exact
        src/shapes/polygon.rs::Polygon.perimeter  src/units.rs::round2          calls import
        src/shapes/polygon.rs::Polygon.perimeter  ext:?.hypot                   calls unresolved
        src/shapes/polygon.rs::Polygon.edges      ext:Vec.len                   calls external
        src/shapes/polygon.rs::Polygon.edges      ext:?.map                     calls unresolved
        src/shapes/polygon.rs::Polygon.edges      ext:?.collect                 calls unresolved
        src/shapes/polygon.rs::Polygon.area       src/shapes/polygon.rs::Polygon.edges  calls exact
        src/shapes/polygon.rs::Polygon.area       ext:?.iter                    calls unresolved
        src/shapes/polygon.rs::Polygon.area       ext:?.map                     calls unresolved
        src/shapes/polygon.rs::Polygon.area       ext:?.sum                     calls unresolved
        src/shapes/polygon.rs::Polygon.area       ext:f64.abs                   calls external
        src/units.rs::round2                      ext:?.round                   calls unresolved
        # the integration test names the crate; calls inside assert! are seen
        tests/canvas.rs::total_area_sums_every_shape  src/canvas.rs::Canvas.new         calls import
        tests/canvas.rs::total_area_sums_every_shape  src/canvas.rs::Canvas.add_circle  calls inferred
        tests/canvas.rs::total_area_sums_every_shape  src/canvas.rs::Canvas.total_area  calls inferred
        tests/canvas.rs::total_area_sums_every_shape  ext:?.abs                         calls unresolved
        tests/canvas.rs::circle_describes_itself      src/shapes/circle.rs::Circle.new  calls import
        tests/canvas.rs::circle_describes_itself      src/shapes/mod.rs::Shape.describe  calls inferred
        tests/canvas.rs::circle_describes_itself      ext:?.starts_with                 calls unresolved
        # imports: `mod x;`, use paths with braces and renames, re-exports followed
        src/lib.rs             src/canvas.rs                      imports import
        src/lib.rs             src/shapes/mod.rs                  imports import
        src/lib.rs             src/units.rs                       imports import
        src/lib.rs             src/canvas.rs::Canvas              imports import
        src/canvas.rs          ext:std.collections.BTreeMap       imports external
        src/canvas.rs          src/shapes/circle.rs::Circle       imports import
        src/canvas.rs          src/shapes/polygon.rs::Polygon     imports import
        src/canvas.rs          src/shapes/mod.rs::Shape           imports import
        src/shapes/mod.rs      src/shapes/circle.rs               imports import
        src/shapes/mod.rs      src/shapes/polygon.rs              imports import
        src/shapes/mod.rs      src/shapes/circle.rs::Circle       imports import
        src/shapes/mod.rs      src/shapes/polygon.rs::Polygon     imports import
        src/shapes/circle.rs   ext:std.f64.consts.PI              imports external
        src/shapes/circle.rs   src/shapes/mod.rs::Shape           imports import
        src/shapes/polygon.rs  src/shapes/mod.rs::Shape           imports import
        src/shapes/polygon.rs  src/units.rs::round2               imports import
        src/shapes/polygon.rs  src/units.rs::EPSILON              imports import
        tests/canvas.rs        src/canvas.rs::Canvas              imports import
        tests/canvas.rs        src/shapes/circle.rs::Circle       imports import
        tests/canvas.rs        src/shapes/mod.rs::Shape           imports import
        # supertrait and trait impls
        src/shapes/mod.rs::Shape          ext:std.fmt.Debug         inherits external
        src/shapes/circle.rs::Circle      src/shapes/mod.rs::Shape  implements import
        src/shapes/polygon.rs::Polygon    src/shapes/mod.rs::Shape  implements import
        # tests: #[test] functions are named freely
        tests/canvas.rs  src/canvas.rs         tests import
        tests/canvas.rs  src/shapes/circle.rs  tests import
        tests/canvas.rs  src/shapes/mod.rs     tests import
        tests/canvas.rs::total_area_sums_every_shape  src/canvas.rs::Canvas.new          tests import
        tests/canvas.rs::total_area_sums_every_shape  src/canvas.rs::Canvas.add_circle   tests inferred
        tests/canvas.rs::total_area_sums_every_shape  src/canvas.rs::Canvas.total_area   tests inferred
        tests/canvas.rs::circle_describes_itself      src/shapes/circle.rs::Circle.new   tests import
        tests/canvas.rs::circle_describes_itself      src/shapes/mod.rs::Shape.describe  tests inferred
    """,
    docs=(
        ("src/lib.rs", "Shapes and a canvas that sums their areas."),
        ("src/units.rs", ""),
        ("src/units.rs::round2", "Rounds to two decimals, for printing."),
        ("src/shapes/circle.rs::Circle", "A circle around the origin."),  # above #[derive(...)]
        ("src/canvas.rs::Canvas.total_area", "The sum of every shape's area."),
    ),
    ambiguous=(
        ("src/canvas.rs::fence_length", "perimeter",
         frozenset({"src/shapes/circle.rs::Circle.perimeter", "src/shapes/polygon.rs::Polygon.perimeter"})),
    ),
    references="""
        src/canvas.rs::Canvas      src/shapes/polygon.rs::Polygon  import
        src/canvas.rs::Canvas      src/shapes/mod.rs::Shape        import
        src/shapes/circle.rs::Circle.new  src/shapes/circle.rs::Circle  exact
    """,
)

# ---------------------------------------------------------------- Java

JAVA = Golden(
    "java",
    folders=(("M", "src/main/java/com/example/library"), ("T", "src/test/java/com/example/library")),
    entities="""
        pom.xml                               file
        M/Book.java                           file
        M/Book.java::Book                     class
        M/Book.java::Book.describe            method
        M/Catalog.java                        file
        M/Catalog.java::Catalog               interface
        M/Catalog.java::Catalog.find          method
        M/Catalog.java::Catalog.add           method
        M/Library.java                        file
        M/Library.java::Library               class
        M/Library.java::Library.Library       method
        M/Library.java::Library.lend          method
        M/Library.java::Library.notify        method
        M/Library.java::Library.notices       method
        M/Library.java::Library.printAll      method
        M/Member.java                         file
        M/Member.java::Member                 class
        M/Member.java::Member.Member          method
        M/Member.java::Member.describe        method
        M/MemoryCatalog.java                  file
        M/MemoryCatalog.java::MemoryCatalog       class
        M/MemoryCatalog.java::MemoryCatalog.find  method
        M/MemoryCatalog.java::MemoryCatalog.add   method
        M/notify/EmailNotifier.java                      file
        M/notify/EmailNotifier.java::EmailNotifier       class
        M/notify/EmailNotifier.java::EmailNotifier.send  method
        M/notify/Notifier.java                file
        M/notify/Notifier.java::Notifier      class
        M/notify/Notifier.java::Notifier.send   method
        M/notify/Notifier.java::Notifier.count  method
        M/util/Strings.java                   file
        M/util/Strings.java::Strings          class
        M/util/Strings.java::Strings.MAX_ISBN   constant
        M/util/Strings.java::Strings.Strings    method
        M/util/Strings.java::Strings.normalize  method
        T/LibraryTest.java                    file
        T/LibraryTest.java::LibraryTest       class
        T/LibraryTest.java::LibraryTest.lendingNotifiesTheMember  method
    """,
    edges="""
        # calls; fields are typed by their declarations (used with and without this.), java.lang is external
        M/Library.java::Library             M/notify/EmailNotifier.java::EmailNotifier  calls import
        M/Library.java::Library.lend        M/Catalog.java::Catalog.find        calls inferred
        M/Library.java::Library.lend        ext:?.orElseThrow                   calls unresolved
        M/Library.java::Library.lend        ext:IllegalArgumentException        calls external
        M/Library.java::Library.lend        M/Library.java::Library.notify      calls exact
        M/Library.java::Library.lend        M/Book.java::Book.describe          calls inferred
        M/Library.java::Library.notify      M/notify/Notifier.java::Notifier.send  calls inferred
        M/Library.java::Library.notify      M/Member.java::Member.describe      calls inferred
        M/Library.java::Library.notices     M/notify/Notifier.java::Notifier.count  calls inferred
        M/Library.java::Library.printAll    ext:java.util.List.forEach          calls external
        M/Library.java::Library.printAll    ext:System.out.println              calls external
        # thing -> thing.describe(): a lambda parameter has no written type
        M/Library.java::Library.printAll    M/Book.java::Book.describe          calls ambiguous
        M/Library.java::Library.printAll    M/Member.java::Member.describe      calls ambiguous
        M/MemoryCatalog.java::MemoryCatalog       ext:java.util.HashMap              calls external
        M/MemoryCatalog.java::MemoryCatalog.find  ext:java.util.Optional.ofNullable  calls external
        M/MemoryCatalog.java::MemoryCatalog.find  ext:java.util.Map.get              calls external
        M/MemoryCatalog.java::MemoryCatalog.find  M/util/Strings.java::Strings.normalize  calls import
        M/MemoryCatalog.java::MemoryCatalog.add   ext:java.util.Map.put              calls external
        M/MemoryCatalog.java::MemoryCatalog.add   M/util/Strings.java::Strings.normalize  calls import
        # a record's accessors are implicit: no entity to point at
        M/MemoryCatalog.java::MemoryCatalog.add   ext:book.isbn                         calls unresolved
        M/notify/Notifier.java::Notifier          ext:java.util.ArrayList            calls external
        M/notify/Notifier.java::Notifier.send     ext:java.util.List.add             calls external
        M/notify/Notifier.java::Notifier.count    ext:java.util.List.size            calls external
        M/notify/EmailNotifier.java::EmailNotifier.send  M/notify/Notifier.java::Notifier.send  calls exact
        M/util/Strings.java::Strings.normalize    ext:String.replaceAll              calls external
        M/util/Strings.java::Strings.normalize    ext:?.toUpperCase                  calls unresolved
        # the test shares the package: no imports needed
        T/LibraryTest.java::LibraryTest.lendingNotifiesTheMember  M/MemoryCatalog.java::MemoryCatalog  calls same-scope
        T/LibraryTest.java::LibraryTest.lendingNotifiesTheMember  M/Catalog.java::Catalog.add          calls inferred
        T/LibraryTest.java::LibraryTest.lendingNotifiesTheMember  M/Book.java::Book                    calls same-scope
        T/LibraryTest.java::LibraryTest.lendingNotifiesTheMember  M/Library.java::Library              calls same-scope
        T/LibraryTest.java::LibraryTest.lendingNotifiesTheMember  M/Library.java::Library.lend         calls inferred
        T/LibraryTest.java::LibraryTest.lendingNotifiesTheMember  M/Member.java::Member                calls same-scope
        T/LibraryTest.java::LibraryTest.lendingNotifiesTheMember  M/Library.java::Library.notices      calls inferred
        T/LibraryTest.java::LibraryTest.lendingNotifiesTheMember  ext:org.junit.jupiter.api.Assertions.assertEquals  calls external
        T/LibraryTest.java::LibraryTest.lendingNotifiesTheMember  ext:book.title                          calls unresolved
        # imports: classes, a package's classes (notify.*), a static method
        M/Catalog.java        ext:java.util.Optional                      imports external
        M/Library.java        ext:java.util.List                          imports external
        M/Library.java        M/notify/EmailNotifier.java                 imports import
        M/Library.java        M/notify/Notifier.java                      imports import
        M/MemoryCatalog.java  ext:java.util.HashMap                       imports external
        M/MemoryCatalog.java  ext:java.util.Map                           imports external
        M/MemoryCatalog.java  ext:java.util.Optional                      imports external
        M/MemoryCatalog.java  M/util/Strings.java::Strings.normalize      imports import
        M/notify/Notifier.java  ext:java.util.ArrayList                   imports external
        M/notify/Notifier.java  ext:java.util.List                        imports external
        M/util/Strings.java   ext:java.util.Locale                        imports external
        T/LibraryTest.java    ext:org.junit.jupiter.api.Assertions.assertEquals  imports external
        T/LibraryTest.java    ext:org.junit.jupiter.api.Test              imports external
        # inheritance within a package
        M/notify/EmailNotifier.java::EmailNotifier  M/notify/Notifier.java::Notifier  inherits same-scope
        M/MemoryCatalog.java::MemoryCatalog         M/Catalog.java::Catalog           implements same-scope
        # tests: LibraryTest.java is named after Library.java; @Test methods are named freely
        T/LibraryTest.java  M/Library.java  tests heuristic
        T/LibraryTest.java::LibraryTest.lendingNotifiesTheMember  M/MemoryCatalog.java::MemoryCatalog  tests same-scope
        T/LibraryTest.java::LibraryTest.lendingNotifiesTheMember  M/Catalog.java::Catalog.add          tests inferred
        T/LibraryTest.java::LibraryTest.lendingNotifiesTheMember  M/Book.java::Book                    tests same-scope
        T/LibraryTest.java::LibraryTest.lendingNotifiesTheMember  M/Library.java::Library              tests same-scope
        T/LibraryTest.java::LibraryTest.lendingNotifiesTheMember  M/Library.java::Library.lend         tests inferred
        T/LibraryTest.java::LibraryTest.lendingNotifiesTheMember  M/Member.java::Member                tests same-scope
        T/LibraryTest.java::LibraryTest.lendingNotifiesTheMember  M/Library.java::Library.notices      tests inferred
    """,
    docs=(
        ("M/Book.java::Book", "A book the library owns, by ISBN."),
        ("M/util/Strings.java::Strings.normalize", "Strips dashes and spaces from an ISBN."),
        ("M/notify/EmailNotifier.java::EmailNotifier", "Sends messages by email; here it only prefixes them."),
    ),
    ambiguous=(
        ("M/Library.java::Library.printAll", "describe",
         frozenset({"M/Book.java::Book.describe", "M/Member.java::Member.describe"})),
    ),
    references="""
        M/Library.java::Library.notify        M/Member.java::Member       same-scope
        M/MemoryCatalog.java::MemoryCatalog   M/Book.java::Book           same-scope
        M/Library.java::Library               M/notify/Notifier.java::Notifier  import
    """,
)

GOLDENS = [PYTHON, JAVASCRIPT, TYPESCRIPT, GO, RUST, JAVA]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> dict[str, Indexed]:
    base = tmp_path_factory.mktemp("languages")
    return {golden.language: index_fixture(golden.language, base) for golden in GOLDENS}


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda g: g.language)
def test_fixture_parses_cleanly(golden: Golden, indexed):
    assert indexed[golden.language].errors == {}


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda g: g.language)
def test_entities(golden: Golden, indexed):
    assert indexed[golden.language].entities == golden.entity_set()


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda g: g.language)
def test_edges(golden: Golden, indexed):
    found = indexed[golden.language].edge_set()
    expected = golden.edge_set()
    assert sorted(found - expected) == [], "unexpected edges"
    assert sorted(expected - found) == [], "missing edges"


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda g: g.language)
def test_references(golden: Golden, indexed):
    found = indexed[golden.language].edge_set(("references",))
    expected = {(s, t, "references", r) for s, t, r in golden.rows(golden.references)}
    assert sorted(expected - found) == []


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda g: g.language)
def test_docs(golden: Golden, indexed):
    docs = indexed[golden.language].docs
    expected = {golden.expand(entity_id): doc for entity_id, doc in golden.docs}
    assert {entity_id: docs.get(entity_id) for entity_id in expected} == expected


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda g: g.language)
def test_ambiguous_calls_stay_ambiguous(golden: Golden, indexed):
    """A name two unrelated files define, called without import or type evidence: low-confidence
    edges to each candidate, and no exact (or otherwise resolved) edge invented for it."""
    edges = indexed[golden.language].edges
    for caller, name, candidates in golden.ambiguous:
        caller = golden.expand(caller)
        to_name = [e for e in edges if e[0] == caller and e[2] == "calls" and _named(e[1], name)]
        assert {e[1] for e in to_name} == {golden.expand(c) for c in candidates}
        assert all(e[3] == "ambiguous" and e[4] < 0.5 for e in to_name), to_name


def _named(target: str, name: str) -> bool:
    return target.rpartition("::")[2].rpartition(".")[2] == name


# ---------------------------------------------------------------- import forms, fact by fact

IMPORT_FORMS = {
    ("python", "m.py"): (
        "import os.path\nimport numpy as np\nfrom . import sibling\nfrom ..pkg.mod import a, b as c\nfrom x import *\n",
        {("os.path", None, None, False), ("numpy", None, "np", False), (".", "sibling", None, False),
         ("..pkg.mod", "a", None, False), ("..pkg.mod", "b", "c", False), ("x", None, None, True)},
    ),
    ("javascript", "m.js"): (
        "import def from './a';\nimport { b, c as d } from './b';\nimport * as ns from './c';\nimport './side';\n"
        "export { e as f } from './e';\nexport * from './all';\n"
        "const m = require('./m');\nconst { g, h: i } = require('./g');\n",
        {("./a", "def", "def", False), ("./b", "b", None, False), ("./b", "c", "d", False),
         ("./c", None, "ns", False), ("./side", None, None, False), ("./e", "e", "f", False),
         ("./all", None, None, True), ("./m", None, "m", False), ("./g", "g", None, False), ("./g", "h", "i", False)},
    ),
    ("typescript", "m.ts"): (
        "import type { T } from './t';\nimport fs = require('fs');\nimport { b as c } from './b';\n",
        {("./t", "T", None, False), ("fs", None, "fs", False), ("./b", "b", "c", False)},
    ),
    ("tsx", "m.tsx"): (
        "import React from 'react';\nimport type { T } from './t';\n"
        "export const View = ({ t }: { t: T }) => <div>{t.name}</div>;\n",
        {("react", "React", "React", False), ("./t", "T", None, False)},
    ),
    ("go", "m.go"): (
        'package p\n\nimport (\n\t"fmt"\n\tstr "strings"\n\t. "math"\n\t_ "embed"\n)\n',
        {("fmt", None, None, False), ("strings", None, "str", False), ("math", None, None, True),
         ("embed", None, None, False)},
    ),
    ("rust", "m.rs"): (
        "use std::fmt;\nuse crate::a::B;\nuse crate::a::C as D;\nuse super::m::{E, F as G, self};\n"
        "use std::collections::*;\nuse serde;\nmod child;\nmod inline {}\n",
        {("std", "fmt", None, False), ("crate::a", "B", None, False), ("crate::a", "C", "D", False),
         ("super::m", "E", None, False), ("super::m", "F", "G", False), ("super::m", None, None, False),
         ("std::collections", None, None, True), ("serde", None, None, False), ("child", None, None, False)},
    ),
    ("java", "M.java"): (
        "package a.b;\n\nimport java.util.List;\nimport static a.b.C.m;\nimport a.c.*;\nimport static org.junit.Assert.*;\n"
        "class M {}\n",
        {("java.util", "List", None, False), ("a.b.C", "m", None, False), ("a.c", None, None, True),
         ("org.junit.Assert", None, None, True)},
    ),
}


@pytest.mark.parametrize(("language", "path"), list(IMPORT_FORMS), ids=[language for language, _ in IMPORT_FORMS])
def test_import_forms(language: str, path: str):
    source, expected = IMPORT_FORMS[language, path]
    facts = extract(path, language, source.encode())
    assert facts.error_count == 0
    assert {(i.module, i.name, i.alias, i.wildcard) for i in facts.imports} == expected
