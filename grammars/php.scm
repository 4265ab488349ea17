; graphctx fact query for PHP. Capture conventions: grammars/README.md.
; Receivers read `$this->x` as self.x (extract.py) and `$x` as x.

(namespace_definition name: (namespace_name) @package)

; ---- definitions
(class_declaration name: (name) @name body: (declaration_list) @body) @definition.class
(interface_declaration name: (name) @name body: (declaration_list) @body) @definition.interface
(trait_declaration name: (name) @name body: (declaration_list) @body) @definition.trait
(enum_declaration name: (name) @name body: (enum_declaration_list) @body) @definition.enum
(function_definition name: (name) @name return_type: (_)? @returns body: (compound_statement) @body) @definition.function
(method_declaration name: (name) @name return_type: (_)? @returns body: (compound_statement)? @body) @definition.function
(const_declaration (const_element (name) @name)) @definition.constant

; ---- inheritance: extends, implements, and traits used in a class
(class_declaration (base_clause [(name) (qualified_name)] @inherits))
(class_declaration (class_interface_clause [(name) (qualified_name)] @implements))
(enum_declaration (class_interface_clause [(name) (qualified_name)] @implements))
(interface_declaration (base_clause [(name) (qualified_name)] @inherits))
(class_declaration body: (declaration_list (use_declaration [(name) (qualified_name)] @inherits)))

; ---- calls: f(), ns\f(), $x->m(), $this->m(), $x?->m(), Type::m(), self::m(), new T()
(function_call_expression function: (name) @call.name) @call
(function_call_expression function: (qualified_name (name) @call.name .)) @call
; a variable receiver by its name ($x -> x), any other by its text ($this->a -> self.a)
(member_call_expression object: (variable_name (name) @call.receiver) name: (name) @call.name) @call
(nullsafe_member_call_expression object: (variable_name (name) @call.receiver) name: (name) @call.name) @call
(member_call_expression
  object: [(member_access_expression) (nullsafe_member_access_expression) (member_call_expression)
           (function_call_expression) (scoped_call_expression) (parenthesized_expression)] @call.receiver
  name: (name) @call.name) @call
(nullsafe_member_call_expression
  object: [(member_access_expression) (nullsafe_member_access_expression) (member_call_expression)
           (function_call_expression) (scoped_call_expression) (parenthesized_expression)] @call.receiver
  name: (name) @call.name) @call
(scoped_call_expression scope: [(name) (relative_scope)] @call.receiver name: (name) @call.name) @call
(scoped_call_expression scope: (qualified_name (name) @call.receiver .) name: (name) @call.name) @call
(object_creation_expression (name) @call.name) @call
(object_creation_expression (qualified_name (name) @call.name .)) @call

; ---- imports: use A\B\C [as D]; use A\B\{C, D as E}; use function A\B\f
(namespace_use_declaration
  (namespace_use_clause (qualified_name prefix: (namespace_name) @import.module (name) @import.name) !alias)) @import
(namespace_use_declaration
  (namespace_use_clause (qualified_name prefix: (namespace_name) @import.module (name) @import.name) alias: (name) @import.alias)) @import
(namespace_use_declaration (namespace_use_clause . (name) @import.module .)) @import
(namespace_use_declaration (namespace_name) @import.module
  body: (namespace_use_group (namespace_use_clause . (name) @import.name . ))) @import
(namespace_use_declaration (namespace_name) @import.module
  body: (namespace_use_group (namespace_use_clause . (name) @import.name alias: (name) @import.alias))) @import

; ---- type uses
(named_type [(name) (qualified_name)] @reference.type)

; ---- evident variable types: typed parameters and properties, $x = new T()
(simple_parameter type: (named_type [(name) (qualified_name)] @binding.type) name: (variable_name (name) @binding.var)) @binding
(property_promotion_parameter type: (named_type [(name) (qualified_name)] @binding.type) name: (variable_name (name) @binding.field)) @binding
(property_declaration type: (named_type [(name) (qualified_name)] @binding.type) (property_element name: (variable_name (name) @binding.field))) @binding
(assignment_expression left: (variable_name (name) @binding.var) right: (object_creation_expression [(name) (qualified_name)] @binding.type)) @binding
