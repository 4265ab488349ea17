; graphctx fact query for Java. Capture conventions: grammars/README.md.

(package_declaration [(scoped_identifier) (identifier)] @package)

; ---- definitions
(class_declaration name: (identifier) @name body: (class_body) @body) @definition.class
(record_declaration name: (identifier) @name body: (class_body) @body) @definition.class
(interface_declaration name: (identifier) @name body: (interface_body) @body) @definition.interface
(annotation_type_declaration name: (identifier) @name body: (annotation_type_body) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (enum_body) @body) @definition.enum

; methods (abstract and interface ones have no body) and constructors
(method_declaration
  type: (_) @returns
  name: (identifier) @name
  body: (block)? @body) @definition.function
(constructor_declaration name: (identifier) @name body: (constructor_body) @body) @definition.function

; constants: UPPER_CASE fields
((field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; ---- inheritance
(class_declaration superclass: (superclass [(type_identifier) (scoped_type_identifier) (generic_type)] @inherits))
(class_declaration
  interfaces: (super_interfaces (type_list [(type_identifier) (scoped_type_identifier) (generic_type)] @implements)))
(record_declaration
  interfaces: (super_interfaces (type_list [(type_identifier) (scoped_type_identifier) (generic_type)] @implements)))
(enum_declaration
  interfaces: (super_interfaces (type_list [(type_identifier) (scoped_type_identifier) (generic_type)] @implements)))
(interface_declaration
  (extends_interfaces (type_list [(type_identifier) (scoped_type_identifier) (generic_type)] @inherits)))

; ---- calls: m(), x.m(), this.m(), super.m(), new T(...)
(method_invocation !object name: (identifier) @call.name) @call
(method_invocation object: (_) @call.receiver name: (identifier) @call.name) @call
(object_creation_expression type: (type_identifier) @call.name) @call
(object_creation_expression type: (generic_type (type_identifier) @call.name)) @call
(object_creation_expression type: (scoped_type_identifier (_) @call.receiver . (type_identifier) @call.name .)) @call

; ---- imports: a.b.C, static a.b.C.m (module a.b.C), a.b.*
(import_declaration (scoped_identifier scope: (_) @import.module name: (identifier) @import.name) .) @import
(import_declaration (scoped_identifier) @import.module (asterisk) @import.wildcard) @import

; ---- type uses
(formal_parameter type: [(type_identifier) (scoped_type_identifier) (generic_type)] @reference.type)
(method_declaration type: [(type_identifier) (scoped_type_identifier) (generic_type)] @reference.type)
(field_declaration type: [(type_identifier) (scoped_type_identifier) (generic_type)] @reference.type)
(local_variable_declaration type: [(type_identifier) (scoped_type_identifier) (generic_type)] @reference.type)
(type_arguments [(type_identifier) (scoped_type_identifier)] @reference.type)
(object_creation_expression type: [(type_identifier) (scoped_type_identifier) (generic_type)] @reference.type)

; ---- evident variable types: declared types (not `var`), `var x = new T()`, fields
((local_variable_declaration
  type: (_) @binding.type
  declarator: (variable_declarator name: (identifier) @binding.var)) @binding
  (#not-eq? @binding.type "var"))
((local_variable_declaration
  type: (type_identifier) @_var
  declarator: (variable_declarator
    name: (identifier) @binding.var
    value: (object_creation_expression type: (_) @binding.type))) @binding
  (#eq? @_var "var"))
(formal_parameter type: (_) @binding.type name: (identifier) @binding.var) @binding
(field_declaration type: (_) @binding.type declarator: (variable_declarator name: (identifier) @binding.field)) @binding
