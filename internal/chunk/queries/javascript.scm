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

; CommonJS-style methods: res.send = function send(body) {...},
; Layer.prototype.match = function (path) {...}, app.use = (fn) => {...}.
; The object is the owner (".prototype" and exports objects are dropped).
(expression_statement
  (assignment_expression
    left: (member_expression object: (_) @owner property: (property_identifier) @name)
    right: [(function_expression parameters: (formal_parameters) @params)
            (arrow_function parameters: (formal_parameters) @params)
            (arrow_function parameter: (identifier) @params)
            (generator_function parameters: (formal_parameters) @params)])) @function

(class_heritage (_) @extends)

(program (import_statement) @skip)
(import_statement source: (string) @import)
(export_statement source: (string) @import)
(call_expression
  function: (identifier) @_req
  arguments: (arguments . (string) @import)
  (#eq? @_req "require"))

((call_expression function: (identifier) @call) (#not-eq? @call "require"))
(call_expression function: (member_expression object: (_) @call.recv property: (property_identifier) @call))

; "new Layer(...)" calls the constructor (or constructor function) Layer
(new_expression constructor: (identifier) @call)

; A const bound to a call whose last argument is a function: the function is
; the implementation (const handler = wrap(async (req, res) => {...}),
; const Button = forwardRef((props, ref) => ...), zod's
; const $ZodCheck = core.$constructor("...", (inst, def) => {...})).
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (call_expression
      arguments: (arguments
        [(arrow_function parameters: (formal_parameters) @params)
         (arrow_function parameter: (identifier) @params)
         (function_expression parameters: (formal_parameters) @params)] .)))) @function

; A const bound to a conditional choosing between functions is a function:
; const f = cond ? () => {...} : (x) => {...}
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (ternary_expression
      consequence: [(arrow_function parameters: (formal_parameters) @params)
                    (arrow_function parameter: (identifier) @params)
                    (function_expression parameters: (formal_parameters) @params)]))) @function
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (ternary_expression
      alternative: [(arrow_function parameters: (formal_parameters) @params)
                    (arrow_function parameter: (identifier) @params)
                    (function_expression parameters: (formal_parameters) @params)]))) @function

; A function-valued key of an object literal: a member of the object when
; the object is bound to a name (const api = { get: function () {...} }),
; a property when it is a descriptor (Object.defineProperties(T, { p: {
; value: function () {...} } })); other pairs are callbacks and dropped
; (see jsMembers).
(pair
  key: [(property_identifier) (string)] @name
  value: [(function_expression parameters: (formal_parameters) @params)
          (arrow_function parameters: (formal_parameters) @params)
          (arrow_function parameter: (identifier) @params)]) @function
