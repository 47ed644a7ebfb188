package relate

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/lang"
	"github.com/coderag/coderag/internal/store"
)

// Edge is one relation, with the definitions on both sides when they are in
// the project. For calls, Path and Line are the call site, Caller is the
// calling definition, Target the resolved callee (nil unless Resolution is a
// resolved rule) and Candidates the definitions an ambiguous call may reach.
type Edge struct {
	Kind string `json:"kind"` // imports, extends, implements, contains, calls
	From string `json:"from"` // from_name as stored
	To   string `json:"to"`   // to_name as stored (a callee as written)
	Path string `json:"path"` // file the relation was found in
	// Line is the line of the relation: the call site of a call, the
	// first line of the contained definition (its Def.StartLine) for
	// contains, the declaration's line for imports, extends and implements.
	Line       int    `json:"line"`
	Caller     *Def   `json:"from_def,omitempty"`
	Target     *Def   `json:"to_def,omitempty"`
	Resolution string `json:"resolution,omitempty"` // calls only: see the package comment
	Candidates []*Def `json:"candidates,omitempty"`
	// CandidatesTotal counts every candidate of an ambiguous call;
	// Candidates holds at most maxCandidates of them.
	CandidatesTotal int `json:"candidates_total,omitempty"`
	Depth           int `json:"depth,omitempty"` // walks: 1 for direct callers/callees
	// Guess marks a call on another value whose receiver type is unknown,
	// matched to Target or Candidates by name alone: it may be wrong.
	// Walks and Path do not follow guesses unless IncludeGuesses is set.
	Guess bool `json:"guess,omitempty"`

	parent *Def          // walks: the node whose expansion found this edge
	all    []*Def        // every candidate of an ambiguous call (Candidates is cut), for Path
	form   lang.CallForm // how the call is written (store.RelationRow.Form)
	args   lang.Arity    // how many arguments it passes (store.RelationRow.Args)
}

// atTarget puts a contains edge at the first line of the definition it
// contains (Target.StartLine, doc comment included), the line every other
// output gives that definition (Def.Loc, callers, callees, path, search's
// start_line), instead of the line of its name as the chunker records it.
func (e *Edge) atTarget() {
	if e.Kind == chunk.RelContains && e.Target != nil {
		e.Line = e.Target.StartLine
	}
}

// Resolved reports whether a call edge reaches exactly one definition.
func (e *Edge) Resolved() bool { return e.Target != nil && e.Resolution != ResAmbiguous }

// Exact reports whether a call edge reaches exactly one definition by a
// rule that does not guess (see Guess).
func (e *Edge) Exact() bool { return e.Resolved() && !e.Guess }

// isGuess reports whether a call resolved by how is a guess: a call on
// another value (lang.CallValue) matched by name because its receiver's
// type is unknown. Typed calls and unresolved ones are not guesses.
func isGuess(form lang.CallForm, how string) bool {
	return form == lang.CallValue && how != ResTyped && how != ResUnresolved
}

// follows reports whether walks and paths go through e: an exact call, or
// a guess when IncludeGuesses is set.
func (r *Resolver) follows(e *Edge) bool { return e.Resolved() && (!e.Guess || r.IncludeGuesses) }

// GraphResult is every direct relation of one name (what /graph shows).
type GraphResult struct {
	Root  string `json:"root"` // project root; every Path is relative to it
	Query string `json:"query"`
	// Defs is the definition the query resolved to (empty when the name is
	// only known from relations, e.g. an external base class).
	Defs  []*Def `json:"definitions"`
	Edges []Edge `json:"relations"`
	// OmittedAmbiguous counts calls that may reach the definition but
	// whose name more than maxCandidates definitions share: not listed.
	OmittedAmbiguous int `json:"omitted_ambiguous_calls,omitempty"`
	// Library counts calls to builtins and to other packages' functions
	// and types ("len", "fmt.Errorf", "bytes.Buffer.Len"): not listed.
	Library int `json:"library_calls,omitempty"`
	// OmittedGuesses counts guessed calls (Edge.Guess) left out beyond the
	// first maxGuesses when IncludeGuesses is not set.
	OmittedGuesses int `json:"omitted_guesses,omitempty"`
	// More counts relations cut by Limit.
	More int `json:"more,omitempty"`
}

// Limit keeps the first n relations (all when n < 1) and counts the rest in
// More.
func (g *GraphResult) Limit(n int) {
	if n > 0 && len(g.Edges) > n {
		g.More += len(g.Edges) - n
		g.Edges = g.Edges[:n]
	}
}

// goBuiltins are Go's predeclared functions and the predeclared types a
// conversion names ("string(b)", "int64(n)").
var goBuiltins = words(`append cap clear close complex copy delete imag len make max min new panic print println
	real recover
	any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string
	uint uint8 uint16 uint32 uint64 uintptr`)

// typedGo reports whether e is a Go call typed from declarations as a
// method of a type of the caller's package ("T.m", chunk.goTypes).
func (e *Edge) typedGo() bool {
	return e.form == lang.CallValue && strings.Count(e.To, ".") == 1 && lang.Detect(e.Path) == "go"
}

// library reports an unresolved call to a builtin or to another package
// ("len", "fmt.Errorf", "template.Template.Execute", "Ok(v)", "xs.push(x)",
// "Object.hasOwn(o, k)"): a fact about the callee's origin, not a hole in
// the graph.
func (e *Edge) library() bool {
	if e.Kind != chunk.RelCalls || e.Resolution != ResUnresolved {
		return false
	}
	if e.typedGo() {
		return false // typed "T.m" on a type of the caller's package: an interface method or a func field
	}
	if strings.Contains(e.To, ".") || strings.Contains(e.To, "::") || e.form == lang.CallPlain && goBuiltins.has(e.To) {
		return true
	}
	l := lang.Detect(e.Path)
	if l == "kotlin" {
		return typeCall(e) || kotlinStdlib.has(e.To) || e.form == lang.CallValue && kotlinStdMethods.has(e.To)
	}
	switch family(l) {
	case "js":
		return jsBuiltins.has(e.To) || (e.form == lang.CallValue || e.form == lang.CallSelf) && jsBuiltinMethods.has(e.To)
	case "rust":
		return rustPrelude.has(e.To) || (e.form == lang.CallValue || e.form == lang.CallSelf) && rustStdMethods.has(e.To)
	case "python":
		return pythonBuiltins.has(e.To)
	case "lua":
		return luaBuiltins.has(e.To)
	case "php":
		return phpBuiltins.has(e.To)
	case "elixir":
		return elixirKernel.has(e.To)
	case "swift":
		return typeCall(e) || swiftStdlib.has(e.To) || e.form == lang.CallValue && swiftStdMethods.has(e.To)
	case "ruby":
		return typeCall(e) || rubyKernel.has(e.To) || (e.form == lang.CallValue || e.form == lang.CallSelf) && rubyCoreMethods.has(e.To) ||
			lang.IsTestFile(e.Path) && rspecDSL.has(e.To)
	case "c":
		// the C library's functions and C++'s casts and operators written
		// as calls; a call on a value no project method takes (s.size(),
		// chunk.cppStdMethods), or typed with a class the project does not
		// define, is the standard library's
		return cBuiltins.has(e.To) || e.form == lang.CallValue && l == "cpp"
	case "jvm", "csharp":
		// x.toString() or list.size() that no project method takes: the
		// platform's (chunk.platformMethods are stored as calls on a value)
		return typeCall(e) || e.form == lang.CallValue
	}
	// other languages: the bare names of both runtimes, as before the
	// lists were split by language
	return pythonBuiltins.has(e.To) || jsBuiltins.has(e.To)
}

