; JavaScript: functions, classes, methods, and functions bound to a name
; (const f = () => ..., class fields f = () => ...). export_statement is a
; wrapper (spec). Anonymous callbacks stay inside their enclosing function.
(function_declaration name: (identifier) @name parameters: (formal_parameters) @params) @function
(generator_function_declaration name: (identifier) @name parameters: (formal_parameters) @params) @function
(class_declaration name: (identifier) @name) @class
(method_definition name: (_) @name parameters: (formal_parameters) @params) @function
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function parameters: (formal_parameters) @params)
            (arrow_function parameter: (identifier) @params)
            (function_expression parameters: (formal_parameters) @params)
            (generator_function parameters: (formal_parameters) @params)])) @function
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function parameters: (formal_parameters) @params)
            (arrow_function parameter: (identifier) @params)
            (function_expression parameters: (formal_parameters) @params)
            (generator_function parameters: (formal_parameters) @params)])) @function
(field_definition
  property: (property_identifier) @name
  value: [(arrow_function parameters: (formal_parameters) @params)
          (arrow_function parameter: (identifier) @params)
          (function_expression parameters: (formal_parameters) @params)]) @function

; include ecmascript_commonjs

(class_heritage (_) @extends)

; include ecmascript_imports

; "new Layer(...)" calls the constructor (or constructor function) Layer
(new_expression constructor: (identifier) @call)

; include ecmascript_bound
