"""Golden tests for the languages beyond the first six (C, C++, C#, Ruby, PHP, Kotlin, Swift,
Scala, Bash and Lua): each small project under tests/fixtures/<language>/ is indexed and its
entities and edges are compared with sets checked by hand against what the code means, in the
format of test_languages.py. Each fixture has a cross-file call, an import, inheritance where the
language has it, an ambiguous call, an external call and a test."""

from __future__ import annotations

import pytest

from test_languages import Golden, Indexed, _named, index_fixture


# ---------------------------------------------------------------- c

C = Golden(
    "c",
    entities="""
        src/log.c                       file
        src/log.c::flush                function
        src/main.c                      file
        src/main.c::main                function
        src/shape.c                     file
        src/shape.c::shape_distance     function
        src/shape.c::shape_area         function
        src/shape.h                     file
        src/shape.h::shape              struct
        src/vec.c                       file
        src/vec.c::vec_add              function
        src/vec.c::vec_len              function
        src/vec.c::flush                function
        src/vec.h                       file
        src/vec.h::VEC_EPSILON          constant
        src/vec.h::Vec                  struct
        tests/test_vec.c                file
        tests/test_vec.c::test_vec_add  function
        tests/test_vec.c::main          function
    """,
    edges="""
        # calls
        src/log.c::flush                ext:fputs                       calls external
        src/main.c::main                ext:printf                      calls external
        src/main.c::main                src/log.c::flush                calls ambiguous
        src/main.c::main                src/shape.c::shape_distance     calls import
        src/main.c::main                src/vec.c::flush                calls ambiguous
        src/shape.c::shape_area         ext:s.area                      calls unresolved
        src/shape.c::shape_distance     src/vec.c::vec_add              calls import
        src/shape.c::shape_distance     src/vec.c::vec_len              calls import
        src/vec.c::flush                ext:fflush                      calls external
        src/vec.c::vec_len              ext:sqrt                        calls external
        tests/test_vec.c::main          tests/test_vec.c::test_vec_add  calls exact
        tests/test_vec.c::test_vec_add  ext:assert                      calls external
        tests/test_vec.c::test_vec_add  src/vec.c::vec_add              calls import
        # imports
        src/log.c                       ext:stdio.h                     imports external
        src/main.c                      ext:stdio.h                     imports external
        src/main.c                      src/shape.c                     imports import
        src/main.c                      src/shape.h                     imports import
        src/shape.c                     src/shape.h                     imports import
        src/shape.c                     src/vec.c                       imports import
        src/shape.c                     src/vec.h                       imports import
        src/shape.h                     src/vec.c                       imports import
        src/shape.h                     src/vec.h                       imports import
        src/vec.c                       ext:math.h                      imports external
        src/vec.c                       ext:stdio.h                     imports external
        src/vec.c                       src/vec.h                       imports import
        tests/test_vec.c                ext:assert.h                    imports external
        tests/test_vec.c                src/vec.c                       imports import
        tests/test_vec.c                src/vec.h                       imports import
        # tests
        tests/test_vec.c                src/vec.c                       tests import
        tests/test_vec.c                src/vec.h                       tests import
        tests/test_vec.c::test_vec_add  src/vec.c::vec_add              tests import
    """,
    references="""
        src/main.c::main  src/shape.h::shape  import
        src/shape.c::shape_area  src/shape.h::shape  import
        src/shape.c::shape_distance  src/shape.h::shape  import
        src/shape.c::shape_distance  src/vec.h::Vec  import
        src/shape.h  src/shape.h::shape  exact
        src/shape.h::shape  src/vec.h::Vec  import
        src/vec.c::vec_add  src/vec.h::Vec  import
        src/vec.c::vec_len  src/vec.h::Vec  import
        src/vec.h  src/vec.h::Vec  exact
        tests/test_vec.c::test_vec_add  src/vec.h::Vec  import
    """,
    ambiguous=(
        ("src/main.c::main", "flush", frozenset({"src/log.c::flush", "src/vec.c::flush"})),
    ),
    docs=(
        ("src/log.c::flush", "Writes buffered log lines out."),
        ("src/vec.c::vec_add", "Adds two vectors component by component."),
        ("src/vec.h", "Two-dimensional vectors."),
        ("src/vec.h::Vec", "A point or a displacement in the plane."),
    ),
)

# ---------------------------------------------------------------- cpp

CPP = Golden(
    "cpp",
    entities="""
        include/geo/circle.hpp                        file
        include/geo/circle.hpp::Circle                class
        include/geo/shape.hpp                         file
        include/geo/shape.hpp::Shape                  class
        include/geo/square.hpp                        file
        include/geo/square.hpp::Square                class
        include/geo/square.hpp::Square.Square         method
        include/geo/square.hpp::Square.area           method
        src/canvas.cpp                                file
        src/canvas.cpp::Canvas                        class
        src/canvas.cpp::Canvas.add                    method
        src/canvas.cpp::Canvas.total                  method
        src/canvas.cpp::main                          function
        src/circle.cpp                                file
        src/circle.cpp::Circle.Circle                 method
        src/circle.cpp::Circle.area                   method
        src/circle.cpp::Circle.unit                   method
        src/shape.cpp                                 file
        src/shape.cpp::Shape.describe                 method
        tests/test_circle.cpp                         file
        tests/test_circle.cpp::test_unit_circle_area  function
        tests/test_circle.cpp::main                   function
    """,
    edges="""
        # calls
        src/canvas.cpp::Canvas.add                    ext:shapes_.push_back                         calls unresolved
        src/canvas.cpp::Canvas.total                  include/geo/square.hpp::Square.area           calls ambiguous
        src/canvas.cpp::Canvas.total                  src/circle.cpp::Circle.area                   calls ambiguous
        src/canvas.cpp::main                          ext:std.printf                                calls external
        src/canvas.cpp::main                          include/geo/circle.hpp::Circle                calls import
        src/canvas.cpp::main                          include/geo/square.hpp::Square                calls import
        src/canvas.cpp::main                          src/canvas.cpp::Canvas.add                    calls inferred
        src/canvas.cpp::main                          src/canvas.cpp::Canvas.total                  calls inferred
        src/circle.cpp::Circle.unit                   src/circle.cpp::Circle.Circle                 calls exact
        src/shape.cpp::Shape.describe                 ext:area                                      calls unresolved
        src/shape.cpp::Shape.describe                 ext:std.to_string                             calls external
        tests/test_circle.cpp::main                   tests/test_circle.cpp::test_unit_circle_area  calls exact
        tests/test_circle.cpp::test_unit_circle_area  ext:?.empty                                   calls unresolved
        tests/test_circle.cpp::test_unit_circle_area  ext:assert                                    calls external
        tests/test_circle.cpp::test_unit_circle_area  src/circle.cpp::Circle.area                   calls inferred
        tests/test_circle.cpp::test_unit_circle_area  src/circle.cpp::Circle.unit                   calls import
        tests/test_circle.cpp::test_unit_circle_area  src/shape.cpp::Shape.describe                 calls inferred
        # imports
        include/geo/circle.hpp                        include/geo/shape.hpp                         imports import
        include/geo/circle.hpp                        src/shape.cpp                                 imports import
        include/geo/shape.hpp                         ext:string                                    imports external
        include/geo/square.hpp                        include/geo/shape.hpp                         imports import
        include/geo/square.hpp                        src/shape.cpp                                 imports import
        src/canvas.cpp                                ext:cstdio                                    imports external
        src/canvas.cpp                                ext:vector                                    imports external
        src/canvas.cpp                                include/geo/circle.hpp                        imports import
        src/canvas.cpp                                include/geo/square.hpp                        imports import
        src/canvas.cpp                                src/circle.cpp                                imports import
        src/circle.cpp                                include/geo/circle.hpp                        imports import
        src/shape.cpp                                 include/geo/shape.hpp                         imports import
        tests/test_circle.cpp                         ext:cassert                                   imports external
        tests/test_circle.cpp                         include/geo/circle.hpp                        imports import
        tests/test_circle.cpp                         src/circle.cpp                                imports import
        # inherits
        include/geo/circle.hpp::Circle                include/geo/shape.hpp::Shape                  inherits import
        include/geo/square.hpp::Square                include/geo/shape.hpp::Shape                  inherits import
        # tests
        tests/test_circle.cpp                         include/geo/circle.hpp                        tests import
        tests/test_circle.cpp                         src/circle.cpp                                tests import
        tests/test_circle.cpp::test_unit_circle_area  src/circle.cpp::Circle.area                   tests inferred
        tests/test_circle.cpp::test_unit_circle_area  src/circle.cpp::Circle.unit                   tests import
        tests/test_circle.cpp::test_unit_circle_area  src/shape.cpp::Shape.describe                 tests inferred
    """,
    extra_contains="""
        include/geo/circle.hpp::Circle  src/circle.cpp::Circle.Circle  same-scope
        include/geo/circle.hpp::Circle  src/circle.cpp::Circle.area  same-scope
        include/geo/circle.hpp::Circle  src/circle.cpp::Circle.unit  same-scope
        include/geo/shape.hpp::Shape  src/shape.cpp::Shape.describe  same-scope
    """,
    references="""
        src/canvas.cpp::Canvas  include/geo/shape.hpp::Shape  heuristic
        src/canvas.cpp::Canvas.add  include/geo/shape.hpp::Shape  heuristic
        src/canvas.cpp::main  src/canvas.cpp::Canvas  exact
        tests/test_circle.cpp::test_unit_circle_area  include/geo/circle.hpp::Circle  import
    """,
    ambiguous=(
        ("src/canvas.cpp::Canvas.total", "area", frozenset({"include/geo/square.hpp::Square.area", "src/circle.cpp::Circle.area"})),
    ),
    docs=(
        ("include/geo/shape.hpp", "Shapes in the plane."),
        ("include/geo/shape.hpp::Shape", "Anything with an area."),
        ("src/canvas.cpp::Canvas", "Holds shapes and sums their areas."),
        ("src/circle.cpp::Circle.area", "pi r squared"),
    ),
)

