; graphctx fact query for Ruby. Capture conventions: grammars/README.md.
; A module that defines methods is a `trait` (a mixin); a module that only holds classes is a
; namespace and no scope, as in C++: `Geo::Circle` is the class Circle. Calls without parentheses
; and arguments (`total`) read like local variables and are not seen.

; ---- definitions
(class name: [(constant) @name (scope_resolution name: (constant) @name)] body: (body_statement)? @body) @definition.class
(module name: [(constant) @name (scope_resolution name: (constant) @name)]
  body: (body_statement [(method) (singleton_method)]) @body) @definition.trait
(method name: (_) @name body: (body_statement)? @body) @definition.function
(singleton_method name: (_) @name body: (body_statement)? @body) @definition.function
((assignment left: (constant) @name) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; ---- inheritance: the superclass, and modules mixed in by include / prepend
(class superclass: (superclass [(constant) @inherits (scope_resolution name: (constant) @inherits)]))
((class body: (body_statement
  (call !receiver method: (identifier) @_mixin
    arguments: (argument_list [(constant) @inherits (scope_resolution name: (constant) @inherits)]))))
  (#any-of? @_mixin "include" "prepend"))

; ---- calls: m(...), x.m, self.m, @x.m, Type.m, Mod::Type.m (as Type.m), Type.new / Mod::Type.new (a call of the class)
((call !receiver method: (identifier) @call.name) @call
  ; (py-tree-sitter ignores #not-any-of?)
  (#not-match? @call.name "^(require|require_relative|include|extend|prepend|attr_reader|attr_writer|attr_accessor|private|protected|public|module_function|private_constant)$"))
((call receiver: [(identifier) (constant) (instance_variable) (class_variable) (self) (call)] @call.receiver
  method: (identifier) @call.name) @call
  (#not-eq? @call.name "new"))
((call receiver: (scope_resolution name: (constant) @call.receiver) method: (identifier) @call.name) @call
  (#not-eq? @call.name "new"))
((call receiver: (constant) @call.name method: (identifier) @_new) @call
  (#eq? @_new "new"))
((call receiver: (scope_resolution name: (constant) @call.name) method: (identifier) @_new) @call
  (#eq? @_new "new"))

; ---- imports: require / require_relative load a file, and every name it defines
((call !receiver method: (identifier) @_require arguments: (argument_list . (string (string_content) @import.module @import.wildcard))) @import
  (#any-of? @_require "require" "require_relative"))

; ---- evident variable types: x = Type.new, @x = Type.new
((assignment left: [(identifier) (instance_variable)] @binding.var
  right: (call receiver: [(constant) @binding.type (scope_resolution name: (constant) @binding.type)] method: (identifier) @_new)) @binding
  (#eq? @_new "new"))
