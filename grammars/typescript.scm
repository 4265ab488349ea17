; graphctx fact query for TypeScript (.ts) and TSX (.tsx): it must compile against both grammars,
; so it names no JSX node. Capture conventions: grammars/README.md.

; ---- definitions
([(class_declaration name: (type_identifier) @name body: (class_body) @body)
  (abstract_class_declaration name: (type_identifier) @name body: (class_body) @body)]) @definition.class

(interface_declaration
  name: (type_identifier) @name
  body: (interface_body) @body) @definition.interface

; a type alias names a type like an interface does
(type_alias_declaration name: (type_identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name
  body: (enum_body) @body) @definition.enum

; a declared return type is what `const x = f()` makes x
(function_declaration
  name: (identifier) @name
  return_type: (type_annotation [(type_identifier) (nested_type_identifier) (generic_type)] @returns)?
  body: (statement_block) @body) @definition.function

(generator_function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name
  return_type: (type_annotation [(type_identifier) (nested_type_identifier) (generic_type)] @returns)?
  body: (statement_block) @body) @definition.function
; `get x()` / `set x(v)`: a property's accessors (graphctx/parse/members.py)
(method_definition "get" @accessor.get name: (property_identifier) @name body: (statement_block) @body) @definition.function
(method_definition "set" @accessor.set name: (property_identifier) @name body: (statement_block) @body) @definition.function

; interface members and abstract methods: what calls through an interface type resolve to
(method_signature
  name: (property_identifier) @name
  return_type: (type_annotation [(type_identifier) (nested_type_identifier) (generic_type)] @returns)?) @definition.function
(abstract_method_signature
  name: (property_identifier) @name
  return_type: (type_annotation [(type_identifier) (nested_type_identifier) (generic_type)] @returns)?) @definition.function

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
(class_declaration (class_heritage (extends_clause value: (_) @inherits)))
(abstract_class_declaration (class_heritage (extends_clause value: (_) @inherits)))
(class_declaration
  (class_heritage (implements_clause [(type_identifier) (nested_type_identifier) (generic_type)] @implements)))
(abstract_class_declaration
  (class_heritage (implements_clause [(type_identifier) (nested_type_identifier) (generic_type)] @implements)))
(interface_declaration
  (extends_type_clause type: [(type_identifier) (nested_type_identifier) (generic_type)] @inherits))

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

; ---- ES module imports (`import type` too); a default import is matched to the definition named like its binding
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
(import_statement
  (import_require_clause (identifier) @import.alias source: (string) @import.module)) @import

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

; ---- type uses
(type_annotation [(type_identifier) (nested_type_identifier)] @reference.type)
(generic_type name: [(type_identifier) (nested_type_identifier)] @reference.type)
(type_arguments [(type_identifier) (nested_type_identifier)] @reference.type)
(array_type [(type_identifier) (nested_type_identifier)] @reference.type)
(union_type [(type_identifier) (nested_type_identifier)] @reference.type)

; ---- evident variable types: annotations, new Foo(), f() (its return type), this.x = new Foo(), fields,
; parameter properties
(variable_declarator
  name: (identifier) @binding.var
  type: (type_annotation [(type_identifier) (nested_type_identifier) (generic_type)] @binding.type)) @binding
(variable_declarator
  name: (identifier) @binding.var
  value: (new_expression constructor: [(identifier) (member_expression)] @binding.type)) @binding
((variable_declarator
  name: (identifier) @binding.var
  value: (call_expression function: [(identifier) (member_expression)] @binding.type)) @binding
  (#not-eq? @binding.type "require"))
([(required_parameter pattern: (identifier) @binding.var
    type: (type_annotation [(type_identifier) (nested_type_identifier) (generic_type)] @binding.type))
  (optional_parameter pattern: (identifier) @binding.var
    type: (type_annotation [(type_identifier) (nested_type_identifier) (generic_type)] @binding.type))]) @binding
([(required_parameter ["readonly" (accessibility_modifier)] pattern: (identifier) @binding.field
    type: (type_annotation [(type_identifier) (nested_type_identifier) (generic_type)] @binding.type))
  (optional_parameter ["readonly" (accessibility_modifier)] pattern: (identifier) @binding.field
    type: (type_annotation [(type_identifier) (nested_type_identifier) (generic_type)] @binding.type))]) @binding
(assignment_expression
  left: (member_expression object: (this) property: (property_identifier)) @binding.var
  right: (new_expression constructor: [(identifier) (member_expression)] @binding.type)) @binding
(public_field_definition
  name: (property_identifier) @binding.field
  type: (type_annotation [(type_identifier) (nested_type_identifier) (generic_type)] @binding.type)) @binding
(public_field_definition
  name: (property_identifier) @binding.field
  value: (new_expression constructor: [(identifier) (member_expression)] @binding.type)) @binding