# ---------------------------------------------------------------- csharp

CSHARP = Golden(
    "csharp",
    entities="""
        src/Billing/Invoice.cs                              file
        src/Billing/Invoice.cs::Invoice                     class
        src/Billing/Invoice.cs::Invoice.Add                 method
        src/Billing/Invoice.cs::Invoice.Total               method
        src/Billing/Invoice.cs::Invoice.Round               method
        src/Billing/Ledger.cs                               file
        src/Billing/Ledger.cs::Ledger                       class
        src/Billing/Ledger.cs::Ledger.Record                method
        src/Billing/Ledger.cs::Ledger.Flush                 method
        src/Shapes/Circle.cs                                file
        src/Shapes/Circle.cs::Circle                        class
        src/Shapes/Circle.cs::Circle.Tolerance              constant
        src/Shapes/Circle.cs::Circle.Circle                 method
        src/Shapes/Circle.cs::Circle.Area                   method
        src/Shapes/Circle.cs::Circle.Unit                   method
        src/Shapes/IDescribable.cs                          file
        src/Shapes/IDescribable.cs::IDescribable            interface
        src/Shapes/IDescribable.cs::IDescribable.Describe   method
        src/Shapes/Shape.cs                                 file
        src/Shapes/Shape.cs::Shape                          class
        src/Shapes/Shape.cs::Shape.Area                     method
        src/Shapes/Shape.cs::Shape.Describe                 method
        tests/InvoiceTests.cs                               file
        tests/InvoiceTests.cs::InvoiceTests                 class
        tests/InvoiceTests.cs::InvoiceTests.TotalSumsAreas  method
    """,
    edges="""
        # calls
        src/Billing/Invoice.cs::Invoice                     ext:List                                  calls unresolved
        src/Billing/Invoice.cs::Invoice                     src/Billing/Ledger.cs::Ledger             calls same-scope
        src/Billing/Invoice.cs::Invoice.Add                 ext:lines.Add                             calls unresolved
        src/Billing/Invoice.cs::Invoice.Add                 src/Billing/Ledger.cs::Ledger.Record      calls inferred
        src/Billing/Invoice.cs::Invoice.Add                 src/Shapes/Shape.cs::Shape.Describe       calls inferred
        src/Billing/Invoice.cs::Invoice.Round               ext:System.Math.Round                     calls external
        src/Billing/Invoice.cs::Invoice.Total               src/Billing/Invoice.cs::Invoice.Round     calls exact
        src/Billing/Invoice.cs::Invoice.Total               src/Shapes/Circle.cs::Circle.Area         calls ambiguous
        src/Billing/Invoice.cs::Invoice.Total               src/Shapes/Shape.cs::Shape.Area           calls ambiguous
        src/Billing/Ledger.cs::Ledger.Record                src/Billing/Ledger.cs::Ledger.Flush       calls exact
        src/Shapes/Circle.cs::Circle.Unit                   src/Shapes/Circle.cs::Circle.Circle       calls exact
        src/Shapes/Shape.cs::Shape.Describe                 ext:GetType                               calls unresolved
        src/Shapes/Shape.cs::Shape.Describe                 src/Shapes/Shape.cs::Shape.Area           calls exact
        tests/InvoiceTests.cs::InvoiceTests.TotalSumsAreas  ext:Assert.Equal                          calls unresolved
        tests/InvoiceTests.cs::InvoiceTests.TotalSumsAreas  src/Billing/Invoice.cs::Invoice           calls import
        tests/InvoiceTests.cs::InvoiceTests.TotalSumsAreas  src/Billing/Invoice.cs::Invoice.Add       calls inferred
        tests/InvoiceTests.cs::InvoiceTests.TotalSumsAreas  src/Billing/Invoice.cs::Invoice.Total     calls inferred
        tests/InvoiceTests.cs::InvoiceTests.TotalSumsAreas  src/Shapes/Circle.cs::Circle.Unit         calls import
        # implements
        src/Shapes/Shape.cs::Shape                          src/Shapes/IDescribable.cs::IDescribable  implements same-scope
        # imports
        src/Billing/Invoice.cs                              ext:System.Collections.Generic            imports external
        src/Billing/Invoice.cs                              src/Shapes/Circle.cs                      imports import
        src/Billing/Invoice.cs                              src/Shapes/IDescribable.cs                imports import
        src/Billing/Invoice.cs                              src/Shapes/Shape.cs                       imports import
        src/Shapes/Circle.cs                                ext:System                                imports external
        tests/InvoiceTests.cs                               ext:Xunit                                 imports external
        tests/InvoiceTests.cs                               src/Billing/Invoice.cs                    imports import
        tests/InvoiceTests.cs                               src/Billing/Ledger.cs                     imports import
        tests/InvoiceTests.cs                               src/Shapes/Circle.cs                      imports import
        tests/InvoiceTests.cs                               src/Shapes/IDescribable.cs                imports import
        tests/InvoiceTests.cs                               src/Shapes/Shape.cs                       imports import
        # inherits
        src/Shapes/Circle.cs::Circle                        src/Shapes/Shape.cs::Shape                inherits same-scope
        # tests
        tests/InvoiceTests.cs                               src/Billing/Invoice.cs                    tests import
        tests/InvoiceTests.cs                               src/Billing/Ledger.cs                     tests import
        tests/InvoiceTests.cs                               src/Shapes/Circle.cs                      tests import
        tests/InvoiceTests.cs                               src/Shapes/IDescribable.cs                tests import
        tests/InvoiceTests.cs                               src/Shapes/Shape.cs                       tests import
        tests/InvoiceTests.cs::InvoiceTests.TotalSumsAreas  src/Billing/Invoice.cs::Invoice           tests import
        tests/InvoiceTests.cs::InvoiceTests.TotalSumsAreas  src/Billing/Invoice.cs::Invoice.Add       tests inferred
        tests/InvoiceTests.cs::InvoiceTests.TotalSumsAreas  src/Billing/Invoice.cs::Invoice.Total     tests inferred
        tests/InvoiceTests.cs::InvoiceTests.TotalSumsAreas  src/Shapes/Circle.cs::Circle.Unit         tests import
    """,
    references="""
        src/Billing/Invoice.cs::Invoice  src/Billing/Ledger.cs::Ledger  same-scope
        src/Billing/Invoice.cs::Invoice  src/Shapes/Shape.cs::Shape  import
        src/Billing/Invoice.cs::Invoice.Add  src/Shapes/Shape.cs::Shape  import
        src/Shapes/Circle.cs::Circle.Unit  src/Shapes/Circle.cs::Circle.Circle  exact
        tests/InvoiceTests.cs::InvoiceTests.TotalSumsAreas  src/Billing/Invoice.cs::Invoice  import
    """,
    ambiguous=(
        ("src/Billing/Invoice.cs::Invoice.Total", "Area", frozenset({"src/Shapes/Circle.cs::Circle.Area", "src/Shapes/Shape.cs::Shape.Area"})),
    ),
    docs=(
        ("src/Billing/Invoice.cs::Invoice", "Prices painted shapes by their area."),
        ("src/Shapes/Shape.cs::Shape", "<summary>Anything with an area.</summary>"),
    ),
)

# ---------------------------------------------------------------- ruby

