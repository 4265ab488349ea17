; graphctx fact query for Kotlin. Capture conventions: grammars/README.md.
; A companion object is no scope: its functions are members of the class.

(package_header (qualified_identifier) @package)

; ---- definitions
(class_declaration "interface" name: (identifier) @name (class_body)? @body) @definition.interface
(class_declaration "class" name: (identifier) @name [(class_body) (enum_class_body)]? @body) @definition.class
(object_declaration name: (identifier) @name (class_body)? @body) @definition.class
(function_declaration name: (identifier) @name (function_value_parameters) . (user_type)? @returns (function_body)? @body) @definition.function
((property_declaration (modifiers (property_modifier) @_const) (variable_declaration (identifier) @name)) @definition.constant
  (#eq? @_const "const"))

; ---- inheritance: a superclass is called (`Shape()`), interfaces are not
(class_declaration "class" (delegation_specifiers (delegation_specifier (constructor_invocation (user_type) @inherits))))
(class_declaration "class" (delegation_specifiers (delegation_specifier (user_type) @implements)))
(object_declaration (delegation_specifiers (delegation_specifier (constructor_invocation (user_type) @inherits))))
(object_declaration (delegation_specifiers (delegation_specifier (user_type) @implements)))
(class_declaration "interface" (delegation_specifiers (delegation_specifier (user_type) @inherits)))

; properties with a getter or setter body: each a method (`C.x`, its setter `C.x.setter`)
(property_declaration (variable_declaration . (identifier) @name) (getter "get" @accessor.get (function_body) @body) @definition.function) @accessor.property
(property_declaration (variable_declaration . (identifier) @name) (setter "set" @accessor.set (function_body) @body) @definition.function) @accessor.property

; ---- members read or assigned, not called: a property's accessor runs (graphctx/parse/members.py)
(navigation_expression (_) . (identifier) .) @attribute.use

; ---- calls: f(), x.f(), x?.f(), this.f(), super.f(), Type.f(), Type() (a constructor)
(call_expression . (identifier) @call.name) @call
(call_expression . (navigation_expression (_) @call.receiver . (identifier) @call.name .)) @call

; ---- imports: a.b.C, a.b.C as D, a.b.*
((import (qualified_identifier) @import.path .) @import
  (#not-match? @import "\\*\\s*$"))
(import (qualified_identifier) @import.path (identifier) @import.alias) @import
(import (qualified_identifier) @import.module "*" @import.wildcard) @import

; ---- type uses
(user_type) @reference.type

; ---- evident variable types: declared types, `val x = T(...)`, parameters, class properties
(property_declaration (variable_declaration (identifier) @binding.var (user_type) @binding.type)) @binding
((property_declaration (variable_declaration . (identifier) @binding.var .) (call_expression . (identifier) @binding.type)) @binding
  (#match? @binding.type "^[A-Z]"))
(parameter (identifier) @binding.var (user_type) @binding.type) @binding
(class_parameter (identifier) @binding.field (user_type) @binding.type) @binding
(class_body (property_declaration (variable_declaration (identifier) @binding.field (user_type) @binding.type)) @binding)
