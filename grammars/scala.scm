; graphctx fact query for Scala. Capture conventions: grammars/README.md.
; A companion object shares its class's name: its members join the class. Import paths are flat in
; this grammar, so the import statement itself is captured and its path read off its text.

(package_clause name: (package_identifier) @package)

; ---- definitions
(class_definition name: (identifier) @name body: (template_body)? @body) @definition.class
(object_definition name: (identifier) @name body: (template_body)? @body) @definition.class
(trait_definition name: (identifier) @name body: (template_body)? @body) @definition.trait
(enum_definition name: (identifier) @name body: (enum_body) @body) @definition.enum
(function_definition name: (identifier) @name return_type: (_)? @returns body: (_) @body) @definition.function
; uniform access: a parameterless `def x` is read as `obj.x`, and `def x_=(v)` is what `obj.x = v` calls
(function_definition name: (identifier) @name @accessor.get !parameters return_type: (_)? @returns body: (_) @body) @definition.function
((function_definition name: (identifier) @name @accessor.set return_type: (_)? @returns body: (_) @body) @definition.function
  (#match? @name "_=$"))
(function_declaration name: (identifier) @name return_type: (_)? @returns) @definition.function
; constants: capitalised vals of an object
(object_definition body: (template_body
  ((val_definition pattern: (identifier) @name) @definition.constant (#match? @name "^[A-Z]"))))

; ---- inheritance: the first parent after `extends`, then what is mixed in `with`
(extends_clause . type: [(type_identifier) (generic_type) (stable_type_identifier)] @inherits)
(extends_clause (_) [(type_identifier) (generic_type) (stable_type_identifier)] @implements)

; ---- members read or assigned, not called: a property's accessor runs (graphctx/parse/members.py)
(field_expression value: (_) field: (identifier)) @attribute.use

; ---- calls: f(), x.f(), this.f(), super.f(), Obj.f(), new T(...)
(call_expression function: (identifier) @call.name) @call
(call_expression function: (field_expression value: (_) @call.receiver field: (identifier) @call.name)) @call
(call_expression function: (generic_function function: (identifier) @call.name)) @call
(instance_expression [(type_identifier) @call.name (generic_type (type_identifier) @call.name)]) @call

; ---- imports: a.b.C; a.b.{C, D => E}; a.b._ (the statement: its path is read off its text)
((import_declaration) @import.path @import
  (#not-match? @import "[{}]|\\.[_*]\\s*$"))
(import_declaration (namespace_selectors (identifier) @import.name)) @import.module @import
(import_declaration (namespace_selectors (arrow_renamed_identifier name: (identifier) @import.name alias: (identifier) @import.alias))) @import.module @import
(import_declaration (namespace_wildcard) @import.wildcard) @import.module @import

; ---- type uses
(parameter type: [(type_identifier) (generic_type) (stable_type_identifier)] @reference.type)
(function_definition return_type: [(type_identifier) (generic_type) (stable_type_identifier)] @reference.type)
(val_definition type: [(type_identifier) (generic_type) (stable_type_identifier)] @reference.type)
(instance_expression [(type_identifier) (generic_type)] @reference.type)

; ---- evident variable types: declared types, `val x = new T(...)`, parameters, class parameters and fields
(val_definition pattern: (identifier) @binding.var type: (_) @binding.type) @binding
(var_definition pattern: (identifier) @binding.var type: (_) @binding.type) @binding
(val_definition pattern: (identifier) @binding.var value: (instance_expression [(type_identifier) (generic_type)] @binding.type)) @binding
(parameter name: (identifier) @binding.var type: (_) @binding.type) @binding
(class_parameter name: (identifier) @binding.field type: (_) @binding.type) @binding
(template_body (val_definition pattern: (identifier) @binding.field type: (_) @binding.type) @binding)