// wordSet is the set of the space-separated words of a string, made at its
// first use rather than at package init (most processes resolve no call).
type wordSet struct {
	s    string
	once sync.Once
	m    map[string]bool
}

// words is the set of the space-separated words of s.
func words(s string) *wordSet { return &wordSet{s: s} }

// has reports whether name is one of the words.
func (w *wordSet) has(name string) bool {
	w.once.Do(func() {
		w.m = map[string]bool{}
		for _, x := range strings.Fields(w.s) {
			w.m[x] = true
		}
	})
	return w.m[name]
}

// pythonBuiltins are the functions and exception classes of Python's
// builtins module (docs.python.org/3/library/functions.html and
// exceptions.html). A call to one that nothing in the project defines is a
// call into the language runtime; one the project does define resolves to
// it before this is asked.
var pythonBuiltins = words(`
	abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex
	delattr dict dir divmod enumerate eval exec filter float format frozenset getattr globals hasattr
	hash help hex id input int isinstance issubclass iter len list locals map max memoryview min next
	object oct open ord pow print property range repr reversed round set setattr slice sorted
	staticmethod str sum super tuple type vars zip __import__
	BaseException Exception ArithmeticError AssertionError AttributeError EOFError ImportError
	IndexError KeyError KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError
	NotImplementedError OSError OverflowError RecursionError RuntimeError StopIteration
	StopAsyncIteration SyntaxError SystemExit TypeError UnicodeDecodeError UnicodeEncodeError
	UnicodeError ValueError ZeroDivisionError FileNotFoundError PermissionError TimeoutError
	DeprecationWarning UserWarning RuntimeWarning`)

// jsBuiltins are the global functions and constructors of ECMAScript
// (ECMA-262 §19-28: the value properties, function properties and
// constructors of the global object) and of the web/Node timers and
// modules every JS runtime provides (setTimeout, require, Buffer).
var jsBuiltins = words(`
	eval isFinite isNaN parseFloat parseInt decodeURI decodeURIComponent encodeURI encodeURIComponent
	AggregateError Array ArrayBuffer BigInt BigInt64Array BigUint64Array Boolean DataView Date Error
	EvalError FinalizationRegistry Float32Array Float64Array Function Int8Array Int16Array Int32Array
	Map Number Object Promise Proxy RangeError ReferenceError RegExp Set SharedArrayBuffer String
	Symbol SyntaxError TypeError Uint8Array Uint8ClampedArray Uint16Array Uint32Array URIError WeakMap
	WeakRef WeakSet
	setTimeout clearTimeout setInterval clearInterval setImmediate clearImmediate queueMicrotask
	structuredClone fetch require Buffer URL URLSearchParams AbortController TextEncoder TextDecoder`)

// jsBuiltinMethods are the methods of ECMAScript's standard built-in
// objects (ECMA-262 §20-28): the static methods of Object, Function,
// Array, String, Number, Math, JSON, Promise, Reflect, Date and Symbol and
// the prototype methods of objects, functions, arrays, strings, numbers,
// maps, sets, promises, regular expressions, dates and iterators. A call
// on a value ("fn.call(this)", "Object.hasOwn(o, k)", "xs.includes(x)")
// to one of them that nothing in the project defines reaches the runtime.
var jsBuiltinMethods = words(`
	assign create defineProperties defineProperty entries freeze fromEntries getOwnPropertyDescriptor
	getOwnPropertyDescriptors getOwnPropertyNames getOwnPropertySymbols getPrototypeOf groupBy hasOwn is
	isExtensible isFrozen isSealed keys preventExtensions seal setPrototypeOf values
	hasOwnProperty isPrototypeOf propertyIsEnumerable toLocaleString toString valueOf
	apply bind call
	from fromAsync isArray of at concat copyWithin every fill filter find findIndex findLast
	findLastIndex flat flatMap forEach includes indexOf join lastIndexOf map pop push reduce
	reduceRight reverse shift slice some sort splice toReversed toSorted toSpliced unshift with
	fromCharCode fromCodePoint raw charAt charCodeAt codePointAt endsWith isWellFormed localeCompare
	match matchAll normalize padEnd padStart repeat replace replaceAll search split startsWith
	substring substr toLocaleLowerCase toLocaleUpperCase toLowerCase toUpperCase toWellFormed trim
	trimEnd trimStart
	isInteger isSafeInteger toExponential toFixed toPrecision
	abs acos acosh asin asinh atan atan2 atanh cbrt ceil clz32 cos cosh exp expm1 floor fround hypot
	imul log log10 log1p log2 max min pow random round sign sin sinh sqrt tan tanh trunc
	parse stringify
	all allSettled any race reject resolve withResolvers then catch finally
	construct deleteProperty get has ownKeys set
	add clear delete
	exec test
	now UTC getDate getDay getFullYear getHours getMilliseconds getMinutes getMonth getSeconds getTime
	getTimezoneOffset getUTCDate getUTCDay getUTCFullYear getUTCHours getUTCMinutes getUTCMonth
	getUTCSeconds setDate setFullYear setHours setMilliseconds setMinutes setMonth setSeconds setTime
	toDateString toISOString toJSON toLocaleDateString toLocaleTimeString toTimeString toUTCString
	for keyFor description next return throw`)

// typeCall reports a bare call of a capitalised name that nothing in the
// project defines, in a language where such a call makes a value of a
// type (Swift's CGFloat(x) and UIFont(...), Kotlin's StringBuilder(),
// Java's and C#'s new Foo(...), Ruby's Set.new, stored as "Set"): a type
// of the platform or of another package.
func typeCall(e *Edge) bool {
	return e.form != lang.CallValue && e.To != "" && e.To[0] >= 'A' && e.To[0] <= 'Z'
}