RUBY = Golden(
    "ruby",
    entities="""
        lib/geo/canvas.rb                                             file
        lib/geo/canvas.rb::Canvas                                     class
        lib/geo/canvas.rb::Canvas.initialize                          method
        lib/geo/canvas.rb::Canvas.add_circle                          method
        lib/geo/canvas.rb::Canvas.total                               method
        lib/geo/canvas.rb::Canvas.to_json                             method
        lib/geo/canvas.rb::Report                                     class
        lib/geo/canvas.rb::Report.line                                method
        lib/geo/circle.rb                                             file
        lib/geo/circle.rb::Circle                                     class
        lib/geo/circle.rb::Circle.initialize                          method
        lib/geo/circle.rb::Circle.area                                method
        lib/geo/circle.rb::Circle.unit                                method
        lib/geo/printable.rb                                          file
        lib/geo/printable.rb::Printable                               trait
        lib/geo/printable.rb::Printable.print_to                      method
        lib/geo/shape.rb                                              file
        lib/geo/shape.rb::Shape                                       class
        lib/geo/shape.rb::Shape.describe                              method
        lib/geo/square.rb                                             file
        lib/geo/square.rb::Square                                     class
        lib/geo/square.rb::Square.initialize                          method
        lib/geo/square.rb::Square.area                                method
        lib/geo/units.rb                                              file
        lib/geo/units.rb::Units                                       trait
        lib/geo/units.rb::Units.round2                                method
        test/canvas_test.rb                                           file
        test/canvas_test.rb::CanvasTest                               class
        test/canvas_test.rb::CanvasTest.test_total_adds_circle_areas  method
        test/canvas_test.rb::CanvasTest.test_unit_circle_prints       method
    """,
    edges="""
        # calls
        lib/geo/canvas.rb::Canvas.add_circle                          lib/geo/circle.rb::Circle                 calls import
        lib/geo/canvas.rb::Canvas.initialize                          lib/geo/canvas.rb::Report                 calls exact
        lib/geo/canvas.rb::Canvas.to_json                             ext:JSON.generate                         calls external
        lib/geo/canvas.rb::Canvas.to_json                             lib/geo/canvas.rb::Canvas.total           calls exact
        lib/geo/canvas.rb::Canvas.total                               ext:self.shapes.sum                       calls unresolved
        lib/geo/canvas.rb::Canvas.total                               lib/geo/circle.rb::Circle.area            calls ambiguous
        lib/geo/canvas.rb::Canvas.total                               lib/geo/square.rb::Square.area            calls ambiguous
        lib/geo/canvas.rb::Report.line                                ext:puts                                  calls external
        lib/geo/canvas.rb::Report.line                                lib/geo/canvas.rb::Canvas.total           calls heuristic
        lib/geo/circle.rb::Circle.area                                lib/geo/units.rb::Units.round2            calls import
        lib/geo/circle.rb::Circle.unit                                ext:new                                   calls unresolved
        lib/geo/printable.rb::Printable.print_to                      ext:describe                              calls unresolved
        lib/geo/printable.rb::Printable.print_to                      ext:io.puts                               calls unresolved
        lib/geo/shape.rb::Shape.describe                              ext:area                                  calls unresolved
        lib/geo/shape.rb::Shape.describe                              ext:format                                calls external
        lib/geo/shape.rb::Shape.describe                              ext:self.class                            calls unresolved
        lib/geo/shape.rb::Shape.describe                              ext:self.class.name                       calls unresolved
        lib/geo/units.rb::Units.round2                                ext:value.round                           calls unresolved
        test/canvas_test.rb::CanvasTest.test_total_adds_circle_areas  ext:assert_in_delta                       calls unresolved
        test/canvas_test.rb::CanvasTest.test_total_adds_circle_areas  lib/geo/canvas.rb::Canvas                 calls import
        test/canvas_test.rb::CanvasTest.test_total_adds_circle_areas  lib/geo/canvas.rb::Canvas.add_circle      calls inferred
        test/canvas_test.rb::CanvasTest.test_total_adds_circle_areas  lib/geo/canvas.rb::Canvas.total           calls inferred
        test/canvas_test.rb::CanvasTest.test_unit_circle_prints       lib/geo/circle.rb::Circle.unit            calls heuristic
        test/canvas_test.rb::CanvasTest.test_unit_circle_prints       lib/geo/printable.rb::Printable.print_to  calls heuristic
        # imports
        lib/geo/canvas.rb                                             ext:json                                  imports external
        lib/geo/canvas.rb                                             lib/geo/circle.rb                         imports import
        lib/geo/canvas.rb                                             lib/geo/square.rb                         imports import
        lib/geo/circle.rb                                             lib/geo/printable.rb                      imports import
        lib/geo/circle.rb                                             lib/geo/shape.rb                          imports import
        lib/geo/circle.rb                                             lib/geo/units.rb                          imports import
        lib/geo/square.rb                                             lib/geo/shape.rb                          imports import
        test/canvas_test.rb                                           ext:minitest.autorun                      imports external
        test/canvas_test.rb                                           lib/geo/canvas.rb                         imports import
        # inherits
        lib/geo/circle.rb::Circle                                     lib/geo/printable.rb::Printable           inherits import
        lib/geo/circle.rb::Circle                                     lib/geo/shape.rb::Shape                   inherits import
        lib/geo/square.rb::Square                                     lib/geo/shape.rb::Shape                   inherits import
        test/canvas_test.rb::CanvasTest                               ext:Test                                  inherits unresolved
        # tests
        test/canvas_test.rb                                           lib/geo/canvas.rb                         tests import
        test/canvas_test.rb::CanvasTest.test_total_adds_circle_areas  lib/geo/canvas.rb::Canvas                 tests import
        test/canvas_test.rb::CanvasTest.test_total_adds_circle_areas  lib/geo/canvas.rb::Canvas.add_circle      tests inferred
        test/canvas_test.rb::CanvasTest.test_total_adds_circle_areas  lib/geo/canvas.rb::Canvas.total           tests inferred
        test/canvas_test.rb::CanvasTest.test_unit_circle_prints       lib/geo/circle.rb::Circle.unit            tests heuristic
        test/canvas_test.rb::CanvasTest.test_unit_circle_prints       lib/geo/printable.rb::Printable.print_to  tests heuristic
    """,
    references="""
    """,
    ambiguous=(
        ("lib/geo/canvas.rb::Canvas.total", "area", frozenset({"lib/geo/circle.rb::Circle.area", "lib/geo/square.rb::Square.area"})),
    ),
    docs=(
        ("lib/geo/circle.rb::Circle.area", "pi r squared, rounded"),
        ("lib/geo/printable.rb::Printable", "Mixed into whatever can print itself."),
        ("lib/geo/shape.rb", "Shapes in the plane."),
        ("lib/geo/units.rb::Units", "Rounding for display."),
    ),
)

# ---------------------------------------------------------------- php

