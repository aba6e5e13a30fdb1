"""Build a held-out set of Go and Rust libraries as their users index them: the source of Cobra
1.6.1 and pflag 1.0.6 (Go), clap 4.0.32, serde_json 1.0.87 and anyhow 1.0.69 (Rust), as Debian
ships them, with clap's examples and the crates' READMEs, and QUESTIONS_GO + QUESTIONS_RUST
questions with their evidence (``crate_docs``).

In Go and Rust the documentation is in the source: a Go library's is the ``//`` comment above
each declaration, a crate's the ``///`` and ``//!`` comments (Markdown, with headings and
examples) that docs.rs renders. A user asks how to do something, what a function does, and, as a
contributor, where something is done. The questions were written from the files by people who
had not seen zoomrag's rules for code, in users' own words, each with the passage that answers
it (a doc comment with its declaration, a function's lines, an example's page), before any rule
was changed for these files. Evidence is found by its first and last words, so the set is rebuilt
from the packages. Test files are left out.

    apt-get download golang-github-spf13-cobra-dev golang-github-spf13-pflag-dev \\
        librust-clap-dev librust-serde-json-dev librust-anyhow-dev
    for f in *.deb; do dpkg-deb -x "$f" x; done
    python bench/crate_set.py --source x
    python bench/quality.py --data bench/out/derived --datasets crate_docs --peers

``--with-tests`` adds the projects' tests (``crate_docs_tests``): how far a folder's tests push
the answers down.
"""

from __future__ import annotations

import sys
from pathlib import Path

from heldout import cli, find, write_set

from zoomrag.load.base import detect_format

ROOT = Path(__file__).resolve().parent
SOURCE = Path("/tmp/crate-sources")
OUT = ROOT / "out" / "derived" / "crate_docs"
_GO = "usr/share/gocode/src/github.com/spf13/"
_RS = "usr/share/cargo/registry/"
#: project (the first folder of its documents' ids) → (its folder in the packages, what is read)
PROJECTS = {
    "cobra": (_GO + "cobra", ("*.go", "doc/*.go")),
    "pflag": (_GO + "pflag", ("*.go",)),
    "clap-4.0.32": (_RS + "clap-4.0.32", ("src/**/*.rs", "examples/**/*.md", "examples/**/*.rs", "README.md")),
    "serde_json-1.0.87": (_RS + "serde_json-1.0.87", ("src/**/*.rs", "README.md")),
    "anyhow-1.0.69": (_RS + "anyhow-1.0.69", ("src/**/*.rs", "README.md")),
}