// swiftStdlib are the global functions of Swift's standard library
// (developer.apple.com/documentation/swift/swift-standard-library, "Global
// functions"), called without a receiver.
var swiftStdlib = words(`
	print debugPrint dump readLine min max abs zip stride repeatElement sequence swap precondition
	preconditionFailure assert assertionFailure fatalError type numericCast unsafeBitCast unsafeDowncast
	withUnsafePointer withUnsafeMutablePointer withUnsafeBytes withUnsafeMutableBytes withExtendedLifetime
	withoutActuallyEscaping isKnownUniquelyReferenced withCheckedContinuation withCheckedThrowingContinuation
	withTaskGroup withThrowingTaskGroup`)

// rubyKernel are the methods of Ruby's Kernel and Module that a class body
// or method calls without a receiver (ruby-doc.org/core: Kernel, Module,
// BasicObject): raise, require, attr_reader, include, private, lambda.
var rubyKernel = words(`
	raise fail require require_relative load autoload puts print p pp warn format sprintf printf gets
	lambda proc loop catch throw sleep rand srand exit abort at_exit caller binding block_given?
	Integer Float String Array Hash Rational Complex
	attr_reader attr_writer attr_accessor include extend prepend private protected public
	module_function private_constant public_constant define_method alias_method remove_method
	undef_method instance_variable_get instance_variable_set instance_variable_defined?
	instance_variables class_eval instance_eval instance_exec class_exec send public_send __send__
	respond_to? is_a? kind_of? instance_of? nil? freeze frozen? dup clone tap then yield_self class
	singleton_class method methods object_id hash inspect to_s equal? eql? super`)

// rubyCoreMethods are methods of Ruby's core classes (Object, Enumerable,
// Array, Hash, String, Symbol, Integer; ruby-doc.org/core) and the
// ActiveSupport core extensions every Rails-era gem uses (blank?,
// present?), called on a value whose class is unknown: the runtime's,
// when no project method has the name.
var rubyCoreMethods = words(`
	each each_with_index each_with_object each_pair each_key each_value map flat_map collect select
	filter reject find detect find_index inject reduce sum min max min_by max_by sort sort_by group_by
	partition zip take drop first last count size length empty? any? all? none? include? member?
	uniq compact flatten reverse push pop shift unshift concat delete delete_if keep_if fetch dig
	key? has_key? value? keys values merge merge! update store to_a to_h to_s to_sym to_i to_f to_proc
	join split strip lstrip rstrip chomp chop start_with? end_with? gsub gsub! sub sub! match match?
	scan downcase upcase capitalize tr squeeze encode force_encoding bytes chars lines ljust rjust
	call freeze frozen? dup clone tap then is_a? kind_of? instance_of? nil? respond_to? send
	public_send inspect hash eql? equal? between? clamp abs round floor ceil zero? positive? negative?
	blank? present? presence`)

// rspecDSL are RSpec's (and minitest's spec syntax's) methods that a spec
// file calls without a receiver (rspec.info/documentation): in a test
// file they are the framework's.
var rspecDSL = words(`
	describe context it specify example let let! subject before after around shared_examples
	shared_context include_examples it_behaves_like include_context expect allow receive and_return
	and_raise and_call_original eq eql equal be be_a be_an be_nil be_truthy be_falsey be_empty
	be_within include match raise_error change have_key have_attributes contain_exactly match_array
	start_with end_with respond_to double instance_double spy described_class is_expected
	not_to to_not to pending skip xit fit`)

// kotlinStdMethods are extension and member functions of Kotlin's standard
// library (kotlin.collections, kotlin.text, kotlin.sequences and the scope
// functions; kotlinlang.org/api/core/kotlin-stdlib) called on a value whose
// class is unknown: the library's, when no project method has the name.
var kotlinStdMethods = words(`
	let also apply run takeIf takeUnless use map mapNotNull mapIndexed flatMap filter filterNot filterIsInstance
	filterNotNull forEach forEachIndexed any all none count first firstOrNull last lastOrNull single
	singleOrNull find findLast indexOf lastIndexOf contains containsKey containsAll isEmpty isNotEmpty
	isNullOrEmpty isBlank isNotBlank isNullOrBlank orEmpty toList toMutableList toSet toMutableSet toMap
	toMutableMap toTypedArray toSortedMap associate associateBy associateWith groupBy partition zip
	joinToString sorted sortedBy sortedDescending sortedWith reversed distinct distinctBy take takeWhile
	drop dropWhile plus minus getOrElse getOrNull getOrDefault getOrPut sumOf maxOf minOf maxByOrNull
	minByOrNull fold reduce chunked windowed asSequence asIterable withIndex substring substringBefore
	substringAfter substringBeforeLast substringAfterLast startsWith endsWith split trim trimEnd trimStart
	lowercase uppercase replace removePrefix removeSuffix padStart padEnd repeat lines toInt toIntOrNull
	toLong toDouble toString toRegex matches format add addAll remove removeAll clear put putAll get set
	equals hashCode compareTo`)

// swiftStdMethods are methods of Swift's standard library types (Sequence,
// Collection, Array, Dictionary, String, Optional; developer.apple.com/
// documentation/swift) called on a value whose type is unknown.
var swiftStdMethods = words(`
	map flatMap compactMap filter reduce forEach contains first last firstIndex lastIndex sorted sort
	reversed enumerated zip joined split append insert remove removeAll removeFirst removeLast popLast
	prefix suffix dropFirst dropLast starts hasPrefix hasSuffix lowercased uppercased trimmingCharacters
	replacingOccurrences components index distance allSatisfy min max count isEmpty description
	updateValue removeValue mapValues compactMapValues merge`)

// kotlinStdlib are top-level functions of Kotlin's standard library
// (kotlinlang.org/api/core/kotlin-stdlib: kotlin, kotlin.collections,
// kotlin.io, kotlin.text, kotlin.sequences) and its scope functions,
// called without a receiver.
var kotlinStdlib = words(`
	println print readLine listOf listOfNotNull mutableListOf arrayListOf emptyList setOf mutableSetOf
	hashSetOf linkedSetOf emptySet mapOf mutableMapOf hashMapOf linkedMapOf emptyMap arrayOf emptyArray
	intArrayOf longArrayOf byteArrayOf charArrayOf doubleArrayOf booleanArrayOf arrayOfNulls sequenceOf
	emptySequence generateSequence sequence lazy lazyOf require requireNotNull check checkNotNull error TODO
	repeat run with apply also let takeIf takeUnless buildString buildList buildSet buildMap maxOf minOf
	synchronized runCatching assert`)

