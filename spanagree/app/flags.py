"""The command line's parts on click: every flag made from its declaration, help in sections, and
one error style.

Every flag of every command is declared once in :mod:`spanagree.core.options` (its name, help,
type and the commands that have it), so a flag means the same wherever it shows; a command adds
only what differs for it: its choices of ``--output`` or ``--method``, and which flags it requires
(:func:`command`). ``--help`` lists the flags in sections (:data:`spanagree.core.options.GROUPS`):
reading, alignment, statistics, output, running, and the per-format reader options last. Every
error, click's own included, is one line ``spanagree: error: ...`` with exit code 2, and an
unknown command, flag or choice gets a "did you mean" (click is used directly, as spaCy installs
it: its options convert a value with a plain type; bench/RESULTS.md, start-up).
"""
from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import click

from ..core import options as declared
from ..core import progress
from ..core.sanitize import cut, visible
from ..errors import did_you_mean

#: click 8.5 and later list documented arguments in ``--help`` themselves.
_LISTS_ARGUMENTS = hasattr(click.Command, "format_arguments")
#: Paths as the commands take them: nothing checked here (the readers and check_outputs do).
PATH = click.Path(path_type=Path)
#: A declared option's type, as click converts the flag's value.
_TYPES = {str: click.STRING, int: click.INT, float: click.FLOAT, "path": PATH, "count": click.IntRange(0, 2**63 - 1)}
_TITLES = {"reading": "Reading", "alignment": "Alignment", "statistics": "Statistics", "output": "Output",
           "running": "Running", "format": "Reading: options of one format (docs/formats.md)"}


class CommandLineError(click.ClickException):
    """A usage error as every command words it: ``spanagree: error: ...``, exit code 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        text = visible(cut(self.format_message(), 2000), keep_newlines=True)
        click.echo(f"spanagree: error: {text}", err=True, file=file)


def _reworded(err: click.UsageError) -> CommandLineError:
    """click's usage error in the one style, naming the command and its ``--help``; an unknown
    choice gets a "did you mean"."""
    message = err.format_message()
    param = getattr(err, "param", None)
    if isinstance(err, click.BadParameter) and param is not None and isinstance(param.type, click.Choice):
        typed = re.search(r"'([^']*)' is not one of", message)
        given = typed.group(1) if typed else ""
        message += did_you_mean(given, list(param.type.choices))
    command = err.ctx.command_path if err.ctx is not None else "spanagree"
    return CommandLineError(f"{message} (see: {command} --help)")


class Argument(click.Argument):
    """A positional argument with a help text, listed under "Positional arguments" in ``--help``."""

    def __init__(self, *args: Any, help: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **({"help": help} if _LISTS_ARGUMENTS else {}), **kwargs)
        self.help = help


class Command(click.Command):
    """A command whose ``--help`` lists its flags by section, and whose usage errors read as
    every other error."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as err:
            raise _reworded(err) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as err:  # a value click converts late (a bad number, ...)
            raise _reworded(err) from None

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(param.make_metavar(ctx), param.help or "") for param in self.get_params(ctx)
                if isinstance(param, Argument) and param.help]
        if rows and not _LISTS_ARGUMENTS:
            with formatter.section("Positional arguments"):
                formatter.write_dl(rows)
        sections: dict[str, list[tuple[str, str]]] = {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx) if isinstance(param, click.Option) else None
            if record is not None:
                sections.setdefault(getattr(param, "group", "running"), []).append(record)
        for group in (*declared.GROUPS, *(g for g in sections if g not in declared.GROUPS)):
            if sections.get(group):
                with formatter.section(_TITLES.get(group, group.title())):
                    formatter.write_dl(sections[group])


class Group(click.Group):
    """The ``spanagree`` group: commands listed in the order they were added; an unknown command
    gets a "did you mean" and the one error style."""

    command_class = Command

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        name = args[0] if args else ""
        if name and not name.startswith("-") and name not in self.commands:
            raise CommandLineError(f"no such command {name!r}{did_you_mean(name, list(self.commands))}; "
                                   f"commands: {', '.join(self.commands)}")
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as err:
            raise _reworded(err) from None

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as err:
            raise _reworded(err) from None


