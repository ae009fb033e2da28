"""The command line's parts on click: the declared options as flags, arguments with a help text,
and the group that lists its commands in the order they were added.

The flags of the commands that read and score are made from the declarations in
:mod:`spanagree.core.options` (:func:`declared_option`, :func:`with_declared`), once per option,
and shared by the commands. click is used directly (spaCy installs it): its options convert a
value with a plain type, where Typer 0.29 builds a pydantic adapter per option when a command
runs (bench/RESULTS.md, start-up).
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Sequence

import click

from ..core import options as declared
from ..core import progress
from ..io import formats

#: click 8.5 and later list documented arguments in ``--help`` themselves.
_LISTS_ARGUMENTS = hasattr(click.Command, "format_arguments")
#: Paths as the commands take them: nothing checked here (the readers and check_outputs do).
PATH = click.Path(path_type=Path)
#: A declared option's type, as click converts the flag's value.
_TYPES = {str: click.STRING, int: click.INT, float: click.FLOAT}
_MADE: dict[tuple[str, bool], click.Option] = {}


class Argument(click.Argument):
    """A positional argument with a help text, listed under "Positional arguments" in ``--help``."""

    def __init__(self, *args: Any, help: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **({"help": help} if _LISTS_ARGUMENTS else {}), **kwargs)
        self.help = help


class Command(click.Command):
    """A command whose ``--help`` lists its arguments with their help (before click 8.5 too)."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(param.make_metavar(ctx), param.help or "") for param in self.get_params(ctx)
                if isinstance(param, Argument) and param.help]
        if rows and not _LISTS_ARGUMENTS:
            with formatter.section("Positional arguments"):
                formatter.write_dl(rows)
        super().format_options(ctx, formatter)


class Group(click.Group):
    """A group of :class:`Command`, listed in ``--help`` in the order they were added, not sorted."""

    command_class = Command

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)


def paths_argument(help: str, name: str = "paths"):
    """The annotation paths a command reads (one or more)."""
    return click.argument(name, nargs=-1, required=True, cls=Argument, help=help)


def declared_option(option: declared.Option, *, config: bool) -> click.Option:
    """A declared option as a click option: its flag, default and help (with its choices, and
    its config key when the command reads a config), made once and shared by the commands. Values
    are checked once, by the declaration (in :func:`spanagree.app.config.load_settings`, or by the
    function the command calls), so the flag itself takes any value of its type."""
    if (option.name, config) not in _MADE:
        _MADE[option.name, config] = _make_option(option, config=config)
    return _MADE[option.name, config]


def _make_option(option: declared.Option, *, config: bool) -> click.Option:
    kind = option.cli_type or (str if option.default is None else type(option.default))
    scalar = isinstance(option.default, (str, int, float, bool))  # a list's flag is a comma-separated string
    help_text = option.help.replace("{formats}", ", ".join(formats())) if "{formats}" in option.help else option.help
    if option.choices and not all(c in help_text for c in option.choices):
        help_text += f" ({'|'.join(option.choices)})"
    if config:
        help_text += f" (config: {option.dotted})"
    names = [option.flag] + ([option.short] if option.short else [])
    default = option.default if scalar else None
    if kind is bool and option.default is None:  # three states: on, off (--no-...), or left to the run
        names[0] = f"{option.flag}/--no-{option.flag[2:]}"
        return click.Option([option.name, *names], default=None, help=help_text)
    if kind is bool:
        return click.Option([option.name, *names], is_flag=True, default=default, help=help_text)
    return click.Option([option.name, *names], type=_TYPES[kind], default=default, help=help_text)


def with_declared(selected: Sequence[declared.Option], *, config: bool = True):
    """Give a command the flags of the ``selected`` declared options (after its own parameters,
    and not those it declares itself). The command is called with the click context first, then
    its own parameters (repeated values as lists); it reads the declared ones from ``ctx.params``;
    their names are kept as ``command.declared``. Progress bars show on stderr unless ``--quiet``."""

    def decorate(command):
        own_params = list(getattr(command, "__click_params__", []))  # click's decorators: last first
        own = {p.name for p in own_params}
        added = [declared_option(o, config=config) for o in selected if o.name not in own]
        names = {p.name for p in added}

        @functools.wraps(command)
        def wrapper(**kwargs):
            with progress.shown(not kwargs.get("quiet", False)):
                own_values = {k: list(v) if isinstance(v, tuple) else v for k, v in kwargs.items() if k not in names}
                return command(click.get_current_context(), **own_values)

        wrapper.__click_params__ = [*reversed(added), *own_params]  # read last first: own, then declared
        wrapper.declared = tuple(sorted(names))
        return wrapper

    return decorate
