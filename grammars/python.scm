; graphctx fact query for Python. Capture conventions: grammars/README.md.

; ---- definitions
(class_definition
  name: (identifier) @name
  body: (block . (expression_statement (string) @doc)?) @body) @definition.class

(function_definition
  name: (identifier) @name
  return_type: (type [(identifier) (attribute)] @returns)?
  body: (block . (expression_statement (string) @doc)?) @body) @definition.function

; lambdas: entities named by their line, `outer.<lambda:12>` (graphctx/parse/extract.py)
(lambda body: (_) @body) @definition.lambda

; module-level constants: UPPER_CASE = ...
(module
  (expression_statement
    (assignment left: (identifier) @name) @definition.constant)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

; ---- inheritance
(class_definition
  superclasses: (argument_list [(identifier) (attribute)] @inherits))

; ---- calls
(call function: (identifier) @call.name) @call
(call function: (attribute object: (_) @call.receiver attribute: (identifier) @call.name)) @call
(call function: [(subscript) (call) (parenthesized_expression)] @call.callee) @call

; ---- imports
(import_statement name: (dotted_name) @import.module) @import
(import_statement name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias)) @import
(import_from_statement
  module_name: (_) @import.module
  name: (dotted_name) @import.name) @import
(import_from_statement
  module_name: (_) @import.module
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)) @import
(import_from_statement module_name: (_) @import.module (wildcard_import) @import.wildcard) @import

; ---- type uses (annotations)
(type (identifier) @reference.type)
(type (attribute) @reference.type)
(type (generic_type (identifier) @reference.type))
(type (subscript value: (identifier) @reference.type))

; ---- evident variable types: x = Foo(...), self.x = Foo(...), x: Foo, def f(x: Foo)
(assignment
  left: (identifier) @binding.var
  right: (call function: [(identifier) (attribute)] @binding.type)) @binding
(assignment
  left: (attribute object: (identifier) @_self attribute: (identifier)) @binding.var
  right: (call function: [(identifier) (attribute)] @binding.type)
  (#any-of? @_self "self" "cls")) @binding
(assignment
  left: [(identifier) (attribute)] @binding.var
  type: (type [(identifier) (attribute)] @binding.type)) @binding
(typed_parameter (identifier) @binding.var type: (type [(identifier) (attribute)] @binding.type)) @binding
(typed_default_parameter name: (identifier) @binding.var type: (type [(identifier) (attribute)] @binding.type)) @binding

; ---- the module docstring
(module . (expression_statement (string) @module.doc))

; ---- value flow (graphctx/parse/flows.py reads these nodes)
(assignment) @flow.assign
(named_expression) @flow.assign
(return_statement) @flow.return
(yield) @flow.yield
(for_statement) @flow.for
(for_in_clause) @flow.for
(with_item) @flow.with
(raise_statement) @flow.raise
(decorator) @flow.decorator
(function_definition parameters: (parameters) @flow.params)
(lambda parameters: (lambda_parameters) @flow.params)
(lambda) @flow.lambda

; ---- attributes read, assigned or deleted (a property's accessor runs): graphctx/parse/accessors.py
(attribute) @attribute.use
