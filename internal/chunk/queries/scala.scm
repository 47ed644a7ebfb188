; Scala: classes, objects, traits, enums; def with or without a body.
; "extends A with B": the first type extends, the others implement (spec).
(class_definition name: (identifier) @name) @class
(object_definition name: (identifier) @name) @class
(trait_definition name: (identifier) @name) @class
(enum_definition name: (identifier) @name) @class
(function_definition name: [(identifier) (operator_identifier)] @name (parameters)? @params) @function
(function_declaration name: [(identifier) (operator_identifier)] @name (parameters)? @params) @function
; a val or var member of a class, object or trait (or at the top level) is a
; definition as a parameterless def is: circe's instances are
; "implicit final val decodeJson: Decoder[Json] = new Decoder[Json] { ... }",
; whose anonymous class's methods stay inside it. Local vals are nested in a
; function and dropped; a one-line field that holds no function is left to
; the text around it (parsed.plainField).
(template_body (val_definition pattern: (identifier) @name) @function)
(template_body (var_definition pattern: (identifier) @name) @function)
(compilation_unit (val_definition pattern: (identifier) @name) @function)

(extends_clause [(type_identifier) (generic_type) (stable_type_identifier) (compound_type)] @super)

(package_clause) @skip
(import_declaration) @skip
(import_declaration) @import

(call_expression function: (identifier) @call)
; the receiver decides what a call on another object may reach (build.go)
(call_expression function: (field_expression value: _ @call.recv field: (identifier) @call))