// luaBuiltins are Lua's basic functions (the Lua 5.1-5.4 reference
// manuals, §5.1/§6.1 "Basic Functions", with 5.1's unpack, loadstring,
// setfenv, getfenv and module). The standard libraries' functions
// (string.format, table.insert) are called through their table, which
// nothing in the project defines, and count as library calls already.
var luaBuiltins = words(`
	assert collectgarbage dofile error getmetatable ipairs load loadfile next pairs pcall print rawequal
	rawget rawlen rawset require select setmetatable tonumber tostring type xpcall warn
	unpack loadstring setfenv getfenv module`)

// phpBuiltins are the functions of PHP's core and bundled extensions
// that code calls most (strings, arrays, math, types, JSON, PCRE, files,
// output; php.net/manual/en/funcref.php) and the language constructs
// that read as calls (isset, empty, unset, list): a bare call to one that
// the project does not define reaches the runtime.
var phpBuiltins = words(`
	isset empty unset list array compact extract die exit eval print echo
	strlen strtolower strtoupper ucfirst lcfirst ucwords trim ltrim rtrim str_replace str_ireplace substr
	substr_count strpos stripos strrpos str_contains str_starts_with str_ends_with str_pad str_repeat
	str_split strrev strcmp strcasecmp strncmp strncasecmp sprintf printf vsprintf number_format
	implode explode join nl2br htmlspecialchars html_entity_decode htmlentities strip_tags addslashes
	stripslashes wordwrap chunk_split strtr mb_strlen mb_substr mb_strtolower mb_strtoupper mb_strpos
	mb_str_split iconv idn_to_ascii idn_to_utf8 ord chr bin2hex hex2bin base64_encode base64_decode md5 sha1
	hash hash_hmac crc32 uniqid random_bytes random_int rand mt_rand
	count sizeof in_array array_key_exists array_keys array_values array_merge array_merge_recursive
	array_combine array_flip array_slice array_splice array_map array_filter array_reduce array_walk
	array_search array_unique array_reverse array_push array_pop array_shift array_unshift array_sum
	array_product array_fill array_fill_keys array_pad array_chunk array_column array_diff array_diff_key
	array_intersect array_intersect_key array_key_first array_key_last array_is_list range sort rsort
	usort uasort uksort ksort krsort asort arsort shuffle current next reset end key each
	is_array is_string is_int is_integer is_float is_bool is_null is_numeric is_object is_callable
	is_iterable is_countable is_scalar is_a is_subclass_of gettype get_class get_parent_class
	get_object_vars method_exists property_exists class_exists interface_exists function_exists
	intval floatval boolval strval settype var_dump var_export print_r serialize unserialize
	json_encode json_decode json_last_error json_last_error_msg
	preg_match preg_match_all preg_replace preg_replace_callback preg_split preg_quote
	abs ceil floor round min max pow sqrt intdiv fmod
	file_exists is_file is_dir is_readable is_writable file_get_contents file_put_contents fopen fclose
	fread fwrite fgets feof unlink mkdir rmdir rename copy realpath basename dirname pathinfo glob
	time microtime date mktime strtotime checkdate usleep sleep
	call_user_func call_user_func_array func_get_args func_num_args define defined constant
	spl_object_hash spl_object_id spl_autoload_register iterator_to_array trigger_error error_log
	set_error_handler restore_error_handler ini_get ini_set getenv putenv
	dns_get_record checkdnsrr gethostbyname filter_var ctype_alpha ctype_digit ctype_alnum ctype_space
	ctype_upper ctype_lower ctype_xdigit ctype_punct ob_start ob_get_clean header`)

// cBuiltins are the functions of the C standard library (C17 7.x, the
// common ones) and POSIX's most called, and C++'s casts and operators that
// read as calls (static_cast<T>(x), typeid(x), sizeof(x)): a bare call to
// one that the project does not define reaches the platform.
var cBuiltins = words(`
	static_cast dynamic_cast reinterpret_cast const_cast typeid sizeof alignof decltype noexcept
	static_assert offsetof va_start va_end va_arg va_copy assert
	memcpy memmove memset memcmp memchr strlen strnlen strcmp strncmp strcpy strncpy strcat strncat strchr
	strrchr strstr strtok strdup strndup strerror strtol strtoul strtoll strtoull strtod strtof atoi atol atof
	malloc calloc realloc free abort exit atexit getenv qsort bsearch abs labs rand srand
	printf fprintf sprintf snprintf vprintf vfprintf vsprintf vsnprintf puts fputs fputc putc putchar
	fgets fgetc getc getchar fopen fclose fread fwrite fflush fseek ftell rewind feof ferror perror
	isalpha isdigit isalnum isspace isupper islower isxdigit ispunct isprint toupper tolower
	open close read write lseek stat fstat lstat unlink mkdir rmdir getpid fork waitpid pipe dup dup2
	pthread_create pthread_join pthread_mutex_lock pthread_mutex_unlock pthread_mutex_init
	pthread_mutex_destroy pthread_cond_wait pthread_cond_signal pthread_cond_broadcast
	time clock gettimeofday clock_gettime nanosleep sleep usleep select poll errno
	floor ceil fabs sqrt pow exp log log2 log10 sin cos tan fmod round trunc fmin fmax isnan isinf`)

// elixirKernel are the functions and macros of Elixir's Kernel module
// (hexdocs.pm/elixir/Kernel.html), imported into every module: a bare
// call to one that the project does not define reaches the runtime.
var elixirKernel = words(`
	abs apply binary_part binary_slice bit_size byte_size ceil div elem exit floor function_exported?
	hd is_atom is_binary is_bitstring is_boolean is_exception is_float is_function is_integer is_list
	is_map is_map_key is_nil is_non_struct_map is_number is_pid is_port is_reference is_struct is_tuple
	length macro_exported? make_ref map_size max min node not put_elem rem round self send spawn
	spawn_link spawn_monitor struct struct! throw tl trunc tuple_size
	binding dbg def defdelegate defexception defguard defimpl defmacro defmodule defoverridable
	defprotocol defstruct destructure get_and_update_in get_in if inspect match? pop_in put_in raise
	reraise sigil_C sigil_D sigil_N sigil_R sigil_S sigil_T sigil_U sigil_W sigil_c sigil_r sigil_s
	sigil_w tap then to_charlist to_string unless update_in use var! alias!`)

// rustPrelude are the callable names Rust's standard prelude puts in every
// module (doc.rust-lang.org/std/prelude): the Option and Result variant
// constructors and drop. A bare call to one reaches std even when the
// project declares a type of that name (serde_json's 21 associated types
// "type Ok = ..."), unless it declares a function of that name.
var rustPrelude = words(`Ok Err Some None drop`)

