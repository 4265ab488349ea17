; graphctx fact query for C#. Capture conventions: grammars/README.md.

(namespace_declaration name: [(identifier) (qualified_name)] @package)
(file_scoped_namespace_declaration name: [(identifier) (qualified_name)] @package)

; ---- definitions
(class_declaration name: (identifier) @name body: (declaration_list) @body) @definition.class
(struct_declaration name: (identifier) @name body: (declaration_list) @body) @definition.struct
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name body: (declaration_list) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (enum_member_declaration_list) @body) @definition.enum
; methods (interface and abstract ones have no body), constructors
(method_declaration
  returns: (_) @returns
  name: (identifier) @name
  body: [(block) (arrow_expression_clause)]? @body) @definition.function
(constructor_declaration name: (identifier) @name body: (_) @body) @definition.function
; constants: `const` fields
((field_declaration (modifier) @_const (variable_declaration (variable_declarator name: (identifier) @name))) @definition.constant
  (#eq? @_const "const"))

; ---- inheritance: a base named I + capital is an interface by .NET convention
((class_declaration (base_list [(identifier) (qualified_name) (generic_name)] @inherits))
  (#not-match? @inherits "^(.*\\.)?I[A-Z]"))
((class_declaration (base_list [(identifier) (qualified_name) (generic_name)] @implements))
  (#match? @implements "^(.*\\.)?I[A-Z]"))
((record_declaration (base_list [(identifier) (qualified_name) (generic_name)] @inherits))
  (#not-match? @inherits "^(.*\\.)?I[A-Z]"))
((record_declaration (base_list [(identifier) (qualified_name) (generic_name)] @implements))
  (#match? @implements "^(.*\\.)?I[A-Z]"))
(struct_declaration (base_list [(identifier) (qualified_name) (generic_name)] @implements))
(interface_declaration (base_list [(identifier) (qualified_name) (generic_name)] @inherits))

; properties with code: each accessor with a body is a method (`C.X`, its setter `C.X.setter`);
; an auto-property (`{ get; set; }`) runs no code of ours
(property_declaration
  name: (identifier) @name
  accessors: (accessor_list (accessor_declaration name: "get" @accessor.get body: (_) @body) @definition.function)) @accessor.property
(property_declaration
  name: (identifier) @name
  accessors: (accessor_list (accessor_declaration name: "set" @accessor.set body: (_) @body) @definition.function)) @accessor.property
(property_declaration name: (identifier) @name value: (arrow_expression_clause) @body @accessor.get) @definition.function @accessor.property

; ---- members read or assigned, not called: a property's accessor runs (graphctx/parse/members.py)
(member_access_expression name: (identifier)) @attribute.use

; ---- calls: M(), x.M(), this.M(), Type.M(), new T()
(invocation_expression function: (identifier) @call.name) @call
(invocation_expression function: (generic_name (identifier) @call.name)) @call
(invocation_expression function: (member_access_expression expression: _ @call.receiver name: (identifier) @call.name)) @call
(invocation_expression function: (member_access_expression expression: _ @call.receiver name: (generic_name (identifier) @call.name))) @call
(object_creation_expression type: (identifier) @call.name) @call
(object_creation_expression type: (generic_name (identifier) @call.name)) @call
(object_creation_expression type: (qualified_name qualifier: (_) @call.receiver name: (identifier) @call.name)) @call

; ---- imports: `using A.B;` brings a namespace's types into scope
(using_directive . [(identifier) (qualified_name)] @import.module @import.wildcard .) @import
(using_directive name: (identifier) @import.alias [(identifier) (qualified_name)] @import.module) @import

; ---- type uses
(parameter type: [(identifier) (qualified_name) (generic_name)] @reference.type)
(variable_declaration type: [(identifier) (qualified_name) (generic_name)] @reference.type)
(method_declaration returns: [(identifier) (qualified_name) (generic_name)] @reference.type)
(property_declaration type: [(identifier) (qualified_name) (generic_name)] @reference.type)
(type_argument_list [(identifier) (qualified_name)] @reference.type)
(object_creation_expression type: [(identifier) (qualified_name) (generic_name)] @reference.type)

; ---- evident variable types: declared types (not `var`), `var x = new T()`, parameters, fields, properties
(local_declaration_statement
  (variable_declaration type: [(identifier) (qualified_name) (generic_name)] @binding.type
    (variable_declarator name: (identifier) @binding.var))) @binding
(local_declaration_statement
  (variable_declaration type: (implicit_type)
    (variable_declarator name: (identifier) @binding.var (object_creation_expression type: (_) @binding.type)))) @binding
(parameter type: [(identifier) (qualified_name) (generic_name)] @binding.type name: (identifier) @binding.var) @binding
(field_declaration
  (variable_declaration type: [(identifier) (qualified_name) (generic_name)] @binding.type
    (variable_declarator name: (identifier) @binding.field))) @binding
(property_declaration type: [(identifier) (qualified_name) (generic_name)] @binding.type name: (identifier) @binding.field) @binding
