; graphctx fact query for Rust. Capture conventions: grammars/README.md.

; ---- definitions; functions inside an impl or trait are its methods
(function_item
  name: (identifier) @name
  return_type: (_)? @returns
  body: (block) @body) @definition.function

(function_signature_item name: (identifier) @name) @definition.function

(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name body: (enum_variant_list) @body) @definition.enum
(union_item name: (type_identifier) @name body: (field_declaration_list) @body) @definition.struct
(trait_item name: (type_identifier) @name body: (declaration_list) @body) @definition.trait

[(const_item name: (identifier) @name) (static_item name: (identifier) @name)] @definition.constant

; impl [Trait for] Type { ... }
(impl_item trait: (_)? @impl.trait type: (_) @impl.type body: (declaration_list)) @scope.impl

; ---- supertraits
(trait_item bounds: (trait_bounds [(type_identifier) (scoped_type_identifier) (generic_type)] @inherits))

; ---- calls: f(), path::f(), Type::f(), value.m()
(call_expression function: (identifier) @call.name) @call
(call_expression
  function: (scoped_identifier path: (_) @call.receiver name: (identifier) @call.name)) @call
(call_expression
  function: (field_expression value: (_) @call.receiver field: (field_identifier) @call.name)) @call

; inside macro arguments (assert!, format!, vec!) calls are only tokens: f(...), x.m(...), T::f(...)
(token_tree (identifier) @call.name . (token_tree)) @call
(token_tree [(identifier) (self)] @call.receiver . "." . (identifier) @call.name . (token_tree)) @call
(token_tree (token_tree) @call.receiver . "." . (identifier) @call.name . (token_tree)) @call
(token_tree (identifier) @call.receiver . "::" . (identifier) @call.name . (token_tree)) @call

; ---- use declarations: a::b::C, a::b::C as D, a::b::{C, D as E, self}, a::b::*, a (one level of braces)
(use_declaration
  argument: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)) @import
(use_declaration
  argument: (use_as_clause
    path: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)
    alias: (identifier) @import.alias)) @import
(use_declaration
  argument: (scoped_use_list path: (_) @import.module list: (use_list (identifier) @import.name))) @import
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list (use_as_clause path: (identifier) @import.name alias: (identifier) @import.alias)))) @import
(use_declaration argument: (scoped_use_list path: (_) @import.module list: (use_list (self)))) @import
(use_declaration argument: (use_wildcard (_) @import.module) @import.wildcard) @import
(use_declaration argument: (identifier) @import.module) @import
(use_declaration argument: (use_as_clause path: (identifier) @import.module alias: (identifier) @import.alias)) @import

; `mod name;` brings the module's file into the crate
(mod_item !body name: (identifier) @import.module) @import

; ---- type uses
(parameter type: [(type_identifier) (scoped_type_identifier) (generic_type)] @reference.type)
(function_item return_type: [(type_identifier) (scoped_type_identifier) (generic_type)] @reference.type)
(field_declaration type: [(type_identifier) (scoped_type_identifier) (generic_type)] @reference.type)
(let_declaration type: [(type_identifier) (scoped_type_identifier) (generic_type)] @reference.type)
(reference_type type: [(type_identifier) (scoped_type_identifier) (generic_type)] @reference.type)
(type_arguments [(type_identifier) (scoped_type_identifier)] @reference.type)
(dynamic_type trait: [(type_identifier) (scoped_type_identifier)] @reference.type)
(struct_expression name: [(type_identifier) (scoped_type_identifier)] @reference.type)

; ---- evident variable types: parameters, let x: T, let x = T::new() / T { .. }, struct fields
(parameter pattern: (identifier) @binding.var type: (_) @binding.type) @binding
(let_declaration pattern: (identifier) @binding.var type: (_) @binding.type) @binding
(let_declaration
  pattern: (identifier) @binding.var
  value: (call_expression function: [(identifier) (scoped_identifier)] @binding.type)) @binding
(let_declaration
  pattern: (identifier) @binding.var
  value: (struct_expression name: [(type_identifier) (scoped_type_identifier)] @binding.type)) @binding
(field_declaration name: (field_identifier) @binding.field type: (_) @binding.type) @binding
