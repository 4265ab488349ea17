; graphctx fact query for Bash. Capture conventions: grammars/README.md.
; Every command is a call: a function of the repository, else an external program or builtin.

; ---- definitions
(function_definition name: (word) @name body: (_) @body) @definition.function
; constants: UPPER_CASE variables assigned at the top level, or declared readonly
((program (variable_assignment name: (variable_name) @name) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
((program (declaration_command (variable_assignment name: (variable_name) @name)) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; ---- calls: every command but `source` / `.`
((command name: (command_name (word) @call.name)) @call
  (#not-match? @call.name "^(source|\\.)$"))

; ---- imports: source FILE / . FILE bring the file's functions into scope
((command name: (command_name (word) @_source) . argument: [(word) (string) (raw_string) (concatenation)] @import.module @import.wildcard) @import
  (#match? @_source "^(source|\\.)$"))