class DeclaredOption(click.Option):
    """A click option made from a declaration; ``group`` is its ``--help`` section. A help text
    naming ``{formats}`` lists the formats when ``--help`` shows it, so that building the command
    line imports no reader."""

    def __init__(self, *args: Any, group: str, declaration: declared.Option, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.group, self.declaration = group, declaration

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        record = super().get_help_record(ctx)
        if record is None or "{formats}" not in record[1]:
            return record
        from ..io import formats

        return record[0], record[1].replace("{formats}", ", ".join(formats()))


@functools.lru_cache(maxsize=None)
def _option(option: declared.Option, *, choices: tuple[str, ...] | None, required: bool, config: bool) -> click.Option:
    """A declared option as a click option: its flag, default and help (with its config key when
    it has one). Values are checked once, by the declaration (in
    :func:`spanagree.app.config.load_settings` or the function the command calls), so the flag
    takes any value of its type; ``choices`` are the command's own, for ``--output`` and ``--method``.
    Made once for each way it is asked for, and shared by the commands that ask alike."""
    kind = option.cli_type or (str if option.default is None else type(option.default))
    help_text = option.help
    if option.choices and not all(c in help_text for c in option.choices):
        help_text += f" ({'|'.join(option.choices)})"
    if config and option.config:
        help_text += f" (config: {option.dotted})"
    names = [option.flag] + ([option.short] if option.short else [])
    common = dict(group=option.group, declaration=option, help=help_text, required=required)
    if kind is bool and option.default is not False:  # on, off (--no-...), or (None) left to the run
        names[0] = f"{option.flag}/--no-{option.flag[2:]}"
        return DeclaredOption([option.name, *names], default=option.default, **common)
    if kind is bool:
        return DeclaredOption([option.name, *names], is_flag=True, default=False, **common)
    scalar = isinstance(option.default, (str, int, float)) and not option.multiple
    click_type = click.Choice(list(choices)) if choices else _TYPES[kind]
    # no default at all when there is none: click 8.3 takes an explicit None as a value given
    default = {"default": option.default} if scalar else {}
    return DeclaredOption([option.name, *names], type=click_type, multiple=option.multiple,
                          show_default=scalar and not required, **default, **common)


def paths_argument(help: str, name: str = "paths"):
    """The annotation paths a command reads (one or more)."""
    return click.argument(name, nargs=-1, required=True, cls=Argument, help=help)


def command(group: click.Group, name: str, *, choices: Mapping[str, Sequence[str]] | None = None,
            required: Sequence[str] = (), overrides: bool = False) -> Callable:
    """Register ``name`` on ``group`` with every declared flag the declarations give it.

    The function is called with the click context and the values of its arguments and flags,
    by name (repeated values as lists). ``choices``: the command's choices of a flag
    (``{"output": ("table", "json")}``); ``required``: the flags it requires; ``overrides``: it
    also takes ``--section.key VALUE`` config overrides after its paths. Progress bars show on
    stderr unless ``--quiet``.
    """
    choices = dict(choices or {})
    reads_config = name in declared.READING
    params = [_option(o, choices=tuple(choices[o.name]) if o.name in choices else None, required=o.name in required,
                      config=reads_config)
              for o in declared.flags(name)]

    def register(function: Callable) -> click.Command:
        @functools.wraps(function)
        def callback(**values: Any) -> Any:
            with progress.shown(not values.get("quiet", False)):
                plain = {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}
                return function(click.get_current_context(), **plain)

        own = list(reversed(getattr(function, "__click_params__", [])))  # click's decorators: last first
        callback.__dict__.pop("__click_params__", None)  # copied by functools.wraps: given once, below
        settings = {"allow_extra_args": True, "ignore_unknown_options": True} if overrides else {}
        made = group.command(name, context_settings=settings, params=[*own, *params])(callback)
        made.declared = tuple(o.name for o in declared.flags(name))
        return made

    return register


def fail(err: BaseException) -> None:
    """Stop the command with ``err`` in the one error style (exit code 2)."""
    raise CommandLineError(str(err)) from None