PHP = Golden(
    "php",
    entities="""
        src/Canvas.php                                             file
        src/Canvas.php::Canvas                                     class
        src/Canvas.php::Canvas.__construct                         method
        src/Canvas.php::Canvas.addCircle                           method
        src/Canvas.php::Canvas.total                               method
        src/Shapes/Circle.php                                      file
        src/Shapes/Circle.php::Circle                              class
        src/Shapes/Circle.php::Circle.TOLERANCE                    constant
        src/Shapes/Circle.php::Circle.__construct                  method
        src/Shapes/Circle.php::Circle.area                         method
        src/Shapes/Circle.php::Circle.unit                         method
        src/Shapes/Describable.php                                 file
        src/Shapes/Describable.php::Describable                    interface
        src/Shapes/Describable.php::Describable.describe           method
        src/Shapes/Shape.php                                       file
        src/Shapes/Shape.php::Shape                                class
        src/Shapes/Shape.php::Shape.area                           method
        src/Shapes/Shape.php::Shape.describe                       method
        src/Shapes/Square.php                                      file
        src/Shapes/Square.php::Square                              class
        src/Shapes/Square.php::Square.__construct                  method
        src/Shapes/Square.php::Square.area                         method
        src/Util/Numbers.php                                       file
        src/Util/Numbers.php::Numbers                              class
        src/Util/Numbers.php::Numbers.round2                       method
        tests/CanvasTest.php                                       file
        tests/CanvasTest.php::CanvasTest                           class
        tests/CanvasTest.php::CanvasTest.testTotalAddsCircleAreas  method
        tests/CanvasTest.php::CanvasTest.testUnitCircle            method
    """,
    edges="""
        # calls
        src/Canvas.php::Canvas.addCircle                           ext:Psr.Log.LoggerInterface.info                      calls external
        src/Canvas.php::Canvas.addCircle                           src/Shapes/Circle.php::Circle                         calls import
        src/Canvas.php::Canvas.addCircle                           src/Shapes/Shape.php::Shape.describe                  calls inferred
        src/Canvas.php::Canvas.total                               ext:array_map                                         calls external
        src/Canvas.php::Canvas.total                               ext:array_sum                                         calls external
        src/Canvas.php::Canvas.total                               src/Shapes/Shape.php::Shape.area                      calls heuristic
        src/Shapes/Circle.php::Circle.area                         src/Util/Numbers.php::Numbers.round2                  calls import
        src/Shapes/Circle.php::Circle.unit                         src/Shapes/Circle.php::Circle                         calls exact
        src/Shapes/Shape.php::Shape.describe                       ext:sprintf                                           calls external
        src/Shapes/Shape.php::Shape.describe                       src/Shapes/Shape.php::Shape.area                      calls exact
        src/Util/Numbers.php::Numbers.round2                       ext:round                                             calls external
        tests/CanvasTest.php::CanvasTest.testTotalAddsCircleAreas  ext:PHPUnit.Framework.TestCase.assertEqualsWithDelta  calls external
        tests/CanvasTest.php::CanvasTest.testTotalAddsCircleAreas  ext:Psr.Log.NullLogger                                calls external
        tests/CanvasTest.php::CanvasTest.testTotalAddsCircleAreas  src/Canvas.php::Canvas                                calls import
        tests/CanvasTest.php::CanvasTest.testTotalAddsCircleAreas  src/Canvas.php::Canvas.addCircle                      calls inferred
        tests/CanvasTest.php::CanvasTest.testTotalAddsCircleAreas  src/Canvas.php::Canvas.total                          calls inferred
        tests/CanvasTest.php::CanvasTest.testUnitCircle            ext:PHPUnit.Framework.TestCase.assertSame             calls external
        tests/CanvasTest.php::CanvasTest.testUnitCircle            src/Shapes/Circle.php::Circle.area                    calls ambiguous
        tests/CanvasTest.php::CanvasTest.testUnitCircle            src/Shapes/Circle.php::Circle.unit                    calls import
        tests/CanvasTest.php::CanvasTest.testUnitCircle            src/Shapes/Shape.php::Shape.area                      calls ambiguous
        tests/CanvasTest.php::CanvasTest.testUnitCircle            src/Shapes/Square.php::Square.area                    calls ambiguous
        # implements
        src/Shapes/Shape.php::Shape                                src/Shapes/Describable.php::Describable               implements same-scope
        # imports
        src/Canvas.php                                             ext:Psr.Log.LoggerInterface                           imports external
        src/Canvas.php                                             src/Shapes/Circle.php::Circle                         imports import
        src/Canvas.php                                             src/Shapes/Shape.php::Shape                           imports import
        src/Shapes/Circle.php                                      src/Util/Numbers.php::Numbers                         imports import
        tests/CanvasTest.php                                       ext:PHPUnit.Framework.TestCase                        imports external
        tests/CanvasTest.php                                       ext:Psr.Log.NullLogger                                imports external
        tests/CanvasTest.php                                       src/Canvas.php::Canvas                                imports import
        tests/CanvasTest.php                                       src/Shapes/Circle.php::Circle                         imports import
        # inherits
        src/Shapes/Circle.php::Circle                              src/Shapes/Shape.php::Shape                           inherits same-scope
        src/Shapes/Square.php::Square                              src/Shapes/Shape.php::Shape                           inherits same-scope
        tests/CanvasTest.php::CanvasTest                           ext:PHPUnit.Framework.TestCase                        inherits external
        # tests
        tests/CanvasTest.php                                       src/Canvas.php                                        tests import
        tests/CanvasTest.php                                       src/Shapes/Circle.php                                 tests import
        tests/CanvasTest.php::CanvasTest.testTotalAddsCircleAreas  src/Canvas.php::Canvas                                tests import
        tests/CanvasTest.php::CanvasTest.testTotalAddsCircleAreas  src/Canvas.php::Canvas.addCircle                      tests inferred
        tests/CanvasTest.php::CanvasTest.testTotalAddsCircleAreas  src/Canvas.php::Canvas.total                          tests inferred
        tests/CanvasTest.php::CanvasTest.testUnitCircle            src/Shapes/Circle.php::Circle.unit                    tests import
    """,
    references="""
        src/Shapes/Circle.php::Circle.unit  src/Shapes/Circle.php::Circle  exact
    """,
    ambiguous=(
        ("tests/CanvasTest.php::CanvasTest.testUnitCircle", "area", frozenset({"src/Shapes/Circle.php::Circle.area", "src/Shapes/Shape.php::Shape.area", "src/Shapes/Square.php::Square.area"})),
    ),
    docs=(
        ("src/Canvas.php::Canvas", "Holds shapes and sums their areas."),
        ("src/Shapes/Circle.php::Circle.area", "pi r squared, rounded"),
        ("src/Shapes/Shape.php::Shape", "Anything with an area."),
    ),
)

# ---------------------------------------------------------------- kotlin

