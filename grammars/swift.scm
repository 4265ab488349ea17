; graphctx fact query for Swift. Capture conventions: grammars/README.md.
; An extension is a scope of the type it extends (its functions are that type's methods). A call
; whose callee the grammar folds into an operator expression (`a + f(x)`) is not seen.

; ---- definitions
(class_declaration "class" name: (type_identifier) @name body: (class_body) @body) @definition.class
(class_declaration "actor" name: (type_identifier) @name body: (class_body) @body) @definition.class
(class_declaration "struct" name: (type_identifier) @name body: (class_body) @body) @definition.struct
(class_declaration "enum" name: (type_identifier) @name body: (enum_class_body) @body) @definition.enum
(protocol_declaration name: (type_identifier) @name body: (protocol_body) @body) @definition.interface
(class_declaration "extension" name: (user_type) @impl.type) @scope.impl
(function_declaration name: (simple_identifier) @name (user_type)? @returns body: (function_body) @body) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.function
(init_declaration "init" @name body: (function_body) @body) @definition.function

; ---- inheritance: a class's superclass and protocols alike; structs, enums and extensions conform
(class_declaration "class" (inheritance_specifier inherits_from: (user_type) @inherits))
(class_declaration "struct" (inheritance_specifier inherits_from: (user_type) @implements))
(class_declaration "enum" (inheritance_specifier inherits_from: (user_type) @implements))
(protocol_declaration (inheritance_specifier inherits_from: (user_type) @inherits))
(class_declaration "extension" (inheritance_specifier inherits_from: (user_type) @implements))

; computed properties: the getter (`var x: T { ... }` or its `get { }`) and the setter are methods (`C.x`, `C.x.setter`)
(property_declaration
  name: (pattern bound_identifier: (simple_identifier) @name)
  computed_value: (computed_property (statements) @body) @accessor.get) @definition.function @accessor.property
(property_declaration
  name: (pattern bound_identifier: (simple_identifier) @name)
  computed_value: (computed_property (computed_getter (getter_specifier) @accessor.get (statements) @body) @definition.function)) @accessor.property
(property_declaration
  name: (pattern bound_identifier: (simple_identifier) @name)
  computed_value: (computed_property (computed_setter (setter_specifier) @accessor.set (statements) @body) @definition.function)) @accessor.property

; ---- members read or assigned, not called: a property's accessor runs (graphctx/parse/members.py)
(navigation_expression target: (_) suffix: (navigation_suffix suffix: (simple_identifier))) @attribute.use

; ---- calls: f(), x.f(), self.f(), Type.f(), Type(...) (an initializer)
(call_expression . (simple_identifier) @call.name) @call
(call_expression . (navigation_expression target: (_) @call.receiver suffix: (navigation_suffix suffix: (simple_identifier) @call.name))) @call

; ---- imports: a module (a package target) and everything it declares
(import_declaration (identifier) @import.module @import.wildcard) @import

; ---- type uses
(type_annotation (user_type) @reference.type)
(parameter (user_type) @reference.type)

; ---- evident variable types: annotations, `let x = Type(...)`, parameters, stored properties
(property_declaration name: (pattern bound_identifier: (simple_identifier) @binding.var) (type_annotation (user_type) @binding.type)) @binding
((property_declaration name: (pattern bound_identifier: (simple_identifier) @binding.var) value: (call_expression . (simple_identifier) @binding.type)) @binding
  (#match? @binding.type "^[A-Z]"))
(parameter name: (simple_identifier) @binding.var (user_type) @binding.type) @binding
(class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @binding.field) (type_annotation (user_type) @binding.type)) @binding)