// rustStdMethods are methods of the standard library's prelude types and
// traits (Option, Result, Vec, slices, str, String, Iterator,
// IntoIterator, Clone, ToString, ToOwned, From/Into, AsRef/AsMut,
// Default, PartialEq/Ord, Debug/Display, io::Read/Write, fmt::Write): a
// call on a value to one of them that nothing in the project defines
// reaches std.
var rustStdMethods = words(`
	unwrap expect unwrap_or unwrap_or_else unwrap_or_default unwrap_err expect_err unwrap_unchecked
	map map_err map_or map_or_else and and_then or or_else ok err ok_or ok_or_else is_some is_none
	is_some_and is_none_or is_ok is_err is_ok_and is_err_and as_ref as_mut as_deref as_deref_mut take
	replace insert get_or_insert get_or_insert_with filter flatten copied cloned transpose zip unzip
	len is_empty push pop insert remove swap_remove truncate clear reserve capacity with_capacity
	shrink_to_fit extend extend_from_slice append drain retain dedup split_off resize get get_mut
	get_unchecked first last first_mut last_mut contains starts_with ends_with iter iter_mut into_iter
	chunks windows split_at split_first split_last sort sort_by sort_by_key sort_unstable binary_search
	reverse concat join to_vec into_boxed_slice into_boxed_str as_slice as_mut_slice as_ptr as_mut_ptr
	as_str as_bytes as_mut_str push_str chars char_indices bytes lines split splitn rsplit trim
	trim_start trim_end trim_matches strip_prefix strip_suffix find rfind parse to_lowercase
	to_uppercase to_ascii_lowercase to_ascii_uppercase eq_ignore_ascii_case is_char_boundary
	next next_back collect count sum product fold try_fold for_each try_for_each enumerate rev skip
	skip_while take_while step_by chain peekable position rposition any all max min max_by min_by
	max_by_key min_by_key filter_map flat_map inspect last nth by_ref partition fuse cycle scan
	clone clone_from to_string to_owned into from try_into try_from default eq ne cmp partial_cmp lt le
	gt ge fmt write write_all write_str write_fmt flush read read_exact read_to_end read_to_string
	borrow borrow_mut deref deref_mut hash checked_add checked_sub checked_mul checked_div
	wrapping_add wrapping_sub wrapping_mul saturating_add saturating_sub overflowing_add
	overflowing_sub overflowing_mul pow abs is_nan is_finite is_infinite trailing_zeros leading_zeros
	to_le_bytes to_be_bytes from_le_bytes from_be_bytes`)

// dropLibrary removes library calls from edges and returns how many.
func dropLibrary(edges []Edge) ([]Edge, int) {
	out := edges[:0]
	n := 0
	for _, e := range edges {
		if e.library() {
			n++
			continue
		}
		out = append(out, e)
	}
	return out, n
}

// Walk is the result of Callers or Callees: a breadth-first walk of the call
// graph from Root, at most Depth calls away. Edges are in discovery order;
// for callers each edge's Caller is the newly reached node.
type Walk struct {
	Project   string `json:"root"` // project root; every Path is relative to it
	Query     string `json:"query"`
	Direction string `json:"direction"` // "callers" or "callees"
	Root      *Def   `json:"start"`     // the definition the walk starts from
	Depth     int    `json:"depth"`
	Edges     []Edge `json:"edges"`
	Truncated bool   `json:"truncated,omitempty"`
	// OmittedAmbiguous: as in GraphResult (callers walks only).
	OmittedAmbiguous int `json:"omitted_ambiguous_calls,omitempty"`
	// Library: as in GraphResult (callees walks only).
	Library int `json:"library_calls,omitempty"`
	// OmittedGuesses: as in GraphResult, over the whole walk.
	OmittedGuesses int `json:"omitted_guesses,omitempty"`
}

// maxGuesses is how many guessed calls (Edge.Guess) one result lists when
// IncludeGuesses is not set; the rest are counted (OmittedGuesses). A
// common name called on values of unknown type (fastify's handleError:
// 206 guesses beside 16 exact callers) would otherwise bury the edges
// that are known.
const maxGuesses = 10

// capGuesses keeps the edges of es that are not guesses and, unless
// IncludeGuesses is set, the guesses while *shown < maxGuesses; it returns
// the kept edges and how many guesses it left out.
func (r *Resolver) capGuesses(es []Edge, shown *int) ([]Edge, int) {
	if r.IncludeGuesses {
		return es, 0
	}
	out := es[:0]
	n := 0
	for _, e := range es {
		if e.Guess {
			if *shown >= maxGuesses {
				n++
				continue
			}
			*shown++
		}
		out = append(out, e)
	}
	return out, n
}

// PathResult is the shortest call path From -> To. Edges is empty when
// Found is false. Ambiguous is true when the path needed ambiguous calls
// (no path exists over resolved calls alone); those edges name the
// candidate taken in Target.
type PathResult struct {
	Root      string    `json:"root"` // project root; every Path is relative to it
	Query     [2]string `json:"query"`
	From      *Def      `json:"from"`
	To        *Def      `json:"to"`
	Found     bool      `json:"found"`
	Ambiguous bool      `json:"ambiguous,omitempty"`
	Edges     []Edge    `json:"edges"`
	// Hint says, when no path was found, what else the caller could
	// follow ("--include-guesses ..."); set by the caller, which knows its
	// own options.
	Hint string `json:"hint,omitempty"`
}

// maxPathNodes bounds the definitions visited by one Path search.
const maxPathNodes = 200000

func (r *Resolver) begin() { r.err, r.omitted = nil, 0 }

func (r *Resolver) done() error {
	if r.err != nil {
		return fmt.Errorf("graph query: %w", r.err)
	}
	return nil
}

// Graph returns every relation where name is the from or the to side: for a
// class its super types, subclasses, members and the calls its members make;
// for a method or function its class, its calls and its callers. A name
// with no definition but stored relations (an external base class, an
// imported module, a file path) gets those relations as stored.
func (r *Resolver) Graph(name string) (*GraphResult, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	r.begin()
	res := &GraphResult{Root: r.project, Query: name, Defs: []*Def{}, Edges: []Edge{}}
	d, err := r.Lookup(name)
	if errors.Is(err, ErrNotFound) {
		raw, rerr := r.rawEdges(strings.TrimSpace(name))
		if rerr != nil {
			return nil, rerr
		}
		if len(raw) == 0 {
			return nil, err
		}
		res.Edges = raw
		return res, r.done()
	}
	if err != nil {
		return nil, err
	}
	res.Defs = append(res.Defs, d)
	if d.isClass() {
		res.Edges = r.classEdges(d)
	} else {
		res.Edges = r.memberEdges(d)
	}
	res.OmittedAmbiguous = r.omitted
	res.Edges, res.Library = dropLibrary(res.Edges)
	shown := 0
	res.Edges, res.OmittedGuesses = r.capGuesses(res.Edges, &shown)
	return res, r.done()
}

