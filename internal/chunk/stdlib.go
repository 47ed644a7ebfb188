package chunk

import (
	"strings"
	"sync"
)

// Standard-library sets used to filter "imports" relations. Only imports of
// third-party or project code are kept: an edge to "os" or "java.util" tells
// a reader nothing about the project.

// pythonStdlib is sys.stdlib_module_names of CPython 3.11 plus __future__.
var pythonStdlib = setOf(`
__future__ _abc _aix_support _ast _asyncio _bisect _blake2 _bootsubprocess _bz2 _codecs _codecs_cn
_codecs_hk _codecs_iso2022 _codecs_jp _codecs_kr _codecs_tw _collections _collections_abc
_compat_pickle _compression _contextvars _crypt _csv _ctypes _curses _curses_panel _datetime _dbm
_decimal _elementtree _frozen_importlib _frozen_importlib_external _functools _gdbm _hashlib _heapq
_imp _io _json _locale _lsprof _lzma _markupbase _md5 _msi _multibytecodec _multiprocessing _opcode
_operator _osx_support _overlapped _pickle _posixshmem _posixsubprocess _py_abc _pydecimal _pyio
_queue _random _scproxy _sha1 _sha256 _sha3 _sha512 _signal _sitebuiltins _socket _sqlite3 _sre _ssl
_stat _statistics _string _strptime _struct _symtable _thread _threading_local _tkinter _tokenize
_tracemalloc _typing _uuid _warnings _weakref _weakrefset _winapi _zoneinfo abc aifc antigravity
argparse array ast asynchat asyncio asyncore atexit audioop base64 bdb binascii bisect builtins bz2
cProfile calendar cgi cgitb chunk cmath cmd code codecs codeop collections colorsys compileall
concurrent configparser contextlib contextvars copy copyreg crypt csv ctypes curses dataclasses
datetime dbm decimal difflib dis distutils doctest email encodings ensurepip enum errno faulthandler
fcntl filecmp fileinput fnmatch fractions ftplib functools gc genericpath getopt getpass gettext
glob graphlib grp gzip hashlib heapq hmac html http idlelib imaplib imghdr imp importlib inspect io
ipaddress itertools json keyword lib2to3 linecache locale logging lzma mailbox mailcap marshal math
mimetypes mmap modulefinder msilib msvcrt multiprocessing netrc nis nntplib nt ntpath nturl2path
numbers opcode operator optparse os ossaudiodev pathlib pdb pickle pickletools pipes pkgutil
platform plistlib poplib posix posixpath pprint profile pstats pty pwd py_compile pyclbr pydoc
pydoc_data pyexpat queue quopri random re readline reprlib resource rlcompleter runpy sched secrets
select selectors shelve shlex shutil signal site smtpd smtplib sndhdr socket socketserver spwd
sqlite3 sre_compile sre_constants sre_parse ssl stat statistics string stringprep struct subprocess
sunau symtable sys sysconfig syslog tabnanny tarfile telnetlib tempfile termios textwrap this
threading time timeit tkinter token tokenize tomllib trace traceback tracemalloc tty turtle
turtledemo types typing unicodedata unittest urllib uu uuid venv warnings wave weakref webbrowser
winreg winsound wsgiref xdrlib xml xmlrpc zipapp zipfile zipimport zlib zoneinfo`)

// nodeBuiltins are the Node.js core modules (also matched with a "node:" prefix).
var nodeBuiltins = setOf(`assert async_hooks buffer child_process cluster console constants crypto dgram
diagnostics_channel dns domain events fs fs/promises http http2 https inspector module net os path
path/posix path/win32 perf_hooks process punycode querystring readline repl stream stream/promises
string_decoder sys timers timers/promises tls trace_events tty url util v8 vm wasi worker_threads zlib`)

// cHeaders are the C and C++ standard headers and the common POSIX ones,
// matched for <...> includes.
var cHeaders = setOf(`assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h limits.h
locale.h math.h setjmp.h signal.h stdalign.h stdarg.h stdatomic.h stdbool.h stddef.h stdint.h stdio.h
stdlib.h stdnoreturn.h string.h tgmath.h threads.h time.h uchar.h wchar.h wctype.h
unistd.h fcntl.h pthread.h dirent.h dlfcn.h poll.h sched.h semaphore.h strings.h syslog.h termios.h
netdb.h getopt.h glob.h grp.h pwd.h regex.h libgen.h malloc.h alloca.h endian.h
algorithm any array atomic bit bitset cassert cctype cerrno cfloat charconv chrono cinttypes climits
clocale cmath codecvt compare complex concepts condition_variable coroutine csetjmp csignal cstdarg
cstddef cstdint cstdio cstdlib cstring ctime cwchar cwctype deque exception execution expected filesystem
format forward_list fstream functional future initializer_list iomanip ios iosfwd iostream istream
iterator latch limits list locale map memory memory_resource mutex new numbers numeric optional ostream
print queue random ranges ratio regex scoped_allocator semaphore set shared_mutex source_location span
sstream stack stdexcept stop_token streambuf string string_view syncstream system_error thread tuple
type_traits typeindex typeinfo unordered_map unordered_set utility valarray variant vector version`)

// rubyStdlib are the default and bundled gems that ship with Ruby.
var rubyStdlib = setOf(`abbrev base64 benchmark bigdecimal cgi coverage csv date delegate digest drb English
erb etc fcntl fiddle fileutils find forwardable getoptlong io/console io/wait ipaddr irb json logger
matrix monitor mutex_m net/http net/ftp net/smtp net/pop net/imap nkf objspace observer open-uri open3
openssl optparse ostruct pathname pp prettyprint prime pstore psych racc rdoc readline reline resolv
rinda ripper securerandom set shellwords singleton socket stringio strscan syslog tempfile time timeout
tmpdir tsort un uri weakref yaml zlib`)

// wordSet is the set of the space-separated words of a string, made at its
// first use rather than at package init (a search parses nothing).
type wordSet struct {
	words string
	once  sync.Once
	m     map[string]bool
}

func setOf(words string) *wordSet { return &wordSet{words: words} }

// has reports whether w is one of the words; safe for concurrent use.
func (s *wordSet) has(w string) bool {
	s.once.Do(func() {
		fs := strings.Fields(s.words)
		s.m = make(map[string]bool, len(fs))
		for _, f := range fs {
			s.m[f] = true
		}
	})
	return s.m[w]
}
