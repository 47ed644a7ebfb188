; Shared by javascript.scm and typescript.scm: CommonJS-style methods.
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
; A chained assignment names its function by the inner target, the one
; written next to it: req.get = req.header = function header(name) {...}.
(expression_statement
  (assignment_expression
    right: (assignment_expression
      left: (member_expression object: (_) @owner property: (property_identifier) @name)
      right: [(function_expression parameters: (formal_parameters) @params)
              (arrow_function parameters: (formal_parameters) @params)
              (arrow_function parameter: (identifier) @params)]))) @function
; A function assigned to a variable declared before it (var camelize, ...;
; camelize = function(str) {...}), as older modules write their helpers.
(expression_statement
  (assignment_expression
    left: (identifier) @name
    right: [(function_expression parameters: (formal_parameters) @params)
            (arrow_function parameters: (formal_parameters) @params)
            (arrow_function parameter: (identifier) @params)
            (generator_function parameters: (formal_parameters) @params)])) @function
