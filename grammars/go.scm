; graphctx fact query for Go. Capture conventions: grammars/README.md.

(package_clause (package_identifier) @package)

; ---- definitions
; the result type, or the first of several, is what `x := f()` / `x, err := f()` makes x
(function_declaration
  name: (identifier) @name
  result: [
    (type_identifier) @returns
    (pointer_type) @returns
    (qualified_type) @returns
    (generic_type) @returns
    (parameter_list . (parameter_declaration type: (_) @returns))]?
  body: (block) @body) @definition.function

; func (r *T) M(): a method of T, wherever T is declared in the package
(method_declaration
  receiver: (parameter_list (parameter_declaration type: (_) @receiver))
  name: (field_identifier) @name
  result: [
    (type_identifier) @returns
    (pointer_type) @returns
    (qualified_type) @returns
    (generic_type) @returns
    (parameter_list . (parameter_declaration type: (_) @returns))]?
  body: (block) @body) @definition.function

(type_spec name: (type_identifier) @name type: (struct_type (field_declaration_list) @body)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface

; interface methods: what calls through an interface value resolve to
(method_elem name: (field_identifier) @name) @definition.function

(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))

; ---- embedding: a struct or interface gains the embedded type's methods
(field_declaration !name type: [(type_identifier) (qualified_type) (pointer_type) (generic_type)] @inherits)
(interface_type (type_elem . [(type_identifier) (qualified_type)] @inherits .))

; ---- calls
(call_expression function: (identifier) @call.name) @call
(call_expression
  function: (selector_expression operand: (_) @call.receiver field: (field_identifier) @call.name)) @call

; ---- imports: "path", alias "path", . "path" (everything into scope), _ "path" (side effects)
(import_spec !name path: (_) @import.module) @import
(import_spec name: (package_identifier) @import.alias path: (_) @import.module) @import
(import_spec name: (dot) @import.wildcard path: (_) @import.module) @import
(import_spec name: (blank_identifier) path: (_) @import.module) @import

; ---- type uses
(parameter_declaration type: [(type_identifier) (qualified_type)] @reference.type)
(pointer_type [(type_identifier) (qualified_type)] @reference.type)
(slice_type element: [(type_identifier) (qualified_type)] @reference.type)
(array_type element: [(type_identifier) (qualified_type)] @reference.type)
(map_type value: [(type_identifier) (qualified_type)] @reference.type)
(field_declaration type: [(type_identifier) (qualified_type)] @reference.type)
(function_declaration result: [(type_identifier) (qualified_type)] @reference.type)
(method_declaration result: [(type_identifier) (qualified_type)] @reference.type)
(var_spec type: [(type_identifier) (qualified_type)] @reference.type)
(composite_literal type: [(type_identifier) (qualified_type)] @reference.type)
(type_arguments (type_elem [(type_identifier) (qualified_type)] @reference.type))

; ---- evident variable types: receivers and parameters, var x T, x := T{...} / &T{...} / f(), struct fields
(parameter_declaration
  name: (identifier) @binding.var
  type: [(type_identifier) (qualified_type) (pointer_type) (generic_type)] @binding.type) @binding
(var_spec
  name: (identifier) @binding.var
  type: [(type_identifier) (qualified_type) (pointer_type) (generic_type)] @binding.type) @binding
(short_var_declaration
  left: (expression_list . (identifier) @binding.var)
  right: (expression_list . [
    (composite_literal type: [(type_identifier) (qualified_type) (generic_type)] @binding.type)
    (unary_expression operand: (composite_literal type: [(type_identifier) (qualified_type) (generic_type)] @binding.type))
    (call_expression function: [(identifier) (selector_expression)] @binding.type)])) @binding
(field_declaration
  name: (field_identifier) @binding.field
  type: [(type_identifier) (qualified_type) (pointer_type) (generic_type)] @binding.type) @binding
