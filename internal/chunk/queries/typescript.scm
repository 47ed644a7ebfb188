; TypeScript and TSX: as JavaScript plus interfaces, enums, abstract
; classes and signatures (overload signatures fold into the implementation
; that follows them, see foldOverloads); type aliases are text chunks. export_statement and ambient_declaration
; (declare ...) are wrappers (spec).
(function_declaration name: (identifier) @name parameters: (formal_parameters) @params) @function
(generator_function_declaration name: (identifier) @name parameters: (formal_parameters) @params) @function
(function_signature name: (identifier) @name parameters: (formal_parameters) @params) @function
(class_declaration name: (type_identifier) @name) @class
(abstract_class_declaration name: (type_identifier) @name) @class
(interface_declaration name: (type_identifier) @name) @class
; a type alias is a declaration kept whole as text, named after the alias
(type_alias_declaration name: (type_identifier) @name) @text
(enum_declaration name: (identifier) @name) @class
(method_definition name: (_) @name parameters: (formal_parameters) @params) @function
(abstract_method_signature name: (_) @name parameters: (formal_parameters) @params) @function
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
(public_field_definition
  name: (property_identifier) @name
  value: [(arrow_function parameters: (formal_parameters) @params)
          (arrow_function parameter: (identifier) @params)
          (function_expression parameters: (formal_parameters) @params)]) @function

(extends_clause value: (_) @extends)
(implements_clause (_) @implements)
(extends_type_clause type: (_) @extends)

(program (import_statement) @skip)
(import_statement source: (string) @import)
(export_statement source: (string) @import)
(call_expression
  function: (identifier) @_req
  arguments: (arguments . (string) @import)
  (#eq? @_req "require"))

((call_expression function: (identifier) @call) (#not-eq? @call "require"))
(call_expression function: (member_expression object: (_) @call.recv property: (property_identifier) @call))

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

; "new ZodError(...)" calls the constructor of ZodError
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