#: (question, file, first words of the evidence, last words of the evidence)
QUESTIONS_GO = (
    ("In cobra, how can I make two or more options conflict so the command errors if the user passes more than one of them?", "cobra/flag_groups.go", "// MarkFlagsMutuallyExclusive marks the given flags with annotations so that Cobra errors", "func (c *Command) MarkFlagsMutuallyExclusive(flagNames ...string) {"),
    ("How do I restrict a cobra command to accept between 1 and 3 positional arguments?", "cobra/args.go", "// RangeArgs returns an error if the number of args is not within", "func RangeArgs(min int, max int) PositionalArgs {"),
    ("How do I force the user to always supply a particular option on a cobra command, failing otherwise?", "cobra/shell_completions.go", "// MarkFlagRequired instructs the various shell completion implementations to", "func (c *Command) MarkFlagRequired(name string) error {"),
    ("How can I supply dynamic tab-completion suggestions for the value of one of my command's flags?", "cobra/completions.go", "// RegisterFlagCompletionFunc should be called to register a function to provide completion for a flag.", "func (c *Command) RegisterFlagCompletionFunc(flagName string,"),
    ("I want to load a config file before any cobra command runs; how do I register a hook that runs when Execute is called?", "cobra/cobra.go", "// OnInitialize sets the passed functions to be run when each command's", "func OnInitialize(y ...func()) {"),
    ("How do I keep a subcommand working but stop it from being listed among the available commands in help?", "cobra/command.go", "// Hidden defines, if this command is hidden and should NOT show up", "Hidden bool"),
    ("How can I produce Unix manual pages for my CLI and all of its subcommands into a folder?", "cobra/doc/man_docs.go", "// GenManTree will generate a man page for this command and all descendants", "func GenManTree(cmd *cobra.Command, header *GenManHeader, dir string) error {"),
    ("How do I show a hint message to the user while they are tab-completing, alongside the normal completion choices?", "cobra/active_help.go", "// AppendActiveHelp adds the specified string to the specified array to be used as ActiveHelp.", "func AppendActiveHelp(compArray []string, activeHelpStr string) []string {"),
    ("In what order are a cobra command's hook functions run, and what is the difference between the persistent pre-run hook and the plain pre-run hook?", "cobra/command.go", "// The *Run functions are executed in the following order:", "// PreRunE: PreRun but returns an error."),
    ("What happens when I set the Version string on a cobra command, does it add a --version flag automatically?", "cobra/command.go", "// Version defines the version for this command. If this value is non-empty", "Version string"),
    ("If I don't set an Args validator on a command, how does cobra treat the positional arguments it receives?", "cobra/args.go", "// Legacy arg validation has the following behaviour:", "func legacyArgs(cmd *Command, args []string) error {"),
    ("What do the completion directives like NoSpace and NoFileComp tell the shell when returned from a completion function?", "cobra/completions.go", "// ShellCompDirectiveError indicates an error occurred and completions should be ignored.", "file completion even when no completion is provided. ShellCompDirectiveNoFileComp"),
    ("Where in cobra's code is the command tree walked to pick the subcommand that matches the words on the command line?", "cobra/command.go", "// Find the target command given the args and command tree", "return commandFound, a, nil"),
    ("When both a parent and a child command define a persistent pre-run hook, where does cobra decide which one actually gets called?", "cobra/command.go", "for p := c; p != nil; p = p.Parent() {", "p.PersistentPreRun(c, argWoFlags) break"),
    ("How does cobra pick which command names to propose after an 'unknown command' typo?", "cobra/command.go", "// SuggestionsFor provides suggestions for the typedName.", "return suggestions"),
    ("Where does cobra detect that a Windows user double-clicked the executable from Explorer and show a message before exiting?", "cobra/command_win.go", "func preExecHook(c *Command) {", "os.Exit(1)"),
    ("With pflag, how can one option take a comma separated list like --tags=a,b,c and give me a []string?", "pflag/string_slice.go", "// StringSliceVar defines a string flag with specified name, default value, and usage string.", "func (f *FlagSet) StringSliceVar(p *[]string, name string, value []string, usage string) {"),
    ("How do I retire an old pflag option so it still works but prints a warning and no longer appears in the usage text?", "pflag/flag.go", "// MarkDeprecated indicated that a flag is deprecated in your program.", "func (f *FlagSet) MarkDeprecated(name string, usageMessage string) error {"),
    ("How can I implement a verbosity level where passing -v several times (e.g. -vvv) increases a number?", "pflag/count.go", "// Count defines a count flag with specified name, default value, and usage string.", "func (f *FlagSet) Count(name string, usage string) *int {"),
    ("Some libraries register their options with Go's standard flag package; how do I bring all of those into my pflag flag set?", "pflag/golangflag.go", "// AddGoFlagSet will add the given *flag.FlagSet to the pflag.FlagSet", "func (f *FlagSet) AddGoFlagSet(newSet *goflag.FlagSet) {"),
    ("How can I make pflag treat --dry_run and --dry-run (or different capitalisations) as the same option?", "pflag/flag.go", "// SetNormalizeFunc allows you to add a function which can translate flag names.", "func (f *FlagSet) SetNormalizeFunc(n func(f *FlagSet, name string) NormalizedName) {"),
    ("On a pflag Flag, what is the difference between DefValue and NoOptDefVal, and what does Changed mean?", "pflag/flag.go", "DefValue string // default value (as text); for usage message", "// default value (as text); if the flag is on the command line without any options"),
    ("Which text formats does pflag's IPv4 netmask parser accept, only dotted 255.255.255.0 or also hex?", "pflag/ipmask.go", "// ParseIPv4Mask written in IP form (e.g. 255.255.255.0).", "return net.IPv4Mask(mask[12], mask[13], mask[14], mask[15])"),
    ("What encoding does pflag's BytesHex flag type expect for its value?", "pflag/bytes.go", "// BytesHex adapts []byte for use as a flag. Value of flag is HEX encoded", "type bytesHexValue []byte"),
    ("In pflag's parser, how is the value of a single-letter option obtained for the forms -n=5, -n5 and -n 5?", "pflag/flag.go", "if len(shorthands) > 2 && shorthands[1] == '=' { // '-f=arg'", "err = f.failf(\"flag needs an argument: %q in -%s\", c, shorthands)"),
    ("For a pflag map[string]string flag, how is a value like a=1,b=\"x,y\" split into key/value pairs (quoted commas included), and what happens when the flag is given twice?", "pflag/string_to_string.go", "// Format: a=1,b=2", "s.changed = true"),
)

