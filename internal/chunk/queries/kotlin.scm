; Kotlin: classes, interfaces, enum classes, objects; functions. Companion
; objects are not classes of their own: their functions belong to the
; enclosing class. Annotations live in the declaration's modifiers.
(class_declaration name: (identifier) @name) @class
(object_declaration name: (identifier) @name) @class
(function_declaration name: (identifier) @name (function_value_parameters) @params) @function
; a property whose value is a lambda or an anonymous function is code:
; "val DEFAULT_CORRECTION_SUGGESTOR: TypoSuggestor = { entered, possible -> ... }"
(property_declaration (variable_declaration (identifier) @name) [(lambda_literal) (anonymous_function)]) @function

(delegation_specifier (constructor_invocation (user_type) @extends))
(delegation_specifier (user_type) @implements)

(package_header) @skip
(import) @skip
(import (qualified_identifier) @import)

(call_expression . (identifier) @call)
(call_expression . (navigation_expression (_) @call.recv . (identifier) @call .))
