; Rust: structs, enums, unions, traits, type aliases and impl blocks are
; class-like (methods of an impl read Type.fn);
; functions and trait method signatures. #[attributes] and /// comments are
; preceding siblings (spec).
(struct_item name: (type_identifier) @name) @class
(enum_item name: (type_identifier) @name) @class
(union_item name: (type_identifier) @name) @class
(trait_item name: (type_identifier) @name) @class
; a type alias is a definition at module level; an associated type of an
; impl or a trait (type Value = KeyClass;) is part of its block
(source_file (type_item name: (type_identifier) @name) @class)
(mod_item body: (declaration_list (type_item name: (type_identifier) @name) @class))
; an impl block is a chunk of kind impl named "Trait for Type" (or "Type");
; its functions are methods of Type
(impl_item trait: (_)? @impl.trait type: (_) @name) @class
; macro_rules! check_recursion { ... } is a definition of kind macro
(macro_definition name: (identifier) @name) @function

(function_item name: (identifier) @name parameters: (parameters) @params) @function
(function_signature_item name: (identifier) @name parameters: (parameters) @params) @function

(impl_item trait: (_) @implements)
(trait_item bounds: (trait_bounds [(type_identifier) (scoped_type_identifier) (generic_type)] @extends))

; A private use is an import and is left out of the chunks; a `pub use` is a
; re-export, part of the module's public API (axum's extract/mod.rs re-exports
; FromRequest from axum-core), so it stays in the module's text chunk.
(source_file (use_declaration) @skip (#not-match? @skip "^pub"))
(source_file (extern_crate_declaration) @skip)
(use_declaration argument: (_) @import)
(extern_crate_declaration name: (identifier) @import)

(call_expression function: (identifier) @call)
; a method call keeps its receiver: self.f() is a call on the caller's own
; value (Relation.Self), x.f() one on another value (Relation.Value)
(call_expression function: (field_expression value: (_) @call.recv field: (field_identifier) @call))
(call_expression function: (scoped_identifier) @call.path)
; a macro invocation's arguments: macroCalls parses those written in (...)
; or [...] again as expressions (one pass of this query finds them with the
; rest; a query of their own was a second walk of every tree)
(macro_invocation macro: (_) @macro.name (token_tree) @macro.args)
