; graphctx fact query for JavaScript (.js, .jsx, .mjs, .cjs). Capture conventions: grammars/README.md.

; ---- definitions
(class_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class

(function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

(generator_function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name
  body: (statement_block) @body) @definition.function
; `get x()` / `set x(v)`: a property's accessors (graphctx/parse/members.py)
(method_definition "get" @accessor.get name: (property_identifier) @name body: (statement_block) @body) @definition.function
(method_definition "set" @accessor.set name: (property_identifier) @name body: (statement_block) @body) @definition.function

; module-level `const f = () => ...` / `const f = function () {...}`, exported or not
(program
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @definition.function)
(program
  (export_statement
    (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @definition.function))

; module-level constants: const UPPER_CASE = ...
((program
  (lexical_declaration
    (variable_declarator name: (identifier) @name)) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
((program
  (export_statement
    (lexical_declaration
      (variable_declarator name: (identifier) @name)) @definition.constant))
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; ---- inheritance
(class_declaration (class_heritage [(identifier) (member_expression)] @inherits))

; ---- members read or assigned, not called: a property's accessor runs (graphctx/parse/members.py)
(member_expression object: (_) property: (property_identifier)) @attribute.use

; ---- calls (require() is an import, not a call)
((call_expression function: (identifier) @call.name) @call
  (#not-eq? @call.name "require"))
(call_expression
  function: (member_expression
    object: (_) @call.receiver
    property: [(property_identifier) (private_property_identifier)] @call.name)) @call
(new_expression constructor: (identifier) @call.name) @call
(new_expression
  constructor: (member_expression object: (_) @call.receiver property: (property_identifier) @call.name)) @call

; ---- JSX: rendering a component (a capitalised tag) calls it
((jsx_self_closing_element name: (identifier) @call.name) @call
  (#match? @call.name "^[A-Z]"))
((jsx_opening_element name: (identifier) @call.name) @call
  (#match? @call.name "^[A-Z]"))

; ---- ES module imports; a default import is matched to the definition named like its binding
(import_statement
  (import_clause (identifier) @import.name @import.alias)
  source: (string) @import.module) @import
(import_statement
  (import_clause (namespace_import (identifier) @import.alias))
  source: (string) @import.module) @import
(import_statement
  (import_clause (named_imports (import_specifier name: (_) @import.name alias: (_)? @import.alias)))
  source: (string) @import.module) @import
(import_statement . source: (string) @import.module) @import

; re-exports: export {a as b} from './m', export * from './m'
(export_statement
  (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias))
  source: (string) @import.module) @import
(export_statement "*" @import.wildcard source: (string) @import.module) @import

; CommonJS: const m = require('./m'), const {a, b: c} = require('./m')
((variable_declarator
  name: (identifier) @import.alias
  value: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.module .))) @import
  (#eq? @_require "require"))
((variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @import.name)
  value: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.module .))) @import
  (#eq? @_require "require"))
((variable_declarator
  name: (object_pattern (pair_pattern key: (property_identifier) @import.name value: (identifier) @import.alias))
  value: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.module .))) @import
  (#eq? @_require "require"))

; ---- evident variable types: const x = new Foo(), this.x = new Foo(), class fields x = new Foo()
(variable_declarator
  name: (identifier) @binding.var
  value: (new_expression constructor: [(identifier) (member_expression)] @binding.type)) @binding
(assignment_expression
  left: (member_expression object: (this) property: (property_identifier)) @binding.var
  right: (new_expression constructor: [(identifier) (member_expression)] @binding.type)) @binding
(field_definition
  property: (property_identifier) @binding.field
  value: (new_expression constructor: [(identifier) (member_expression)] @binding.type)) @binding

