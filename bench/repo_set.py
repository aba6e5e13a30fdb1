"""Build a held-out set of projects' repositories as their users index them: the documentation,
the source, the README and the changelog of Click 8.5.1, Flask 3.1.3 and attrs 26.1.0, with 64
questions and their evidence (``repo_docs``).

A user who indexes a library's repository asks how to do things with it, what a function does
and, now and then, what changed in a release; the documentation, the docstrings and the
changelog each answer some of these, and each also mentions what the others answer: a changelog
names every feature in a line of its own. The questions were written from the files as users of
the libraries would ask them, in their own words (40 how-to questions answered by the docs, 12
about a function or parameter answered by the docs or a docstring, 12 about a release answered
by the changelog), each with the passage that answers it, before any rule of zoomrag was changed
for these files. Evidence is found by its first and last words, so the set is rebuilt from the
released source archives. The tests folders are left out, as a corpus of their size would take
an hour to embed at every configuration.

    pip download --no-deps --no-binary :all: click==8.5.1 flask==3.1.3 attrs==26.1.0 -d x
    for f in x/*.tar.gz; do tar -xzf $f -C x; done
    python bench/repo_set.py --source x
    python bench/quality.py --data bench/out/derived --datasets repo_docs --peers
"""

from __future__ import annotations

import sys
from pathlib import Path

from heldout import cli, find, write_set

from zoomrag.load.base import detect_format

ROOT = Path(__file__).resolve().parent
SOURCE = Path("/tmp/repo-sources")
OUT = ROOT / "out" / "derived" / "repo_docs"
PROJECTS = ("click-8.5.1", "flask-3.1.3", "attrs-26.1.0")
#: What of each project is read: its docs, its package's source, its README and changelog.
PATTERNS = ("docs/**/*.md", "docs/**/*.rst", "src/**/*.py", "README.md", "CHANGES.md", "CHANGES.rst",
            "CHANGELOG.md")

