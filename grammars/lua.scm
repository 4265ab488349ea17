; graphctx fact query for Lua. Capture conventions: grammars/README.md.
; A table named in CamelCase (`local Circle = {}` or `setmetatable({}, {__index = Shape})`) is a
; class, and `function Circle.new()` / `function Circle:area()` are its methods; the functions of a
; module table (`M`, `util`) are the module's own functions, reached as `util.f()` after
; `local util = require("util")`.

; ---- definitions: classes, their methods, module functions, local and global functions
((variable_declaration (assignment_statement (variable_list . name: (identifier) @name .)
  (expression_list . value: (table_constructor) @body .))) @definition.class
  (#match? @name "^[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*$"))
((variable_declaration (assignment_statement (variable_list . name: (identifier) @name .)
  (expression_list . value: (function_call name: (identifier) @_setmetatable) @body .))) @definition.class
  (#match? @name "^[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*$")
  (#eq? @_setmetatable "setmetatable"))
((chunk (assignment_statement (variable_list . name: (identifier) @name .)
  (expression_list . value: (table_constructor) @body .)) @definition.class)
  (#match? @name "^[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*$"))
((function_declaration name: (dot_index_expression table: (identifier) @receiver field: (identifier) @name) body: (block)? @body) @definition.function
  (#match? @receiver "^[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*$"))
((function_declaration name: (dot_index_expression table: (identifier) @_module field: (identifier) @name) body: (block)? @body) @definition.function
  (#not-match? @_module "^[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*$"))
(function_declaration name: (method_index_expression table: (identifier) @receiver method: (identifier) @name) body: (block)? @body) @definition.function
(function_declaration name: (identifier) @name body: (block)? @body) @definition.function
; constants: UPPER_CASE locals of the chunk
((chunk (variable_declaration (assignment_statement (variable_list . name: (identifier) @name .))) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; ---- inheritance: setmetatable(..., { __index = Base }) in a class's own declaration
((field name: (identifier) @_index value: [(identifier) (dot_index_expression)] @inherits)
  (#eq? @_index "__index"))

; ---- calls: f(), t.f(), obj:m(), self:m(), Class.new()
((function_call name: (identifier) @call.name) @call
  (#not-eq? @call.name "require"))
(function_call name: (dot_index_expression table: (_) @call.receiver field: (identifier) @call.name)) @call
(function_call name: (method_index_expression table: (_) @call.receiver method: (identifier) @call.name)) @call

; ---- imports: local util = require("a.b") binds the module a.b to util; local Circle = require("a.b")
; binds the class Circle that module defines (and returns), when it defines one of that name
((variable_declaration (assignment_statement (variable_list . name: (identifier) @import.alias .)
  (expression_list . value: (function_call name: (identifier) @_require arguments: (arguments . (string content: (string_content) @import.module)))))) @import
  (#eq? @_require "require")
  (#not-match? @import.alias "^[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*$"))
((variable_declaration (assignment_statement (variable_list . name: (identifier) @import.name .)
  (expression_list . value: (function_call name: (identifier) @_require arguments: (arguments . (string content: (string_content) @import.module)))))) @import
  (#eq? @_require "require")
  (#match? @import.name "^[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*$"))

; ---- evident variable types: local x = Class.new(...)
((variable_declaration (assignment_statement (variable_list . name: (identifier) @binding.var .)
  (expression_list . value: (function_call name: (dot_index_expression table: (identifier) @binding.type field: (identifier) @_new))))) @binding
  (#eq? @_new "new"))