// rawEdges returns the stored relations whose from or to is exactly name.
func (r *Resolver) rawEdges(name string) ([]Edge, error) {
	from, err := r.idx.RelationsFrom(r.ctx, r.project, []string{name}, nil)
	if err != nil {
		return nil, err
	}
	to, err := r.idx.RelationsTo(r.ctx, r.project, []string{name}, nil)
	if err != nil {
		return nil, err
	}
	var out []Edge
	seen := map[store.RelationRow]bool{}
	for _, row := range append(from, to...) {
		if seen[row] { // a relation from name to itself is in both lists
			continue
		}
		seen[row] = true
		out = append(out, r.edge(row))
	}
	return out, nil
}

// edge turns a stored row into an Edge, resolving both sides.
func (r *Resolver) edge(row store.RelationRow) Edge {
	e := Edge{Kind: row.Kind, From: row.From, To: row.To, Path: row.Path, Line: row.Line, form: row.Form, args: row.Args}
	switch row.Kind {
	case chunk.RelCalls:
		e.Caller = r.callerOf(row)
		r.setTarget(&e, e.Caller)
	case chunk.RelContains:
		e.Caller = r.resolveClass(row.Path, row.From)
		for _, d := range r.byName[row.To] {
			if d.Path == row.Path {
				e.Target = d
			}
		}
		e.atTarget()
	case chunk.RelExtends, chunk.RelImplements:
		e.Caller = r.resolveClass(row.Path, row.From)
		e.Target = r.resolveClass(row.Path, row.To)
	}
	return e
}

func (r *Resolver) setTarget(e *Edge, caller *Def) {
	how, cands := r.resolve(caller, e.Path, e.To, e.form, e.args)
	e.Resolution = how
	e.Guess = isGuess(e.form, how)
	switch {
	case how == ResAmbiguous:
		e.Candidates = cands[:min(len(cands), maxCandidates)]
		e.CandidatesTotal = len(cands)
		e.all = cands
	case len(cands) == 1:
		e.Target = cands[0]
	}
}

// classEdges: relations of class c itself, then the calls of its members.
func (r *Resolver) classEdges(c *Def) []Edge {
	var out []Edge
	rows, err := r.idx.RelationsFrom(r.ctx, r.project, []string{c.Name}, []string{chunk.RelExtends, chunk.RelImplements, chunk.RelContains})
	if err != nil {
		r.fail(err)
	}
	var members []*Def
	for _, row := range rows {
		e := r.edge(row)
		switch {
		case row.Kind == chunk.RelContains && row.Path != c.Path && r.resolveClass(row.Path, c.method) != c:
			continue // another class of the same name (a test's Client beside feign.Client)
		case row.Kind == chunk.RelContains && e.Target != nil && (e.Target.isClass() || r.classOf(e.Target) == c):
			e.Caller = c
			if !e.Target.isClass() {
				members = append(members, e.Target)
			}
		case row.Path == c.Path && row.Kind != chunk.RelContains:
			e.Caller = c
		default:
			continue
		}
		out = append(out, e)
	}
	in, err := r.idx.RelationsTo(r.ctx, r.project, []string{c.Name, c.method},
		[]string{chunk.RelExtends, chunk.RelImplements, chunk.RelContains})
	if err != nil {
		r.fail(err)
	}
	for _, row := range in {
		e := r.edge(row)
		if e.Kind == chunk.RelContains {
			if row.To != c.Name || row.Path != c.Path {
				continue
			}
		} else if e.Target != c {
			continue
		}
		out = append(out, e)
	}
	out = append(out, r.typeRefs(c)...)
	for _, m := range members {
		out = append(out, r.calleeEdges(m)...)
	}
	return out
}

// typeRefs returns the calls that resolve to class c itself: Go
// conversions T(x) (ResType), and "new C()" / "C(...)" of a class without
// a constructor of its own.
func (r *Resolver) typeRefs(c *Def) []Edge {
	names := []string{c.method}
	if base := path.Base(r.absDir(c)); base != "." && base != "/" {
		names = append(names, base+"."+c.method) // pkg.T(x) from another package
	}
	rows, err := r.idx.RelationsTo(r.ctx, r.project, names, []string{chunk.RelCalls})
	if err != nil {
		r.fail(err)
		return nil
	}
	var out []Edge
	for _, row := range rows {
		if r.NoTests && lang.IsTestFile(row.Path) {
			continue
		}
		if e := r.edge(row); e.Target == c && e.Resolved() {
			out = append(out, e)
		}
	}
	return out
}

// memberEdges: the class containing d, the calls d makes, the calls to d.
func (r *Resolver) memberEdges(d *Def) []Edge {
	var out []Edge
	rows, err := r.idx.RelationsTo(r.ctx, r.project, []string{d.Name}, []string{chunk.RelContains})
	if err != nil {
		r.fail(err)
	}
	for _, row := range rows {
		if row.Path == d.Path {
			e := r.edge(row)
			e.Target = d
			e.atTarget()
			out = append(out, e)
		}
	}
	callees := r.calleeEdges(d)
	out = append(out, callees...)
	// a call of d in d's own body (recursion) is one of its callees and
	// one of its callers: list it once
	type site struct {
		path string
		line int
		to   string
	}
	self := map[site]bool{}
	for _, e := range callees {
		if e.Target == d {
			self[site{e.Path, e.Line, e.To}] = true
		}
	}
	for _, e := range r.callerEdges(d) {
		if e.Caller == d && self[site{e.Path, e.Line, e.To}] {
			continue
		}
		out = append(out, e)
	}
	return out
}

// calleeEdges returns the calls made by d, each resolved.
func (r *Resolver) calleeEdges(d *Def) []Edge {
	if d.isClass() {
		return nil
	}
	rows, err := r.idx.RelationsFrom(r.ctx, r.project, []string{d.call}, []string{chunk.RelCalls})
	if err != nil {
		r.fail(err)
		return nil
	}
	var out []Edge
	for _, row := range rows {
		if row.Path != d.Path || d.Type != "module" && (row.Line < d.StartLine || row.Line > d.EndLine) {
			continue
		}
		e := Edge{Kind: row.Kind, From: row.From, To: row.To, Path: row.Path, Line: row.Line, Caller: d, form: row.Form, args: row.Args}
		r.setTarget(&e, d)
		out = append(out, e)
	}
	return out
}