KOTLIN = Golden(
    "kotlin",
    entities="""
        src/main/kotlin/com/acme/Canvas.kt                                       file
        src/main/kotlin/com/acme/Canvas.kt::Canvas                               class
        src/main/kotlin/com/acme/Canvas.kt::Canvas.addCircle                     method
        src/main/kotlin/com/acme/Canvas.kt::Canvas.total                         method
        src/main/kotlin/com/acme/shapes/Circle.kt                                file
        src/main/kotlin/com/acme/shapes/Circle.kt::Circle                        class
        src/main/kotlin/com/acme/shapes/Circle.kt::Circle.area                   method
        src/main/kotlin/com/acme/shapes/Circle.kt::Circle.TOLERANCE              constant
        src/main/kotlin/com/acme/shapes/Circle.kt::Circle.unit                   method
        src/main/kotlin/com/acme/shapes/Shape.kt                                 file
        src/main/kotlin/com/acme/shapes/Shape.kt::Shape                          class
        src/main/kotlin/com/acme/shapes/Shape.kt::Shape.area                     method
        src/main/kotlin/com/acme/shapes/Shape.kt::Shape.describe                 method
        src/main/kotlin/com/acme/shapes/Shape.kt::Describable                    interface
        src/main/kotlin/com/acme/shapes/Shape.kt::Describable.describe           method
        src/main/kotlin/com/acme/shapes/Square.kt                                file
        src/main/kotlin/com/acme/shapes/Square.kt::Square                        class
        src/main/kotlin/com/acme/shapes/Square.kt::Square.area                   method
        src/main/kotlin/com/acme/util/Numbers.kt                                 file
        src/main/kotlin/com/acme/util/Numbers.kt::round2                         function
        src/test/kotlin/com/acme/CanvasTest.kt                                   file
        src/test/kotlin/com/acme/CanvasTest.kt::CanvasTest                       class
        src/test/kotlin/com/acme/CanvasTest.kt::CanvasTest.totalAddsCircleAreas  method
        src/test/kotlin/com/acme/CanvasTest.kt::CanvasTest.unitCircle            method
    """,
    edges="""
        # calls
        src/main/kotlin/com/acme/Canvas.kt::Canvas                               ext:java.util.logging.Logger.getLogger                    calls external
        src/main/kotlin/com/acme/Canvas.kt::Canvas                               ext:mutableListOf                                         calls external
        src/main/kotlin/com/acme/Canvas.kt::Canvas.addCircle                     ext:java.util.logging.Logger.info                         calls external
        src/main/kotlin/com/acme/Canvas.kt::Canvas.addCircle                     ext:shapes.add                                            calls unresolved
        src/main/kotlin/com/acme/Canvas.kt::Canvas.addCircle                     src/main/kotlin/com/acme/shapes/Circle.kt::Circle         calls import
        src/main/kotlin/com/acme/Canvas.kt::Canvas.addCircle                     src/main/kotlin/com/acme/shapes/Shape.kt::Shape.describe  calls inferred
        src/main/kotlin/com/acme/Canvas.kt::Canvas.total                         ext:shapes.sumOf                                          calls unresolved
        src/main/kotlin/com/acme/Canvas.kt::Canvas.total                         src/main/kotlin/com/acme/shapes/Circle.kt::Circle.area    calls ambiguous
        src/main/kotlin/com/acme/Canvas.kt::Canvas.total                         src/main/kotlin/com/acme/shapes/Shape.kt::Shape.area      calls ambiguous
        src/main/kotlin/com/acme/Canvas.kt::Canvas.total                         src/main/kotlin/com/acme/shapes/Square.kt::Square.area    calls ambiguous
        src/main/kotlin/com/acme/shapes/Circle.kt::Circle.area                   src/main/kotlin/com/acme/util/Numbers.kt::round2          calls import
        src/main/kotlin/com/acme/shapes/Circle.kt::Circle.unit                   src/main/kotlin/com/acme/shapes/Circle.kt::Circle         calls exact
        src/main/kotlin/com/acme/shapes/Shape.kt::Shape.describe                 src/main/kotlin/com/acme/shapes/Shape.kt::Shape.area      calls exact
        src/main/kotlin/com/acme/util/Numbers.kt::round2                         ext:kotlin.math.round                                     calls external
        src/test/kotlin/com/acme/CanvasTest.kt::CanvasTest.totalAddsCircleAreas  ext:kotlin.test.assertEquals                              calls external
        src/test/kotlin/com/acme/CanvasTest.kt::CanvasTest.totalAddsCircleAreas  src/main/kotlin/com/acme/Canvas.kt::Canvas                calls same-scope
        src/test/kotlin/com/acme/CanvasTest.kt::CanvasTest.totalAddsCircleAreas  src/main/kotlin/com/acme/Canvas.kt::Canvas.addCircle      calls inferred
        src/test/kotlin/com/acme/CanvasTest.kt::CanvasTest.totalAddsCircleAreas  src/main/kotlin/com/acme/Canvas.kt::Canvas.total          calls inferred
        src/test/kotlin/com/acme/CanvasTest.kt::CanvasTest.unitCircle            ext:kotlin.test.assertEquals                              calls external
        src/test/kotlin/com/acme/CanvasTest.kt::CanvasTest.unitCircle            src/main/kotlin/com/acme/shapes/Circle.kt::Circle.area    calls ambiguous
        src/test/kotlin/com/acme/CanvasTest.kt::CanvasTest.unitCircle            src/main/kotlin/com/acme/shapes/Circle.kt::Circle.unit    calls import
        src/test/kotlin/com/acme/CanvasTest.kt::CanvasTest.unitCircle            src/main/kotlin/com/acme/shapes/Shape.kt::Shape.area      calls ambiguous
        src/test/kotlin/com/acme/CanvasTest.kt::CanvasTest.unitCircle            src/main/kotlin/com/acme/shapes/Square.kt::Square.area    calls ambiguous
        # implements
        src/main/kotlin/com/acme/shapes/Shape.kt::Shape                          src/main/kotlin/com/acme/shapes/Shape.kt::Describable     implements exact
        # imports
        src/main/kotlin/com/acme/Canvas.kt                                       ext:java.util.logging.Logger                              imports external
        src/main/kotlin/com/acme/Canvas.kt                                       src/main/kotlin/com/acme/shapes/Circle.kt::Circle         imports import
        src/main/kotlin/com/acme/Canvas.kt                                       src/main/kotlin/com/acme/shapes/Shape.kt::Shape           imports import
        src/main/kotlin/com/acme/shapes/Circle.kt                                ext:kotlin.math.PI                                        imports external
        src/main/kotlin/com/acme/shapes/Circle.kt                                src/main/kotlin/com/acme/util/Numbers.kt::round2          imports import
        src/main/kotlin/com/acme/util/Numbers.kt                                 ext:kotlin.math.round                                     imports external
        src/test/kotlin/com/acme/CanvasTest.kt                                   ext:kotlin.test.Test                                      imports external
        src/test/kotlin/com/acme/CanvasTest.kt                                   ext:kotlin.test.assertEquals                              imports external
        src/test/kotlin/com/acme/CanvasTest.kt                                   src/main/kotlin/com/acme/shapes/Circle.kt::Circle         imports import
        # inherits
        src/main/kotlin/com/acme/shapes/Circle.kt::Circle                        src/main/kotlin/com/acme/shapes/Shape.kt::Shape           inherits same-scope
        src/main/kotlin/com/acme/shapes/Square.kt::Square                        src/main/kotlin/com/acme/shapes/Shape.kt::Shape           inherits same-scope
        # tests
        src/test/kotlin/com/acme/CanvasTest.kt                                   src/main/kotlin/com/acme/Canvas.kt                        tests heuristic
        src/test/kotlin/com/acme/CanvasTest.kt                                   src/main/kotlin/com/acme/shapes/Circle.kt                 tests import
        src/test/kotlin/com/acme/CanvasTest.kt::CanvasTest.totalAddsCircleAreas  src/main/kotlin/com/acme/Canvas.kt::Canvas                tests same-scope
        src/test/kotlin/com/acme/CanvasTest.kt::CanvasTest.totalAddsCircleAreas  src/main/kotlin/com/acme/Canvas.kt::Canvas.addCircle      tests inferred
        src/test/kotlin/com/acme/CanvasTest.kt::CanvasTest.totalAddsCircleAreas  src/main/kotlin/com/acme/Canvas.kt::Canvas.total          tests inferred
        src/test/kotlin/com/acme/CanvasTest.kt::CanvasTest.unitCircle            src/main/kotlin/com/acme/shapes/Circle.kt::Circle.unit    tests import
    """,
    references="""
        src/main/kotlin/com/acme/Canvas.kt::Canvas  src/main/kotlin/com/acme/shapes/Shape.kt::Shape  import
        src/main/kotlin/com/acme/shapes/Circle.kt::Circle  src/main/kotlin/com/acme/shapes/Shape.kt::Shape  same-scope
        src/main/kotlin/com/acme/shapes/Circle.kt::Circle.unit  src/main/kotlin/com/acme/shapes/Circle.kt::Circle  exact
        src/main/kotlin/com/acme/shapes/Shape.kt::Shape  src/main/kotlin/com/acme/shapes/Shape.kt::Describable  exact
        src/main/kotlin/com/acme/shapes/Square.kt::Square  src/main/kotlin/com/acme/shapes/Shape.kt::Shape  same-scope
    """,
    ambiguous=(
        ("src/main/kotlin/com/acme/Canvas.kt::Canvas.total", "area", frozenset({"src/main/kotlin/com/acme/shapes/Circle.kt::Circle.area", "src/main/kotlin/com/acme/shapes/Shape.kt::Shape.area", "src/main/kotlin/com/acme/shapes/Square.kt::Square.area"})),
        ("src/test/kotlin/com/acme/CanvasTest.kt::CanvasTest.unitCircle", "area", frozenset({"src/main/kotlin/com/acme/shapes/Circle.kt::Circle.area", "src/main/kotlin/com/acme/shapes/Shape.kt::Shape.area", "src/main/kotlin/com/acme/shapes/Square.kt::Square.area"})),
    ),
    docs=(
        ("src/main/kotlin/com/acme/Canvas.kt::Canvas", "Holds shapes and sums their areas."),
        ("src/main/kotlin/com/acme/shapes/Circle.kt::Circle.area", "pi r squared, rounded"),
        ("src/main/kotlin/com/acme/shapes/Shape.kt::Shape", "Anything with an area."),
        ("src/main/kotlin/com/acme/util/Numbers.kt::round2", "Rounds to two decimals, for display."),
    ),
)

# ---------------------------------------------------------------- swift

