; Scala: classes, objects, traits, enums; def with or without a body.
; "extends A with B": the first type extends, the others implement (spec).
(class_definition name: (identifier) @name) @class
(object_definition name: (identifier) @name) @class
(trait_definition name: (identifier) @name) @class
(enum_definition name: (identifier) @name) @class
(function_definition name: (identifier) @name (parameters)? @params) @function
(function_declaration name: (identifier) @name (parameters)? @params) @function

(extends_clause [(type_identifier) (generic_type) (stable_type_identifier) (compound_type)] @super)

(package_clause) @skip
(import_declaration) @skip
(import_declaration) @import

(call_expression function: (identifier) @call)
(call_expression function: (field_expression field: (identifier) @call))
