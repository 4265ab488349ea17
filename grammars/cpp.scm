; graphctx fact query for C++. Capture conventions: grammars/README.md.
; Namespaces are not scopes: `geo::area()` is read as `area()`, found through the includes.
; Prototypes and in-class method declarations are not entities: a method is where its body is,
; `double Circle::area() const { ... }` outside the class included.

; ---- definitions
(function_definition
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier)] @name))]
  body: (_) @body) @definition.function
; Type::method and ns::Type::method defined outside the class
(function_definition
  declarator: [
    (function_declarator declarator: (qualified_identifier scope: (namespace_identifier) @receiver name: [(identifier) (destructor_name)] @name))
    (function_declarator declarator: (qualified_identifier
      name: (qualified_identifier scope: (namespace_identifier) @receiver name: [(identifier) (destructor_name)] @name)))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (namespace_identifier) @receiver name: (identifier) @name)))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (namespace_identifier) @receiver name: (identifier) @name)))]
  body: (_) @body) @definition.function
(class_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.class
(struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @definition.enum
(type_definition type: (struct_specifier !name body: (field_declaration_list) @body) declarator: (type_identifier) @name) @definition.struct
((preproc_def name: (identifier) @name value: (_)) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; ---- inheritance: every base of a class (C++ has no separate interfaces)
(base_class_clause [(type_identifier) @inherits (qualified_identifier name: (type_identifier) @inherits) (template_type name: (type_identifier) @inherits)])

; ---- calls: f(), x.f(), p->f(), this->f(), Type::f(), ns::Type::f(), std::f(), ns::f() (as f()), new T(), T x(...)
(call_expression function: (identifier) @call.name) @call
(call_expression function: (field_expression argument: (_) @call.receiver field: (field_identifier) @call.name)) @call
(call_expression function: (qualified_identifier name: (identifier) @call.name)) @call
((call_expression function: (qualified_identifier scope: (namespace_identifier) @call.receiver name: (identifier) @call.name)) @call
  (#match? @call.receiver "^(std|[A-Z].*)$"))
(call_expression function: (template_function name: (identifier) @call.name)) @call
(call_expression function: (qualified_identifier
  name: (qualified_identifier scope: (namespace_identifier) @call.receiver name: (identifier) @call.name))) @call
(new_expression type: (type_identifier) @call.name) @call
(new_expression type: (qualified_identifier name: (type_identifier) @call.name)) @call
(declaration type: (type_identifier) @call.name declarator: (init_declarator value: (argument_list))) @call
(declaration type: (qualified_identifier name: (type_identifier) @call.name) declarator: (init_declarator value: (argument_list))) @call

; ---- includes: everything a header declares comes into scope
(preproc_include path: (string_literal (string_content) @import.module @import.wildcard)) @import
(preproc_include path: (system_lib_string) @import.module @import.wildcard) @import

; ---- type uses (a namespace-qualified type by its own name)
(parameter_declaration type: [(type_identifier) @reference.type (qualified_identifier name: (type_identifier) @reference.type)])
(declaration type: [(type_identifier) @reference.type (qualified_identifier name: (type_identifier) @reference.type)])
(field_declaration type: [(type_identifier) @reference.type (qualified_identifier name: (type_identifier) @reference.type)])
(template_argument_list (type_descriptor type: (type_identifier) @reference.type))

; ---- evident variable types: declarations, `auto p = new T(...)`, parameters, fields
(declaration type: [(type_identifier) @binding.type (qualified_identifier name: (type_identifier) @binding.type)]
  declarator: [
    (identifier) @binding.var
    (init_declarator declarator: (identifier) @binding.var)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @binding.var))]) @binding
(declaration type: (placeholder_type_specifier)
  declarator: (init_declarator declarator: (identifier) @binding.var
    value: (new_expression type: [(type_identifier) @binding.type (qualified_identifier name: (type_identifier) @binding.type)]))) @binding
(parameter_declaration type: [(type_identifier) @binding.type (qualified_identifier name: (type_identifier) @binding.type)]
  declarator: [
    (identifier) @binding.var
    (pointer_declarator declarator: (identifier) @binding.var)
    (reference_declarator (identifier) @binding.var)]) @binding
(field_declaration type: [(type_identifier) @binding.type (qualified_identifier name: (type_identifier) @binding.type)]
  declarator: [(field_identifier) @binding.field (pointer_declarator declarator: (field_identifier) @binding.field)]) @binding