SWIFT = Golden(
    "swift",
    entities="""
        Package.swift                                                           file
        Sources/App/Canvas.swift                                                file
        Sources/App/Canvas.swift::Canvas                                        class
        Sources/App/Canvas.swift::Canvas.addCircle                              method
        Sources/App/Canvas.swift::Canvas.total                                  method
        Sources/Geometry/Circle.swift                                           file
        Sources/Geometry/Circle.swift::Circle                                   class
        Sources/Geometry/Circle.swift::Circle.init                              method
        Sources/Geometry/Circle.swift::Circle.area                              method
        Sources/Geometry/Circle.swift::Circle.unit                              method
        Sources/Geometry/Numbers.swift                                          file
        Sources/Geometry/Numbers.swift::round2                                  function
        Sources/Geometry/Shape.swift                                            file
        Sources/Geometry/Shape.swift::Shape                                     interface
        Sources/Geometry/Shape.swift::Shape.area                                method
        Sources/Geometry/Square.swift                                           file
        Sources/Geometry/Square.swift::Square                                   struct
        Sources/Geometry/Square.swift::Square.area                              method
        Sources/Geometry/Square.swift::Square.description                       method
        Sources/Geometry/Square.swift::Square.doubled                           method
        Tests/AppTests/CanvasTests.swift                                        file
        Tests/AppTests/CanvasTests.swift::CanvasTests                           class
        Tests/AppTests/CanvasTests.swift::CanvasTests.testTotalAddsCircleAreas  method
        Tests/AppTests/CanvasTests.swift::CanvasTests.testUnitCircle            method
        Tests/AppTests/CanvasTests.swift::CanvasTests.testEveryAreaIsPositive   method
    """,
    edges="""
        # calls
        Package.swift                                                           ext:Package                                 calls external
        Sources/App/Canvas.swift::Canvas.addCircle                              Sources/Geometry/Circle.swift::Circle       calls import
        Sources/App/Canvas.swift::Canvas.addCircle                              ext:shapes.append                           calls unresolved
        Sources/App/Canvas.swift::Canvas.total                                  Sources/Geometry/Shape.swift::Shape.area    calls heuristic
        Sources/Geometry/Circle.swift::Circle.area                              Sources/Geometry/Numbers.swift::round2      calls same-scope
        Sources/Geometry/Circle.swift::Circle.unit                              Sources/Geometry/Circle.swift::Circle       calls exact
        Sources/Geometry/Numbers.swift::round2                                  ext:?.rounded                               calls unresolved
        Sources/Geometry/Square.swift::Square.doubled                           Sources/Geometry/Square.swift::Square       calls exact
        Tests/AppTests/CanvasTests.swift::CanvasTests.testTotalAddsCircleAreas  Sources/App/Canvas.swift::Canvas            calls import
        Tests/AppTests/CanvasTests.swift::CanvasTests.testTotalAddsCircleAreas  Sources/App/Canvas.swift::Canvas.addCircle  calls inferred
        Tests/AppTests/CanvasTests.swift::CanvasTests.testTotalAddsCircleAreas  Sources/App/Canvas.swift::Canvas.total      calls inferred
        Tests/AppTests/CanvasTests.swift::CanvasTests.testTotalAddsCircleAreas  ext:XCTAssertEqual                          calls external
        Tests/AppTests/CanvasTests.swift::CanvasTests.testUnitCircle            Sources/Geometry/Circle.swift::Circle.area  calls heuristic
        Tests/AppTests/CanvasTests.swift::CanvasTests.testUnitCircle            Sources/Geometry/Circle.swift::Circle.unit  calls import
        Tests/AppTests/CanvasTests.swift::CanvasTests.testUnitCircle            ext:XCTAssertEqual                          calls external
        Tests/AppTests/CanvasTests.swift::CanvasTests.testEveryAreaIsPositive  Sources/Geometry/Circle.swift::Circle.area  calls ambiguous
        Tests/AppTests/CanvasTests.swift::CanvasTests.testEveryAreaIsPositive  Sources/Geometry/Shape.swift::Shape.area    calls ambiguous
        Tests/AppTests/CanvasTests.swift::CanvasTests.testEveryAreaIsPositive  Sources/Geometry/Square.swift::Square.area  calls ambiguous
        Tests/AppTests/CanvasTests.swift::CanvasTests.testEveryAreaIsPositive  ext:XCTAssertTrue                           calls external
        Tests/AppTests/CanvasTests.swift::CanvasTests.testEveryAreaIsPositive  ext:shapes.allSatisfy                       calls unresolved
        # implements
        Sources/Geometry/Square.swift::Square                                   Sources/Geometry/Shape.swift::Shape         implements same-scope
        Sources/Geometry/Square.swift::Square                                   ext:CustomStringConvertible                 implements unresolved
        # imports
        Package.swift                                                           ext:PackageDescription                      imports external
        Sources/App/Canvas.swift                                                Sources/Geometry/Circle.swift               imports import
        Sources/App/Canvas.swift                                                Sources/Geometry/Numbers.swift              imports import
        Sources/App/Canvas.swift                                                Sources/Geometry/Shape.swift                imports import
        Sources/App/Canvas.swift                                                Sources/Geometry/Square.swift               imports import
        Sources/Geometry/Circle.swift                                           ext:Foundation                              imports external
        Sources/Geometry/Numbers.swift                                          ext:Foundation                              imports external
        Tests/AppTests/CanvasTests.swift                                        Sources/App/Canvas.swift                    imports import
        Tests/AppTests/CanvasTests.swift                                        Sources/Geometry/Circle.swift               imports import
        Tests/AppTests/CanvasTests.swift                                        Sources/Geometry/Numbers.swift              imports import
        Tests/AppTests/CanvasTests.swift                                        Sources/Geometry/Shape.swift                imports import
        Tests/AppTests/CanvasTests.swift                                        Sources/Geometry/Square.swift               imports import
        Tests/AppTests/CanvasTests.swift                                        ext:XCTest                                  imports external
        # inherits
        Sources/Geometry/Circle.swift::Circle                                   Sources/Geometry/Shape.swift::Shape         inherits same-scope
        Tests/AppTests/CanvasTests.swift::CanvasTests                           ext:XCTestCase                              inherits external
        # tests
        Tests/AppTests/CanvasTests.swift                                        Sources/App/Canvas.swift                    tests import
        Tests/AppTests/CanvasTests.swift                                        Sources/Geometry/Circle.swift               tests import
        Tests/AppTests/CanvasTests.swift                                        Sources/Geometry/Numbers.swift              tests import
        Tests/AppTests/CanvasTests.swift                                        Sources/Geometry/Shape.swift                tests import
        Tests/AppTests/CanvasTests.swift                                        Sources/Geometry/Square.swift               tests import
        Tests/AppTests/CanvasTests.swift::CanvasTests.testTotalAddsCircleAreas  Sources/App/Canvas.swift::Canvas            tests import
        Tests/AppTests/CanvasTests.swift::CanvasTests.testTotalAddsCircleAreas  Sources/App/Canvas.swift::Canvas.addCircle  tests inferred
        Tests/AppTests/CanvasTests.swift::CanvasTests.testTotalAddsCircleAreas  Sources/App/Canvas.swift::Canvas.total      tests inferred
        Tests/AppTests/CanvasTests.swift::CanvasTests.testUnitCircle            Sources/Geometry/Circle.swift::Circle.area  tests heuristic
        Tests/AppTests/CanvasTests.swift::CanvasTests.testUnitCircle            Sources/Geometry/Circle.swift::Circle.unit  tests import
    """,
    references="""
    """,
    ambiguous=(  # `$0` says nothing of its type, and no class here is named like it
        ("Tests/AppTests/CanvasTests.swift::CanvasTests.testEveryAreaIsPositive", "area", frozenset({"Sources/Geometry/Circle.swift::Circle.area", "Sources/Geometry/Shape.swift::Shape.area", "Sources/Geometry/Square.swift::Square.area"})),
    ),
    docs=(
        ("Package.swift", "swift-tools-version:5.9"),
        ("Sources/App/Canvas.swift::Canvas", "Holds shapes and sums their areas."),
        ("Sources/Geometry/Circle.swift::Circle.area", "pi r squared, rounded"),
        ("Sources/Geometry/Numbers.swift::round2", "Rounds to two decimals, for display."),
        ("Sources/Geometry/Shape.swift::Shape", "Anything with an area."),
    ),
)

# ---------------------------------------------------------------- scala