// calleeNames are the to_name spellings a call to d may have been stored
// under: "m", "Owner.m", "pkg.m" / "module.m", and a class name for a
// constructor.
func (r *Resolver) calleeNames(d *Def) []string {
	names := []string{d.method}
	if (d.Language == "lua" || d.Language == "zig") && d.Owner != fileModule(d) {
		// a module's function as its requirers call it (chunk.luaModuleCalls,
		// a Zig file's imported by name)
		names = append(names, fileModule(d)+"."+d.method)
	}
	if d.Language == "elixir" && strings.Contains(d.Owner, ".") {
		// Tesla.Multipart.add_field as a call names it: Multipart.add_field
		// (chunk.exModuleCalls)
		names = append(names, lastSeg(d.Owner)+"."+d.method)
	}
	if d.Owner != "" {
		names = append(names, d.Owner+"."+d.method)
		// Rust, C++ and PHP write a call on a type with "::", and on the
		// caller's own type as Self:: (self::, static::); each row is
		// resolved again below, so a name that reaches another type's
		// method adds nothing
		names = append(names, d.Owner+"::"+d.method)
		for a := range ownTypeAlias {
			names = append(names, a+"::"+d.method)
		}
		// a subclass's super.m() or parent::m() (resolveSuper)
		names = append(names, "super::"+d.method, "parent::"+d.method)
		if typedByClass[d.Language] {
			// a call typed with a subclass ("StatsEntry.reset" for
			// Base.reset, chunk.pyTypes, chunk.declaredTypes) reaches the
			// base's method; in Java and C# one typed with a base class or
			// an interface whose method d overrides ("Executor.query" for
			// CachingExecutor.query) may reach d by dispatch (callerEdges)
			if c := r.classOf(d); c != nil {
				if c.Name != c.method {
					// a nested class as a declaration writes it:
					// Request.Options o; o.readTimeoutMillis()
					names = append(names, c.Name+"."+d.method)
				}
				for _, sub := range r.subclassesOf(c) {
					names = append(names, sub.method+"."+d.method)
				}
				if d.Language != "python" {
					for _, sup := range r.superChain(c) {
						names = append(names, sup.method+"."+d.method)
					}
				}
			}
		}
		if base := path.Base(r.absDir(d)); base != "." && base != "/" {
			names = append(names, base+"."+d.Owner+"."+d.method) // a typed Go call from another package
		}
		if d.method == d.Owner || d.method == "__init__" || d.method == "constructor" || d.method == "initialize" || d.method == "__construct" {
			names = append(names, d.Owner)
			if d.method == "initialize" {
				names = append(names, d.Owner+".new")
			}
		}
	} else {
		if d.Language == "cpp" || d.Language == "c" {
			// a free function called through its namespace
			// (base64::encode, cereal::base64::encode): the call names
			// the project's relations hold (each row is resolved again)
			names = append(names, r.qualifiedCallNames(d.method)...)
		}
		if base := path.Base(r.absDir(d)); base != "." && base != "/" {
			names = append(names, base+"."+d.method)
		}
		stem := strings.TrimSuffix(path.Base(d.Path), path.Ext(d.Path))
		if stem != path.Base(r.absDir(d)) {
			names = append(names, stem+"."+d.method)
		}
	}
	return names
}

// callerEdges returns the calls that reach d: resolved to d, or ambiguous
// with d among the candidates (Resolution ResAmbiguous).
func (r *Resolver) callerEdges(d *Def) []Edge {
	if d.isClass() || d.Type == "module" {
		return nil
	}
	rows, err := r.idx.RelationsTo(r.ctx, r.project, r.calleeNames(d), []string{chunk.RelCalls})
	if err != nil {
		r.fail(err)
		return nil
	}
	var out []Edge
	for _, row := range rows {
		caller := r.callerOf(row)
		how, cands := r.resolve(caller, row.Path, row.To, row.Form, row.Args)
		e := Edge{Kind: row.Kind, From: row.From, To: row.To, Path: row.Path, Line: row.Line, Caller: caller, Resolution: how,
			Guess: isGuess(row.Form, how), form: row.Form, args: row.Args}
		if r.NoTests && lang.IsTestFile(row.Path) {
			continue
		}
		switch {
		case how == ResAmbiguous && contains(cands, d) && len(cands) > maxCandidates:
			// "x.Close()" anywhere, with 200 Close methods to choose from,
			// says nothing about d: counted, not listed
			r.omitted++
			continue
		case how == ResAmbiguous && contains(cands, d):
			e.Candidates = cands[:min(len(cands), maxCandidates)]
			e.CandidatesTotal = len(cands)
			if !contains(e.Candidates, d) {
				e.Candidates = append(e.Candidates, d)
			}
		case how != ResAmbiguous && len(cands) == 1 && cands[0] == d:
			e.Target = d
		case how == ResTyped && len(cands) == 1 && r.overrides(d, cands[0]):
			// "executor.query(...)" typed Executor.query, which d
			// (CachingExecutor.query) overrides: the call reaches d when
			// the value is of d's class, so it is listed as one of two
			// candidates, not followed
			e.Resolution, e.Guess = ResAmbiguous, true
			e.Candidates, e.CandidatesTotal = []*Def{cands[0], d}, 2
		default:
			continue
		}
		out = append(out, e)
	}
	return out
}

// maxQualifiedCallNames bounds the namespace-qualified names
// qualifiedCallNames returns.
const maxQualifiedCallNames = 64

// qualifiedCallNames returns the names of the project's relations that
// end with "::"+m (a C++ call through a namespace or a class), at most
// maxQualifiedCallNames.
func (r *Resolver) qualifiedCallNames(m string) []string {
	got, err := r.idx.RelationNamesLike(r.ctx, r.project, "::"+m, 4*maxQualifiedCallNames)
	if err != nil {
		r.fail(err)
		return nil
	}
	var out []string
	for _, n := range got {
		if strings.HasSuffix(n, "::"+m) && len(out) < maxQualifiedCallNames {
			out = append(out, n)
		}
	}
	return out
}

// typedByClass are the languages whose calls on a value may be typed
// with the value's class (Python's annotations, Java's, C#'s and C++'s
// declarations), so a call typed with one class may reach the method of
// another.
var typedByClass = map[string]bool{"python": true, "java": true, "csharp": true, "cpp": true, "php": true}

// overrides reports whether method d overrides base, a method of the same
// name of one of the super classes or interfaces of d's class (Java, C#).
func (r *Resolver) overrides(d, base *Def) bool {
	if d == base || d.method != base.method || d.Language == "python" {
		return false
	}
	c, b := r.classOf(d), r.classOf(base)
	return c != nil && b != nil && contains(r.superChain(c), b)
}

// callable resolves name for a walk; classes are refused.
func (r *Resolver) callable(name string) (*Def, error) {
	d, err := r.Lookup(name)
	if err != nil {
		return nil, err
	}
	if d.isClass() {
		return nil, fmt.Errorf("%s is a class (%s): give one of its methods: %w", d.Name, d.Loc(), ErrNotCallable)
	}
	return d, nil
}