#: (question, file, first words of the evidence, last words of the evidence)
QUESTIONS = (
    ('How can a user repeat the same option several times, like -m foo -m bar, and get every value?', 'click-8.5.1/docs/options.md', 'The multiple options format allows options to take an arbitrary number', 'will be interpreted as a list of characters.'),
    ('accept an unlimited number of positional args in a click command', 'click-8.5.1/docs/arguments.md', 'To set the number of argument use the `nargs` kwarg.', 'packed as a tuple and passed to the function.'),
    ('how to pass a file name beginning with a dash (like -foo.txt) without click treating it as an option', 'click-8.5.1/docs/arguments.md', 'If you want to process arguments that look like options, like a file', 'common feature for POSIX command line tools.'),
    ("ask the user 'are you sure?' and stop the script if they answer no", 'click-8.5.1/docs/prompts.md', 'To ask if a user wants to continue with an action, the {func}`confirm` function', "click.confirm('Do you want to continue?', abort=True)"),
    ('password input that is hidden while typing and has to be entered twice', 'click-8.5.1/docs/option-decorators.md', 'Click supports hidden prompts and asking for confirmation.', 'replaced with the {func}`password_option` decorator:'),
    ('safely write an output file so other readers never see a half-written file', 'click-8.5.1/docs/handling-files.md', 'It is also possible to open files in atomic mode by passing `atomic=True`.', 'file regularly read by other users is modified.'),
    ('limit an integer option to values between 0 and 20, clamping out-of-bounds input instead of erroring', 'click-8.5.1/docs/parameter-types.md', 'The {class}`IntRange` type extends the {data}`INT` type', 'can only be enabled if both bounds are *closed* (the default).'),
    ('run the group function itself when no subcommand is given instead of printing the help', 'click-8.5.1/docs/commands-and-groups.md', 'By default, if a group is passed without a command, the group is not invoked', 'would go to a command\nnested under it.'),
    ('run several subcommands in a single invocation, like my-app validate build upload', 'click-8.5.1/docs/commands.md', 'It is useful to invoke more than one subcommand in one call.', 'pass `chain=True` when creating a group.'),
    ('open a database connection in the group and close it automatically after the subcommand finishes', 'click-8.5.1/docs/advanced.md', "Instead, use the context's {meth}`~click.Context.with_resource` method", "the context's resources are cleaned up."),
    ('stop click from calling sys.exit and swallowing exceptions when I run a command from my own code', 'click-8.5.1/docs/exceptions.md', 'Starting with Click 3.0 you can also use the {meth}`Command.main` method', 'disable the implicit {func}`sys.exit` at the end.'),
    ("keep my line breaks in a docstring example so the help output doesn't re-flow them", 'click-8.5.1/docs/documentation.md', "Sometimes Click's wrapping can be a problem, such as when showing code examples", 'The `\\b` is removed from the rendered help text.'),
    ('set up tab completion for my click program in bash or zsh', 'click-8.5.1/docs/shell-completion.md', 'To enable shell completion, the user needs to register a special function', 'The built-in shells are `bash`, `zsh`, `fish`, and `powershell`.'),
    ('my CLI is slow to start because every subcommand module is imported up front; how to import them only when needed', 'click-8.5.1/docs/complex.md', 'Large CLIs and CLIs with slow imports may benefit from deferring', 'is responsible for running imports.'),
    ('show a progress bar while looping over a list of items', 'click-8.5.1/docs/utils.md', 'To hook this up with an automatically updating progress bar', 'calculate the remaining time for you.'),
    ('unit test a command that asks for user input via a prompt', 'click-8.5.1/docs/testing.md', 'The test wrapper can provide input data for the input stream (stdin).', 'If hidden input is expected then this\ndoes not happen.'),
    ("let users type an abbreviated prefix of a subcommand name, e.g. 'pus' for 'push'", 'click-8.5.1/docs/extending-click.md', 'Many tools support aliases for commands.', '(so long as it was unique):'),
    ('click.edit() returns immediately with None when my editor is VS Code, how to make it wait?', 'click-8.5.1/docs/faqs.md', 'Setup your editor to make its launcher block until the window is closed', 'a small wrapper script that opens the editor and blocks until it exits.'),
    ('install my click script as a shell command via pyproject.toml', 'click-8.5.1/docs/entry-points.md', 'Contents of ``pyproject.toml``: ```toml [project]', 'with the function to call (the Click command).'),
    ('fix RuntimeError: Click will abort further execution because Python was configured to use ASCII', 'click-8.5.1/docs/unicode-support.md', 'You are dealing with an environment where Python thinks you are restricted to ASCII data.', 'You need to export the values before you invoke your Python script.'),
    ('What is the difference between ctx.invoke and ctx.forward?', 'click-8.5.1/docs/advanced.md', 'They work similarly, but the difference is that {func}`Context.invoke` merely', 'is passed onwards as you would expect.'),
    ('what directory does click.get_app_dir return on macOS, Linux and Windows, and what do roaming and force_posix do?', 'click-8.5.1/src/click/utils.py', 'Returns the config folder for the application.', "instead of the XDG config home or darwin's\n                        application support folder."),
    ('click.launch return value and what the locate parameter does', 'click-8.5.1/src/click/termui.py', 'This function launches the given URL (or filename) in the default', 'might have weird effects if the URL does not point to\n                   the filesystem.'),
    ('What does Option.get_help_spec return and how is it different from get_help_record?', 'click-8.5.1/src/click/core.py', "Returns the left column of the option's help record", '.. versionadded:: 8.5.1'),
    ('which attributes are available on the Result object returned by CliRunner.invoke', 'click-8.5.1/src/click/testing.py', 'Holds the captured result of an invoked CLI script.', '.. versionadded:: 8.0\n        Added ``return_value``.'),
    ('default date formats accepted by click.DateTime', 'click-8.5.1/src/click/types.py', 'The DateTime type converts date strings into `datetime` objects.', "``'%Y-%m-%dT%H:%M:%S'``, ``'%Y-%m-%d %H:%M:%S'``."),
    ('In which Click version was PowerShell tab completion added?', 'click-8.5.1/CHANGES.md', '## Version 8.5.0 Released 2026-08-24', 'the completion script. {issue}`2672` {pr}`3637`'),
    ('Fish shell completion broke after upgrading to 8.4.0 - which release fixed it?', 'click-8.5.1/CHANGES.md', '## Version 8.4.2 Released 2026-06-24', '{issue}`3043` {pr}`3504` {pr}`3508`'),
    ("get_parameter_source() doesn't work inside an eager callback in 8.4.0, was this fixed?", 'click-8.5.1/CHANGES.md', '## Version 8.4.1 Released 2026-05-21', 'conversion again. {issue}`3458` {pr}`3484`'),
    ('What changed about flag_value and default handling for flag options in 8.3.0?', 'click-8.5.1/CHANGES.md', '## Version 8.3.0 Released 2025-09-17', '{issue}`2610` {issue}`3024` {pr}`3030`'),
    ('Which Python versions did Click 8.2 stop supporting?', 'click-8.5.1/CHANGES.md', '## Version 8.2.0 Released 2025-05-10', '3.8, and 3.9. {pr}`2588` {pr}`2893`'),
    ('Group.resultcallback and the autocompletion parameter are gone - when were they removed and what replaces them?', 'click-8.5.1/CHANGES.md', '## Version 8.1.0 Released 2022-03-28', 'use `sys.argv[1:]` instead.'),
    ('My streaming generator view crashes with RuntimeError when it reads request.args - how do I keep the request around while the response streams?', 'flask-3.1.3/docs/patterns/streaming.rst', 'The :data:`~flask.request` will not be active while the generator', "yield '!</p>' return stream_with_context(generate())"),
    ('Flask behind nginx reverse proxy shows wrong client IP and http instead of https, how to trust X-Forwarded headers?', 'flask-3.1.3/docs/deploying/proxy_fix.rst', 'HTTP servers should set ``X-Forwarded-`` headers to pass on', 'if you get this configuration wrong.'),
    ("how to limit max upload file size in flask and what error do I get when it's too big", 'flask-3.1.3/docs/patterns/fileuploads.rst', 'By default Flask will happily accept file uploads', 'running the app with a production WSGI server.'),
    ('Setting a nested dict config value from an environment variable with FLASK_ prefix', 'flask-3.1.3/docs/config.rst', 'It is possible to set keys in nested dictionaries', 'would end up as ``MYAPI__CREDENTIALS__USERNAME``.'),
    ('pytest: put a user_id into the session before calling an endpoint, skipping the login view', 'flask-3.1.3/docs/testing.rst', 'If you want to access or set a value in the session *before* making a', 'assert response.json["username"] == "flask"'),
    ('make flask run dev server reload when non-Python files change, or exclude some files from the reloader', 'flask-3.1.3/docs/cli.rst', 'When using debug mode, the reloader will trigger', 'with the ``--exclude-patterns`` option.'),
    ('add the remote IP address and request URL to every log line in Flask', 'flask-3.1.3/docs/logging.rst', 'Seeing more information about the request, such as the IP address,', ') default_handler.setFormatter(formatter) mail_handler.setFormatter(formatter)'),
    ("register an error handler for a custom status code like 507 that werkzeug doesn't know", 'flask-3.1.3/docs/errorhandling.rst', 'Non-standard HTTP codes cannot be registered by code', 'handle_507) raise InsufficientStorage()'),
    ('How do I apply login_required or caching decorators to a class-based View?', 'flask-3.1.3/docs/views.rst', 'The view class itself is not the view function.', "login_required] app.add_url_rule('/users/', view_func=UserList.as_view())"),
    ('Flask session cookie: make it HTTPS only, hidden from JavaScript and SameSite Lax', 'flask-3.1.3/docs/web-security.rst', 'These options can be added to a ``Set-Cookie`` header', "secure=True, httponly=True, samesite='Lax')"),
    ('serve a React/Vue single page app build from Flask with a catch-all route for client-side routing', 'flask-3.1.3/docs/patterns/singlepageapplications.rst', 'Flask can be used to serve Single-Page Applications', 'def catch_all(path): return app.send_static_file("index.html")'),
    ('How do I load Flask config from a TOML file with app.config.from_file (binary mode)?', 'flask-3.1.3/src/flask/config.py', 'Update the values in the config from a file that is loaded', 'The ``text`` parameter was added.'),
    ('What does flask.jsonify return, and can I pass positional and keyword arguments together?', 'flask-3.1.3/src/flask/json/__init__.py', 'Serialize the given arguments as JSON, and return a', ':param kwargs: Treat as a dict to serialize.'),
    ('get_flashed_messages difference between with_categories and category_filter', 'flask-3.1.3/src/flask/helpers.py', 'Pulls all flashed messages from the session and returns them.', 'matching the provided categories.'),
    ('What happens if a before_request function returns a value instead of None?', 'flask-3.1.3/src/flask/sansio/scaffold.py', 'The function will be called without any arguments. If it returns', 'every request, use :meth:`.Blueprint.before_app_request`.'),
    ('flask __version__ deprecated - since which version and what should I use instead?', 'flask-3.1.3/CHANGES.rst', 'Version 3.0.0 ------------- Released 2023-09-30', '``importlib.metadata.version("flask")``, instead. :issue:`5230`'),
    ('Was the stream_with_context failure inside async views fixed, in which release?', 'flask-3.1.3/CHANGES.rst', 'Version 3.1.2 ------------- Released 2025-08-19', 'inside async views. :issue:`5774`'),
    ('Since which Flask version is the Vary: Cookie header set when the session is accessed?', 'flask-3.1.3/CHANGES.rst', 'Version 2.3.2 ------------- Released 2023-05-01', 'accessed, modified, or refreshed.'),
    ('attrs strips the leading underscore from private attribute in __init__ - how to keep _x or rename the constructor argument?', 'attrs-26.1.0/docs/init.md', 'If your taste differs, you can use the *alias* argument', 'distasteful_y: int, underscore1: int) -> None>'),
    ('FrozenInstanceError when setting a derived field in __attrs_post_init__ of a frozen attrs class', 'attrs-26.1.0/docs/init.md', "Please note that you can't directly set attributes on frozen classes:", '>>> Frozen(1) Frozen(x=1, y=2)'),
    ('attrs: do validators run before or after converters and defaults during __init__?', 'attrs-26.1.0/docs/init.md', 'If present, the hooks are executed in the following order:', 'have to return a valid value.'),
    ('copy a frozen attrs instance changing only one field', 'attrs-26.1.0/docs/examples.md', "In order to use them in regular program flow, you'll need", 'copy.replace(i, y=3) C(x=1, y=3)'),
    ('Does functools.cached_property work on attrs classes with slots?', 'attrs-26.1.0/docs/how-does-it-work.md', 'By default, the standard library {func}`functools.cached_property` decorator', 'implementation of `cached_property` in Python 3.12.'),
    ('attrs equality with numpy array fields - custom eq comparison function', 'attrs-26.1.0/docs/comparison.md', 'Additionally you can also pass a *callable* instead of a bool', 'an_array = field(eq=attrs.cmp_using(eq=numpy.array_equal))'),
    ('attrs asdict result with datetime is not JSON serializable - how to convert values during asdict?', 'attrs-26.1.0/docs/extending.md', 'To help you with this, {func}`~attrs.asdict` allows you to pass', '>>> json.dumps(data) \'{"dt": "2020-05-04T13:37:00"}\''),
    ('how to declare a class-level constant in an attrs class without it becoming a field', 'attrs-26.1.0/docs/types.md', 'The correct way to define a class variable is with', 'interlaced: int = 0'),
    ('Which strings does attrs.converters.to_bool accept as True and False?', 'attrs-26.1.0/src/attr/converters.py', 'Convert "boolean" strings (for example, from environment variables)', 'ValueError: For any other value.'),
    ('attrs.validators.deep_iterable parameters - can member_validator be a list of validators?', 'attrs-26.1.0/src/attr/validators.py', 'A validator that performs deep validation of an iterable.', 'can now be a list or tuple of validators.'),
    ('What does attrs.filters.exclude accept - types, field names, Attribute objects?', 'attrs-26.1.0/src/attr/filters.py', 'Create a filter that does **not** allow *what*.', 'Accept field name string as input argument'),
    ('What is the breaking change in attrs 26.1.0 regarding aliases in field_transformer?', 'attrs-26.1.0/CHANGELOG.md', '## [26.1.0](https://github.com/python-attrs/attrs/tree/26.1.0) - 2026-03-19 ### Backwards-incompatible Changes', 'explicitly set by the user (`False`).'),
    ('After upgrading attrs my subclass of a kw_only=True class fails with a positional argument error - what changed?', 'attrs-26.1.0/CHANGELOG.md', '## [25.4.0](https://github.com/python-attrs/attrs/tree/25.4.0) - 2025-10-06 ### Backwards-incompatible Changes', 'following another argument with defaults.'),
    ('Which attrs release added support for copy.replace() on instances?', 'attrs-26.1.0/CHANGELOG.md', '## [24.3.0](https://github.com/python-attrs/attrs/tree/24.3.0) - 2024-12-16 ### Backwards-incompatible Changes', 'support [`copy.replace()`](https://docs.python.org/3/library/copy.html#copy.replace). [#1383](https://github.com/python-attrs/attrs/issues/1383)'),
)


def files(src: Path) -> dict[str, Path]:
    """Document id (the file's path under ``src``, so its reader follows from it) → file."""
    found: dict[str, Path] = {}
    for project in PROJECTS:
        for pattern in PATTERNS:
            for path in sorted((src / project).glob(pattern)):
                found[path.relative_to(src).as_posix()] = path
    return found


def build(src: Path, dest: Path) -> int:
    sources = {name: path.read_text(encoding="utf-8") for name, path in files(src).items()}
    found = [(q, name, *find(sources[name], first, last)) for q, name, first, last in QUESTIONS]
    write_set(dest, sources, {name: detect_format(Path(name)) for name in sources}, found)
    return len(found)


if __name__ == "__main__":
    needed = {f"{p}/README.md": f"{p}/README.md" for p in PROJECTS}
    sys.exit(cli(None, __doc__, SOURCE, OUT, needed,
                 "pip download the sdists of click==8.5.1, flask==3.1.3 and attrs==26.1.0 and untar them",
                 build))