SCALA = Golden(
    "scala",
    entities="""
        src/main/scala/com/acme/Canvas.scala                           file
        src/main/scala/com/acme/Canvas.scala::Canvas                   class
        src/main/scala/com/acme/Canvas.scala::Canvas.addCircle         method
        src/main/scala/com/acme/Canvas.scala::Canvas.total             method
        src/main/scala/com/acme/shapes/Circle.scala                    file
        src/main/scala/com/acme/shapes/Circle.scala::Circle            class
        src/main/scala/com/acme/shapes/Circle.scala::Circle.area       method
        src/main/scala/com/acme/shapes/Circle.scala::Circle.Tolerance  constant
        src/main/scala/com/acme/shapes/Circle.scala::Circle.unit       method
        src/main/scala/com/acme/shapes/Shape.scala                     file
        src/main/scala/com/acme/shapes/Shape.scala::Shape              trait
        src/main/scala/com/acme/shapes/Shape.scala::Shape.area         method
        src/main/scala/com/acme/shapes/Shape.scala::Shape.describe     method
        src/main/scala/com/acme/shapes/Square.scala                    file
        src/main/scala/com/acme/shapes/Square.scala::Square            class
        src/main/scala/com/acme/shapes/Square.scala::Square.area       method
        src/main/scala/com/acme/util/Numbers.scala                     file
        src/main/scala/com/acme/util/Numbers.scala::Numbers            class
        src/main/scala/com/acme/util/Numbers.scala::Numbers.round2     method
        src/test/scala/com/acme/CanvasSpec.scala                       file
        src/test/scala/com/acme/CanvasSpec.scala::CanvasSpec           class
    """,
    edges="""
        # calls
        src/main/scala/com/acme/Canvas.scala::Canvas                ext:scala.collection.mutable.ListBuffer                     calls external
        src/main/scala/com/acme/Canvas.scala::Canvas.addCircle      ext:println                                                 calls external
        src/main/scala/com/acme/Canvas.scala::Canvas.addCircle      ext:scala.collection.mutable.ListBuffer.append              calls external
        src/main/scala/com/acme/Canvas.scala::Canvas.addCircle      src/main/scala/com/acme/shapes/Circle.scala::Circle         calls import
        src/main/scala/com/acme/Canvas.scala::Canvas.addCircle      src/main/scala/com/acme/shapes/Shape.scala::Shape.describe  calls inferred
        src/main/scala/com/acme/Canvas.scala::Canvas.total          ext:scala.collection.mutable.ListBuffer.map                 calls external
        src/main/scala/com/acme/Canvas.scala::Canvas.total          src/main/scala/com/acme/shapes/Shape.scala::Shape.area      calls heuristic
        src/main/scala/com/acme/shapes/Circle.scala::Circle.area    src/main/scala/com/acme/util/Numbers.scala::Numbers.round2  calls import
        src/main/scala/com/acme/shapes/Circle.scala::Circle.unit    src/main/scala/com/acme/shapes/Circle.scala::Circle         calls exact
        src/main/scala/com/acme/shapes/Shape.scala::Shape.describe  src/main/scala/com/acme/shapes/Shape.scala::Shape.area      calls exact
        src/main/scala/com/acme/util/Numbers.scala::Numbers.round2  ext:math.round                                              calls external
        src/test/scala/com/acme/CanvasSpec.scala::CanvasSpec        ext:assert                                                  calls external
        src/test/scala/com/acme/CanvasSpec.scala::CanvasSpec        ext:math.abs                                                calls external
        src/test/scala/com/acme/CanvasSpec.scala::CanvasSpec        ext:test                                                    calls unresolved
        src/test/scala/com/acme/CanvasSpec.scala::CanvasSpec        src/main/scala/com/acme/Canvas.scala::Canvas                calls same-scope
        src/test/scala/com/acme/CanvasSpec.scala::CanvasSpec        src/main/scala/com/acme/Canvas.scala::Canvas.addCircle      calls inferred
        src/test/scala/com/acme/CanvasSpec.scala::CanvasSpec        src/main/scala/com/acme/Canvas.scala::Canvas.total          calls inferred
        src/test/scala/com/acme/CanvasSpec.scala::CanvasSpec        src/main/scala/com/acme/shapes/Circle.scala::Circle.area    calls ambiguous
        src/test/scala/com/acme/CanvasSpec.scala::CanvasSpec        src/main/scala/com/acme/shapes/Circle.scala::Circle.unit    calls import
        src/test/scala/com/acme/CanvasSpec.scala::CanvasSpec        src/main/scala/com/acme/shapes/Shape.scala::Shape.area      calls ambiguous
        src/test/scala/com/acme/CanvasSpec.scala::CanvasSpec        src/main/scala/com/acme/shapes/Square.scala::Square.area    calls ambiguous
        # implements
        src/main/scala/com/acme/shapes/Circle.scala::Circle         ext:Serializable                                            implements unresolved
        # imports
        src/main/scala/com/acme/Canvas.scala                        ext:scala.collection.mutable.ListBuffer                     imports external
        src/main/scala/com/acme/Canvas.scala                        src/main/scala/com/acme/shapes/Circle.scala::Circle         imports import
        src/main/scala/com/acme/Canvas.scala                        src/main/scala/com/acme/shapes/Shape.scala::Shape           imports import
        src/main/scala/com/acme/shapes/Circle.scala                 ext:scala.math.Pi                                           imports external
        src/main/scala/com/acme/shapes/Circle.scala                 src/main/scala/com/acme/util/Numbers.scala::Numbers.round2  imports import
        src/test/scala/com/acme/CanvasSpec.scala                    ext:org.scalatest.funsuite.AnyFunSuite                      imports external
        src/test/scala/com/acme/CanvasSpec.scala                    src/main/scala/com/acme/shapes/Circle.scala::Circle         imports import
        # inherits
        src/main/scala/com/acme/shapes/Circle.scala::Circle         src/main/scala/com/acme/shapes/Shape.scala::Shape           inherits same-scope
        src/main/scala/com/acme/shapes/Square.scala::Square         src/main/scala/com/acme/shapes/Shape.scala::Shape           inherits same-scope
        src/test/scala/com/acme/CanvasSpec.scala::CanvasSpec        ext:org.scalatest.funsuite.AnyFunSuite                      inherits external
        # tests
        src/test/scala/com/acme/CanvasSpec.scala                    src/main/scala/com/acme/Canvas.scala                        tests heuristic
        src/test/scala/com/acme/CanvasSpec.scala                    src/main/scala/com/acme/shapes/Circle.scala                 tests import
        src/test/scala/com/acme/CanvasSpec.scala::CanvasSpec        src/main/scala/com/acme/Canvas.scala::Canvas                tests same-scope
        src/test/scala/com/acme/CanvasSpec.scala::CanvasSpec        src/main/scala/com/acme/Canvas.scala::Canvas.addCircle      tests inferred
        src/test/scala/com/acme/CanvasSpec.scala::CanvasSpec        src/main/scala/com/acme/Canvas.scala::Canvas.total          tests inferred
        src/test/scala/com/acme/CanvasSpec.scala::CanvasSpec        src/main/scala/com/acme/shapes/Circle.scala::Circle.unit    tests import
    """,
    references="""
        src/main/scala/com/acme/Canvas.scala::Canvas.addCircle  src/main/scala/com/acme/shapes/Circle.scala::Circle  import
        src/main/scala/com/acme/shapes/Circle.scala::Circle.unit  src/main/scala/com/acme/shapes/Circle.scala::Circle  exact
        src/test/scala/com/acme/CanvasSpec.scala::CanvasSpec  src/main/scala/com/acme/Canvas.scala::Canvas  same-scope
    """,
    ambiguous=(
        ("src/test/scala/com/acme/CanvasSpec.scala::CanvasSpec", "area", frozenset({"src/main/scala/com/acme/shapes/Circle.scala::Circle.area", "src/main/scala/com/acme/shapes/Shape.scala::Shape.area", "src/main/scala/com/acme/shapes/Square.scala::Square.area"})),
    ),
    docs=(
        ("src/main/scala/com/acme/Canvas.scala::Canvas", "Holds shapes and sums their areas."),
        ("src/main/scala/com/acme/shapes/Circle.scala::Circle.area", "pi r squared, rounded"),
        ("src/main/scala/com/acme/shapes/Shape.scala::Shape", "Anything with an area."),
        ("src/main/scala/com/acme/util/Numbers.scala::Numbers", "Rounding for display."),
    ),
)

# ---------------------------------------------------------------- bash

BASH = Golden(
    "bash",
    entities="""
        lib/build.sh                                             file
        lib/build.sh::build_site                                 function
        lib/build.sh::cleanup                                    function
        lib/cache.sh                                             file
        lib/cache.sh::cleanup                                    function
        lib/log.sh                                               file
        lib/log.sh::LOG_PREFIX                                   constant
        lib/log.sh::log_info                                     function
        lib/log.sh::log_error                                    function
        scripts/deploy.sh                                        file
        scripts/deploy.sh::deploy                                function
        scripts/reset.sh                                         file
        scripts/reset.sh::reset_all                              function
        tests/test_build.sh                                      file
        tests/test_build.sh::test_build_site_creates_the_folder  function
    """,
    edges="""
        # calls
        lib/build.sh                                             ext:dirname                                              calls external
        lib/build.sh::build_site                                 ext:hugo                                                 calls external
        lib/build.sh::build_site                                 ext:mkdir                                                calls external
        lib/build.sh::build_site                                 lib/log.sh::log_error                                    calls import
        lib/build.sh::build_site                                 lib/log.sh::log_info                                     calls import
        lib/build.sh::cleanup                                    ext:rm                                                   calls external
        lib/cache.sh::cleanup                                    ext:rm                                                   calls external
        lib/log.sh::log_error                                    ext:logger                                               calls external
        lib/log.sh::log_error                                    lib/log.sh::log_info                                     calls exact
        lib/log.sh::log_info                                     ext:printf                                               calls external
        scripts/deploy.sh                                        ext:dirname                                              calls external
        scripts/deploy.sh                                        ext:set                                                  calls external
        scripts/deploy.sh                                        scripts/deploy.sh::deploy                                calls exact
        scripts/deploy.sh::deploy                                ext:rsync                                                calls external
        scripts/deploy.sh::deploy                                lib/build.sh::build_site                                 calls import
        scripts/deploy.sh::deploy                                lib/log.sh::log_info                                     calls heuristic
        scripts/reset.sh::reset_all                              lib/build.sh::cleanup                                    calls ambiguous
        scripts/reset.sh::reset_all                              lib/cache.sh::cleanup                                    calls ambiguous
        tests/test_build.sh                                      ext:dirname                                              calls external
        tests/test_build.sh                                      tests/test_build.sh::test_build_site_creates_the_folder  calls exact
        tests/test_build.sh::test_build_site_creates_the_folder  ext:assert_directory_exists                              calls external
        tests/test_build.sh::test_build_site_creates_the_folder  lib/build.sh::build_site                                 calls import
        # imports
        lib/build.sh                                             lib/log.sh                                               imports import
        scripts/deploy.sh                                        lib/build.sh                                             imports import
        tests/test_build.sh                                      lib/build.sh                                             imports import
        # tests
        tests/test_build.sh                                      lib/build.sh                                             tests import
        tests/test_build.sh::test_build_site_creates_the_folder  lib/build.sh::build_site                                 tests import
    """,
    references="""
    """,
    ambiguous=(
        ("scripts/reset.sh::reset_all", "cleanup", frozenset({"lib/build.sh::cleanup", "lib/cache.sh::cleanup"})),
    ),
    docs=(
        ("lib/build.sh", "Building the site."),
        ("lib/cache.sh", "The download cache."),
        ("lib/log.sh", "Logging helpers shared by every script."),
        ("lib/log.sh::log_info", "Prints an informational line on stderr."),
        ("scripts/deploy.sh", "Builds the site and publishes it."),
        ("scripts/reset.sh", "Run by the CI image, which has sourced the libraries already."),
    ),
)