QUESTIONS_RUST = (
    ("My function returns anyhow::Result but a helper gives me an Option; how do I turn a None into an error with a message and use ? on it?", "anyhow-1.0.69/src/context.rs", "use anyhow::{Context, Result};", "let t = maybe_get().context(\"there is no T\")?;"),
    ("When I print an anyhow error with {} I only see the top message; how do I get the underlying causes printed on the same line?", "anyhow-1.0.69/src/lib.rs", "When you print an error object using \"{}\" or to_string(), only the outermost", "./path/to/instrs.json: No such file or directory (os error 2)"),
    ("Is there an assert!-like macro in anyhow that returns an error from my function instead of panicking when a condition is false?", "anyhow-1.0.69/src/macros.rs", "Return early with an error if a condition is not satisfied.", "ensure!(user == 0, \"only user 0 is allowed\");"),
    ("After I wrap an error with .context(...), can I still downcast it to the original error type or only to the context type?", "anyhow-1.0.69/src/lib.rs", "/// # Effect on downcasting", "you should freely add human-readable context to errors wherever it would /// be helpful."),
    ("When should I build an anyhow error with Error::msg instead of Error::new or the anyhow! macro?", "anyhow-1.0.69/src/error.rs", "Create a new error object from a printable error message.", "as iterator or stream combinators:"),
    ("Writing anyhow::Result::Ok(value) in a closure gives 'type annotations needed' - what should I use instead?", "anyhow-1.0.69/src/lib.rs", "Equivalent to Ok::<_, anyhow::Error>(value).", "One might think that `anyhow::Result::Ok(value)` would work in such cases /// but it does not."),
    ("Where in anyhow's code is the 'Caused by:' list written for Debug output, and how does it decide whether to number the causes?", "anyhow-1.0.69/src/fmt.rs", "if let Some(cause) = error.source() {", "write!(indented, \"{}\", error)?;"),
    ("Should I wrap a File in a BufReader before handing it to serde_json, and is streaming from a reader faster than reading the whole file first?", "serde_json-1.0.87/src/de.rs", "The content of the IO stream is deserialized directly from the stream", "or [`from_slice`] on it. See [issue #160]."),
    ("How do I parse a string containing several JSON documents back to back and iterate over each value?", "serde_json-1.0.87/src/de.rs", "Iterator that deserializes a stream into multiple JSON values.", "println!(\"{}\", value.unwrap());"),
    ("How can I tell whether a serde_json failure was due to truncated input, invalid syntax, or data that doesn't match my type?", "serde_json-1.0.87/src/error.rs", "Categorizes the cause of this error.", "`Category::Eof` - unexpected end of the input data"),
    ("How do I overwrite a value nested deep inside a serde_json Value using a slash-separated path, or take the old value out?", "serde_json-1.0.87/src/value/mod.rs", "/// # Example of Use /// /// ```", "assert_eq!(value.pointer(\"/x\").unwrap(), &Value::Null);"),
    ("My struct has a field of type serde_json::Value that is sometimes absent in the input; how do I make it deserialize anyway and end up as null?", "serde_json-1.0.87/src/value/mod.rs", "The default value is `Value::Null`.", "assert_eq!(s.extras, Value::Null);"),
    ("I'm reading JSON with from_reader and my struct has a borrowed &RawValue field; what type should I use instead?", "serde_json-1.0.87/src/raw.rs", "The borrowed form is suitable when deserializing through", "raw_value: Box<RawValue>,"),
    ("Can the json! macro panic when I interpolate variables into it, and what types can I use as object keys?", "serde_json-1.0.87/src/macros.rs", "Variables or expressions can be interpolated into the JSON literal. Any type", "map with non-string keys, the `json!` macro will panic."),
    ("Where does serde_json's deserializer count nesting depth and return the recursion limit exceeded error?", "serde_json-1.0.87/src/de.rs", "macro_rules! check_recursion {", "$this.remaining_depth += 1;"),
    ("Where does serde_json combine a high surrogate \\u escape with the following low surrogate escape into a single char?", "serde_json-1.0.87/src/read.rs", "let n2 = tri!(read.decode_hex_escape());", "return error(read, ErrorCode::InvalidUnicodeCodePoint);"),
    ("Should I use clap's derive macros or the builder API, and what can only the builder do?", "clap-4.0.32/src/_faq.rs", "Our default answer is to use the [Derive API][crate::_derive::_tutorial]:", "indices of or other data."),
    ("In a clap derive struct, which field type gives an option whose value is itself optional, and which types let an argument repeat?", "clap-4.0.32/src/_derive/mod.rs", "`clap` assumes some intent based on the type used:", "| `Option<Vec<T>>`    | `0..` occurrences of argument        | `.action(ArgAction::Append).required(false)`  |"),
    ("Which clap cargo features are on by default, e.g. the 'did you mean' typo hints and colored errors?", "clap-4.0.32/src/_features.rs", "#### Default Features", "feature for when users make typos."),
    ("Can clap expand * wildcards on Windows or load extra arguments from a response file, or do I need another crate?", "clap-4.0.32/src/lib.rs", "### Related Projects //! //! Augment clap:", "[clap_complete](https://crates.io/crates/clap_complete) for shell completion support"),
    ("I want -h to mean --host in my clap program but still keep a --help flag; how do I set that up?", "clap-4.0.32/src/builder/arg.rs", "To use `-h` for your own flag and still have help:", "]); /// /// assert_eq!(m.get_one::<String>(\"host\").map(String::as_str), Some(\"wikipedia.org\"));"),
    ("My option that takes multiple values is swallowing the positional argument that comes after it; how do I fix this in clap?", "clap-4.0.32/src/builder/arg.rs", "A common mistake is to define an option which allows multiple values and a positional", "number, or to say [`ArgAction::Append`] is ok, but multiple values are not."),
    ("How do I make a --color option that means 'always' when given bare but also accepts --color=never?", "clap-4.0.32/src/builder/arg.rs", "This configuration option is often used to give the user a shortcut", "order to unambiguously determine what, if any, value was supplied for the argument."),
    ("How can my clap program accept unknown subcommands (like git plugins) and where do their arguments end up?", "clap-4.0.32/src/builder/command.rs", "Assume unexpected positional arguments are a [`subcommand`].", "One should check for such cases manually and inform the user appropriately."),
    ("With a group of mutually exclusive flags in clap, how do I find out which one the user actually passed?", "clap-4.0.32/src/builder/arg_group.rs", "// We may not know which of the args was used, so we can test", "\"major\" /// );"),
    ("In clap's arg! usage-string macro, how do I mark an argument's value as optional versus required?", "clap-4.0.32/src/macros.rs", "### Values (Value Notation)", "- `<>` like `<FOO>`: required"),
    ("How do I write a custom clap value parser function that splits a KEY=VALUE argument into a typed (key, value) tuple?", "clap-4.0.32/examples/typed-derive.rs", "/// Parse a single key-value pair", "Ok((s[..pos].parse()?, s[pos + 1..].parse()?))"),
    ("Which clap value hints for shell completion actually work in fish versus zsh?", "clap-4.0.32/src/builder/value_hint.rs", "Overview of which hints are supported by which shell:", "positional arguments."),
    ("Which types can I hand to clap's value_parser! macro - will my own type that implements FromStr work?", "clap-4.0.32/src/builder/value_parser.rs", "Select a [`ValueParser`] implementation from the intended type", "- [`FromStr` types][std::str::FromStr], including usize, isize"),
    ("Does ArgMatches::get_one return None when the user omitted an argument that has a default value?", "clap-4.0.32/src/parser/matches/arg_matches.rs", "Gets the value of a specific option or positional argument.", "[`ArgMatches::value_source`] can be used to check if a value is present at runtime."),
    ("What value does a clap flag using ArgAction::SetFalse have when the user doesn't pass it?", "clap-4.0.32/src/builder/action.rs", "When encountered, act as if `\"false\"` was encountered on the command-line", "If no [`default_value`][super::Arg::default_value] is set, it will be `true`."),
    ("What exit status does clap's Error::exit use, and is it different for --help than for real errors?", "clap-4.0.32/src/error/mod.rs", "Prints the error and exits.", "or prints to `stdout` and exits with a status of `0`."),
    ("Where does clap compute 'did you mean' suggestions for mistyped values and what similarity cutoff does it use?", "clap-4.0.32/src/parser/features/suggestions.rs", "let mut candidates: Vec<(f64, String)> = possible_values", "candidates.into_iter().map(|(_, pv)| pv).collect()"),
    ("Where in clap's parser code is a shortened subcommand prefix matched to a full subcommand name, and what does it fall back to when the prefix is ambiguous?", "clap-4.0.32/src/parser/parser.rs", "// For subcommand `test`, we accepts it's prefix: `t`, `te`,", "return Some(sc.get_name());"),
)


