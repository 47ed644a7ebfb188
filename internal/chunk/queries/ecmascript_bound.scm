; Shared by javascript.scm and typescript.scm: functions bound by a call, a conditional or a key.
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

; A key whose value is an array of one function is that function under the
; key's name (axios's defaults: transformRequest: [function
; transformRequest(data, headers) {...}]), kept or dropped as a pair is.
(pair
  key: [(property_identifier) (string)] @name
  value: (array
    .
    [(function_expression parameters: (formal_parameters) @params)
     (arrow_function parameters: (formal_parameters) @params)
     (arrow_function parameter: (identifier) @params)]
    .)) @function