# ---------------------------------------------------------------- lua

LUA = Golden(
    "lua",
    entities="""
        lua/geo/canvas.lua                                              file
        lua/geo/canvas.lua::Canvas                                      class
        lua/geo/canvas.lua::Canvas.new                                  method
        lua/geo/canvas.lua::Canvas.add_circle                           method
        lua/geo/canvas.lua::Canvas.total                                method
        lua/geo/circle.lua                                              file
        lua/geo/circle.lua::Circle                                      class
        lua/geo/circle.lua::Circle.new                                  method
        lua/geo/circle.lua::Circle.area                                 method
        lua/geo/shape.lua                                               file
        lua/geo/shape.lua::Shape                                        class
        lua/geo/shape.lua::Shape.describe                               method
        lua/geo/square.lua                                              file
        lua/geo/square.lua::Square                                      class
        lua/geo/square.lua::Square.new                                  method
        lua/geo/square.lua::Square.area                                 method
        lua/geo/util.lua                                                file
        lua/geo/util.lua::M                                             constant
        lua/geo/util.lua::round2                                        function
        tests/test_canvas.lua                                           file
        tests/test_canvas.lua::TestCanvas                               class
        tests/test_canvas.lua::TestCanvas.test_total_adds_circle_areas  method
    """,
    edges="""
        # calls
        lua/geo/canvas.lua::Canvas.add_circle                           ext:table.insert                       calls external
        lua/geo/canvas.lua::Canvas.add_circle                           lua/geo/circle.lua::Circle.new         calls import
        lua/geo/canvas.lua::Canvas.new                                  ext:setmetatable                       calls external
        lua/geo/canvas.lua::Canvas.total                                ext:ipairs                             calls external
        lua/geo/canvas.lua::Canvas.total                                lua/geo/circle.lua::Circle.area        calls ambiguous
        lua/geo/canvas.lua::Canvas.total                                lua/geo/square.lua::Square.area        calls ambiguous
        lua/geo/circle.lua::Circle                                      ext:setmetatable                       calls external
        lua/geo/circle.lua::Circle.area                                 lua/geo/util.lua::round2               calls import
        lua/geo/circle.lua::Circle.new                                  ext:setmetatable                       calls external
        lua/geo/shape.lua::Shape.describe                               ext:string.format                      calls external
        lua/geo/shape.lua::Shape.describe                               lua/geo/circle.lua::Circle.area        calls ambiguous
        lua/geo/shape.lua::Shape.describe                               lua/geo/square.lua::Square.area        calls ambiguous
        lua/geo/square.lua::Square                                      ext:setmetatable                       calls external
        lua/geo/square.lua::Square.new                                  ext:setmetatable                       calls external
        lua/geo/util.lua::round2                                        ext:math.floor                         calls external
        tests/test_canvas.lua                                           ext:luaunit.LuaUnit.run                calls external
        tests/test_canvas.lua                                           ext:os.exit                            calls external
        tests/test_canvas.lua::TestCanvas.test_total_adds_circle_areas  ext:luaunit.assertAlmostEquals         calls external
        tests/test_canvas.lua::TestCanvas.test_total_adds_circle_areas  lua/geo/canvas.lua::Canvas.add_circle  calls inferred
        tests/test_canvas.lua::TestCanvas.test_total_adds_circle_areas  lua/geo/canvas.lua::Canvas.new         calls import
        tests/test_canvas.lua::TestCanvas.test_total_adds_circle_areas  lua/geo/canvas.lua::Canvas.total       calls inferred
        # imports
        lua/geo/canvas.lua                                              lua/geo/circle.lua::Circle             imports import
        lua/geo/circle.lua                                              lua/geo/shape.lua::Shape               imports import
        lua/geo/circle.lua                                              lua/geo/util.lua                       imports import
        lua/geo/square.lua                                              lua/geo/shape.lua::Shape               imports import
        tests/test_canvas.lua                                           ext:luaunit                            imports external
        tests/test_canvas.lua                                           lua/geo/canvas.lua::Canvas             imports import
        # inherits
        lua/geo/circle.lua::Circle                                      lua/geo/shape.lua::Shape               inherits import
        lua/geo/square.lua::Square                                      lua/geo/shape.lua::Shape               inherits import
        # tests
        tests/test_canvas.lua                                           lua/geo/canvas.lua                     tests import
        tests/test_canvas.lua::TestCanvas.test_total_adds_circle_areas  lua/geo/canvas.lua::Canvas.add_circle  tests inferred
        tests/test_canvas.lua::TestCanvas.test_total_adds_circle_areas  lua/geo/canvas.lua::Canvas.new         tests import
        tests/test_canvas.lua::TestCanvas.test_total_adds_circle_areas  lua/geo/canvas.lua::Canvas.total       tests inferred
    """,
    references="""
    """,
    ambiguous=(
        ("lua/geo/canvas.lua::Canvas.total", "area", frozenset({"lua/geo/circle.lua::Circle.area", "lua/geo/square.lua::Square.area"})),
        ("lua/geo/shape.lua::Shape.describe", "area", frozenset({"lua/geo/circle.lua::Circle.area", "lua/geo/square.lua::Square.area"})),
    ),
    docs=(
        ("lua/geo/canvas.lua", "Holds shapes and sums their areas."),
        ("lua/geo/circle.lua::Circle.area", "pi r squared, rounded"),
        ("lua/geo/shape.lua::Shape", "Anything with an area."),
        ("lua/geo/util.lua::M", "Rounding for display."),
        ("lua/geo/util.lua::round2", "Rounds to two decimals."),
    ),
)

GOLDENS = [C, CPP, CSHARP, RUBY, PHP, KOTLIN, SWIFT, SCALA, BASH, LUA]


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
    assert {entity_id: docs.get(entity_id) for entity_id, _ in golden.docs} == dict(golden.docs)


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda g: g.language)
def test_every_fixture_has_an_ambiguous_call_kept_ambiguous(golden: Golden, indexed):
    """A name several files define, called without include, import or type evidence: an edge to
    each candidate, every one `ambiguous`, and no resolved edge invented for that name."""
    assert golden.ambiguous, f"{golden.language}: the fixture needs an ambiguous call"
    edges = indexed[golden.language].edges
    for caller, name, candidates in golden.ambiguous:
        to_name = [e for e in edges if e[0] == caller and e[2] == "calls" and _named(e[1], name)]
        assert {e[1] for e in to_name} == candidates
        assert {e[3] for e in to_name} == {"ambiguous"}
        assert sum(e[4] for e in to_name) <= 0.5 + 1e-9


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda g: g.language)
def test_every_fixture_resolves_a_cross_file_call_an_import_an_external_call_and_a_test(golden: Golden, indexed):
    edges = indexed[golden.language].edges
    resolved = {"exact", "import", "same-scope", "inferred"}
    cross_file = [e for e in edges if e[2] == "calls" and e[3] in resolved and e[0].split("::")[0] != e[1].split("::")[0]]
    assert cross_file, "a call resolved into another file"
    assert any(e[2] == "imports" and e[3] == "import" for e in edges), "an import of a repository file"
    assert any(e[2] == "calls" and e[3] == "external" for e in edges), "an external call"
    assert any(e[2] == "tests" and "::" in e[0] for e in edges), "a test function linked to what it tests"