// Callees walks the calls made by name breadth-first, depth levels deep
// (DefaultDepth when depth < 1). Every call is listed with its resolution;
// only resolved calls are followed.
func (r *Resolver) Callees(name string, depth int) (*Walk, error) {
	return r.walk(name, depth, "callees")
}

// Callers walks the callers of name breadth-first, depth levels deep
// (DefaultDepth when depth < 1). Ambiguous call sites that may reach a node
// are listed (Resolution ResAmbiguous) but not followed.
func (r *Resolver) Callers(name string, depth int) (*Walk, error) {
	return r.walk(name, depth, "callers")
}

func (r *Resolver) walk(name string, depth int, dir string) (*Walk, error) {
	r.begin()
	root, err := r.callable(name)
	if err != nil {
		return nil, err
	}
	if depth < 1 {
		depth = DefaultDepth
	}
	w := &Walk{Project: r.project, Query: name, Direction: dir, Root: root, Depth: depth, Edges: []Edge{}}
	seen := map[*Def]bool{root: true}
	frontier := []*Def{root}
	guesses := 0
	for lvl := 1; lvl <= depth && len(frontier) > 0; lvl++ {
		var next []*Def
		for _, d := range frontier {
			if err := r.ctx.Err(); err != nil {
				return nil, err
			}
			var edges []Edge
			if dir == "callees" {
				edges = r.calleeEdges(d)
			} else {
				edges = r.callerEdges(d)
			}
			var lib, omitted int
			edges, lib = dropLibrary(edges)
			w.Library += lib
			edges, omitted = r.capGuesses(edges, &guesses)
			w.OmittedGuesses += omitted
			for _, e := range edges {
				if len(w.Edges) >= maxEdges {
					w.Truncated, w.OmittedAmbiguous = true, r.omitted
					return w, r.done()
				}
				e.Depth, e.parent = lvl, d
				w.Edges = append(w.Edges, e)
				if !r.follows(&e) {
					continue
				}
				n := e.Target
				if dir == "callers" {
					n = e.Caller
				}
				if n != nil && !seen[n] && n.Type != "module" {
					seen[n] = true
					next = append(next, n)
				}
			}
		}
		frontier = next
	}
	w.OmittedAmbiguous = r.omitted
	return w, r.done()
}

// Path returns a shortest call path from one function to another over
// resolved calls; when there is none, over calls whose ambiguous candidates
// include the next step (Ambiguous is then set).
func (r *Resolver) Path(from, to string) (*PathResult, error) {
	r.begin()
	a, err := r.callable(from)
	if err != nil {
		return nil, err
	}
	b, err := r.callable(to)
	if err != nil {
		return nil, err
	}
	res := &PathResult{Root: r.project, Query: [2]string{from, to}, From: a, To: b, Edges: []Edge{}}
	for _, loose := range []bool{false, true} {
		edges, err := r.bfsPath(a, b, loose)
		if err != nil {
			return nil, err
		}
		if edges != nil || a == b {
			res.Found, res.Ambiguous, res.Edges = true, loose, edges
			if edges == nil {
				res.Edges = []Edge{}
			}
			break
		}
	}
	return res, r.done()
}

func (r *Resolver) bfsPath(a, b *Def, loose bool) ([]Edge, error) {
	if a == b {
		return nil, nil
	}
	type via struct {
		prev *Def
		edge Edge
	}
	parent := map[*Def]via{a: {}}
	queue := []*Def{a}
	for len(queue) > 0 && len(parent) < maxPathNodes {
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
		d := queue[0]
		queue = queue[1:]
		for _, e := range r.calleeEdges(d) {
			var nexts []*Def
			switch {
			case r.follows(&e):
				nexts = []*Def{e.Target}
			case loose && e.Resolution == ResAmbiguous && (!e.Guess || r.IncludeGuesses):
				nexts = e.all
			}
			for _, n := range nexts {
				if _, ok := parent[n]; ok {
					continue
				}
				step := e
				step.Target = n
				parent[n] = via{d, step}
				if n == b {
					var path []Edge
					for x := b; x != a; x = parent[x].prev {
						path = append(path, parent[x].edge)
					}
					for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
						path[i], path[j] = path[j], path[i]
					}
					for i := range path {
						path[i].Depth = i + 1
					}
					return path, nil
				}
				queue = append(queue, n)
			}
		}
	}
	return nil, nil
}

// Describe returns the tree text of Graph(name) for one project: what the
// REPL's /graph and the code_graph MCP/agent tool print.
func Describe(ctx context.Context, idx Index, project, name string) (string, error) {
	r, err := NewResolver(ctx, idx, project)
	if err != nil {
		return "", err
	}
	g, err := r.Graph(name)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := Render(&b, g, FormatTree); err != nil {
		return "", err
	}
	return b.String(), nil
}

// Neighbors returns the direct callers and callees of the chunk named
// chunkName (a method or function chunk name as stored, e.g.
// "UserService.find(long id)"), for `search --expand`. Each entry is
// "Name path:line" with the definition's location; callers that reach it
// only through an ambiguous call and ambiguous callees end in " (ambiguous)".
// Unresolved callees (library calls) are left out. A class or text chunk has
// no neighbours (nil, nil, nil); an unknown name is a *NotFoundError. The
// chunk is the definition of that name at path and line (a search result's
// Path and StartLine); when several files define the same chunk name
// (Builder.addPlainText in three output formats) the result's own is
// taken, and only when none is there (path ""), the first in path order.
func (r *Resolver) Neighbors(chunkName, path string, line int) (callers, callees []string, err error) {
	r.begin()
	ds := r.byName[chunkName]
	if len(ds) == 0 {
		return nil, nil, &NotFoundError{Name: chunkName, Project: r.project}
	}
	d := ds[0]
	for _, c := range ds {
		if c.Path == path && (c.StartLine == line || d.Path != path) {
			d = c
		}
	}
	if d.isClass() {
		return nil, nil, nil
	}
	seen := map[string]bool{}
	add := func(list *[]string, s string) {
		if !seen[s] {
			seen[s] = true
			*list = append(*list, s)
		}
	}
	for _, e := range r.callerEdges(d) {
		if e.Guess {
			continue // a name match on an untyped receiver: never fed to search
		}
		s := e.Caller.call + " " + e.Caller.Loc()
		if e.Resolution == ResAmbiguous {
			s += " (ambiguous)"
		}
		add(&callers, s)
	}
	for _, e := range r.calleeEdges(d) {
		switch {
		case e.Guess:
		case e.Resolved():
			add(&callees, e.Target.call+" "+e.Target.Loc())
		case e.Resolution == ResAmbiguous:
			add(&callees, e.To+" (ambiguous)")
		}
	}
	return callers, callees, r.done()
}
