; Rust: structs, enums, unions, traits, type aliases and impl blocks are
; class-like (an impl is named after its type, so methods read Type.fn);
; functions and trait method signatures. #[attributes] and /// comments are
; preceding siblings (spec).
(struct_item name: (type_identifier) @name) @class
(enum_item name: (type_identifier) @name) @class
(union_item name: (type_identifier) @name) @class
(trait_item name: (type_identifier) @name) @class
(type_item name: (type_identifier) @name) @class
(impl_item type: (_) @name) @class

(function_item name: (identifier) @name parameters: (parameters) @params) @function
(function_signature_item name: (identifier) @name parameters: (parameters) @params) @function

(impl_item trait: (_) @implements)
(trait_item bounds: (trait_bounds [(type_identifier) (scoped_type_identifier) (generic_type)] @extends))

(source_file (use_declaration) @skip)
(source_file (extern_crate_declaration) @skip)
(use_declaration argument: (_) @import)
(extern_crate_declaration name: (identifier) @import)

(call_expression function: (identifier) @call)
(call_expression function: (field_expression field: (field_identifier) @call))
(call_expression function: (scoped_identifier) @call.path)
