"""Reading `--pcg-*` options: the command line wins over the ini file."""

from __future__ import annotations

import shlex
from typing import Any

import pytest


def option_value(config: pytest.Config, dest: str) -> Any:
    """An option's value: the command line wins over the ini file; None when neither sets it."""
    value = config.getoption(dest, None)
    if value is None:
        ini = config.getini(dest)
        value = ini if ini not in (None, "", []) else None
    return value


def flag(config: pytest.Config, dest: str) -> bool:
    """A switch (``--pcg-rules``) set on the command line or in the ini file (``pcg_rules = true``)."""
    if config.getoption(dest, False):
        return True
    try:
        return bool(config.getini(dest))
    except ValueError:  # the plugin that declares the ini key is disabled (-p no:pcg_rules)
        return False


def settle_rootdir(config: pytest.Config, args: list[str]) -> None:
    """pytest picks its rootdir and ini file before any plugin's options are known (pytest-dev/pytest#8846): in
    ``--pcg-store PATH`` it then reads ``PATH`` as a test path, and an existing one moves the rootdir (and the run
    folder, the ini file, the node ids with it); ``--pcg-store=PATH`` does not. Called before the first conftest
    is loaded (``pytest_load_initial_conftests``), this makes the same choice again on the test paths as the
    complete parser reads them, and keeps it when it differs: every option's value, in either form, is a value.
    The ini file's ``addopts`` and ``--confcutdir`` follow the ini file chosen. A pytest whose internals differ is
    left as it chose."""
    from _pytest.config.findpaths import determine_setup

    ns = config.known_args_namespace
    try:
        rootpath, inipath, inicfg, ignored = determine_setup(
            inifile=ns.inifilename,
            override_ini=ns.override_ini,
            args=list(ns.file_or_dir or ()),
            rootdir_cmd_arg=ns.rootdir or None,
            invocation_dir=config.invocation_params.dir,
        )
    except (TypeError, AttributeError):  # another pytest's signature: nothing changed
        return
    if (rootpath, inipath) == (config.rootpath, config.inipath) or not hasattr(config, "_rootpath"):
        return
    derived_cut = str(config.inipath.parent if config.inipath is not None else config.rootpath)
    before = _addopts(config)
    config._rootpath, config._inipath, config._inicfg = rootpath, inipath, inicfg
    config._ignored_config_files = ignored
    config._inicache.clear()
    config._parser.extra_info.update(rootdir=str(rootpath), inifile=str(inipath))
    if ns.confcutdir == derived_cut:  # pytest's default (the ini file's folder, else the rootdir), not the user's
        ns.confcutdir = str(inipath.parent if inipath is not None else rootpath)
    after = _addopts(config)
    if before != after and args[: len(before)] == before:  # the ini file's addopts, as pytest put them first
        args[: len(before)] = after
        config.pluginmanager.consider_preparse(after, exclude_only=False)
        config._parser.parse_known_args(args, namespace=ns)


def _addopts(config: pytest.Config) -> list[str]:
    """The ``addopts`` of the ini file pytest read (what it put before the command line's arguments)."""
    try:
        value = config.getini("addopts")
    except ValueError:
        return []
    return shlex.split(value) if isinstance(value, str) else [str(v) for v in value or ()]