#: With ``--with-tests``: the projects' tests too (``crate_docs_tests``), as a user's folder holds them.
TESTS = {"cobra": ("*_test.go", "doc/*_test.go"), "pflag": ("*_test.go",),
         "serde_json-1.0.87": ("tests/**/*.rs",), "anyhow-1.0.69": ("tests/**/*.rs",)}


def files(src: Path, tests: bool = False) -> dict[str, Path]:
    """Document id (``project/path``, so its reader follows from it) → file."""
    found: dict[str, Path] = {}
    for project, (folder, patterns) in PROJECTS.items():
        for pattern in (*patterns, *(TESTS.get(project, ()) if tests else ())):
            for path in sorted((src / folder).glob(pattern)):
                if tests or not path.name.endswith("_test.go"):
                    found[f"{project}/{path.relative_to(src / folder).as_posix()}"] = path
    return found


def build(src: Path, dest: Path, tests: bool = False) -> int:
    sources = {name: path.read_text(encoding="utf-8") for name, path in files(src, tests).items()}
    questions = (*QUESTIONS_GO, *QUESTIONS_RUST)
    found = [(q, name, *find(sources[name], first, last)) for q, name, first, last in questions]
    write_set(dest, sources, {name: detect_format(Path(name)) for name in sources}, found)
    return len(found)


if __name__ == "__main__":
    needed = {p: f"{folder}/{'go.mod' if folder.startswith(_GO) else 'README.md'}"
              for p, (folder, _) in PROJECTS.items()}
    with_tests = "--with-tests" in sys.argv
    argv = [a for a in sys.argv[1:] if a != "--with-tests"]
    sys.exit(cli(argv, __doc__, SOURCE, OUT.with_name(OUT.name + "_tests") if with_tests else OUT, needed,
                 "apt-get download the five Debian packages above and unpack them with dpkg-deb -x",
                 lambda src, dest: build(src, dest, with_tests)))
