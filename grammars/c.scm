; graphctx fact query for C. Capture conventions: grammars/README.md.
; Prototypes are not entities: a function is where its body is, and an include names both.

; ---- definitions
(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))]
  body: (compound_statement) @body) @definition.function
(struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @definition.enum
; typedef struct { ... } Name;
(type_definition type: (struct_specifier !name body: (field_declaration_list) @body) declarator: (type_identifier) @name) @definition.struct
(type_definition type: (enum_specifier !name body: (enumerator_list) @body) declarator: (type_identifier) @name) @definition.enum
; #define NAME value (header guards define no value)
((preproc_def name: (identifier) @name value: (_)) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; ---- calls: f(), s->f() / s.f() through a function pointer
(call_expression function: (identifier) @call.name) @call
(call_expression function: (field_expression argument: (_) @call.receiver field: (field_identifier) @call.name)) @call

; ---- includes: everything a header declares comes into scope
(preproc_include path: (string_literal (string_content) @import.module @import.wildcard)) @import
(preproc_include path: (system_lib_string) @import.module @import.wildcard) @import

; ---- type uses
(parameter_declaration type: (type_identifier) @reference.type)
(parameter_declaration type: (struct_specifier !body name: (type_identifier) @reference.type))
(declaration type: (type_identifier) @reference.type)
(declaration type: (struct_specifier !body name: (type_identifier) @reference.type))
(field_declaration type: (type_identifier) @reference.type)
(function_definition type: (type_identifier) @reference.type)
