"""Key management from the CLI, the keys file format, and live reload in a running app."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import fields
from pathlib import Path

import pytest

import auth
import server
from config import Settings
from tests.conftest import position_input

SERVER = Path(__file__).resolve().parents[1] / "server.py"


def cli(*args: str, keys_file: Path | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, str(SERVER), *args]
    if keys_file is not None:
        command += ["--keys-file", str(keys_file)]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=keys_file.parent if keys_file and keys_file.parent.exists() else None,
    )


def test_create_prints_only_the_key_on_stdout(keys_file):
    done = cli("keys", "create", "--name", "ci", keys_file=keys_file)
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"pk_[0-9a-f]{64}\n", done.stdout)
    key = done.stdout.strip()
    assert "created key" in done.stderr and key not in done.stderr
    text = keys_file.read_text()
    assert key not in text and auth.digest_of(key) in text
    assert keys_file.stat().st_mode & 0o777 == 0o600
    (record,) = auth.load_keys(keys_file).values()
    assert record.name == "ci" and record.active and re.fullmatch(r"\d{4}-.*Z", record.created)


def test_keys_file_comes_from_the_environment(tmp_path):
    target = tmp_path / "elsewhere.env"
    done = subprocess.run(
        [sys.executable, str(SERVER), "keys", "create", "--name", "env"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        env={**os.environ, "API_KEYS_FILE": str(target)},
    )
    assert done.returncode == 0, done.stderr
    assert len(auth.load_keys(target)) == 1


def test_default_keys_file_is_keys_env_in_the_working_directory(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "API_KEYS_FILE"}
    done = subprocess.run(
        [sys.executable, str(SERVER), "keys", "create", "--name", "cwd"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert len(auth.load_keys(tmp_path / "keys.env")) == 1


def test_list_shows_metadata_but_never_a_key_or_digest(keys_file):
    key = cli("keys", "create", "--name", "alpha", keys_file=keys_file).stdout.strip()
    cli("keys", "create", "--name", "beta", keys_file=keys_file)
    done = cli("keys", "list", keys_file=keys_file)
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["ID", "NAME", "CREATED", "REVOKED"]
    assert [line.split()[1] for line in lines[1:]] == ["alpha", "beta"]
    assert key not in done.stdout and auth.digest_of(key) not in done.stdout
    assert not re.search(r"[0-9a-f]{32}", done.stdout)


def test_revoke_marks_the_key_and_is_idempotent(keys_file):
    cli("keys", "create", "--name", "gone", keys_file=keys_file)
    (record,) = auth.load_keys(keys_file).values()
    done = cli("keys", "revoke", record.id, keys_file=keys_file)
    assert done.returncode == 0 and "revoked at" in done.stderr
    (after,) = auth.load_keys(keys_file).values()
    assert not after.active
    again = cli("keys", "revoke", record.id, keys_file=keys_file)
    assert again.returncode == 0 and "already revoked" in again.stderr
    listing = cli("keys", "list", keys_file=keys_file).stdout
    assert after.revoked in listing


def test_revoking_an_unknown_id_fails_clearly(keys_file):
    cli("keys", "create", "--name", "x", keys_file=keys_file)
    done = cli("keys", "revoke", "000000000000", keys_file=keys_file)
    assert done.returncode == 1
    assert "no key with id '000000000000'" in done.stderr


@pytest.mark.parametrize("name", ["", "has space", 'quote"d', "x" * 65, "new\nline"])
def test_bad_names_are_refused(keys_file, name):
    done = cli("keys", "create", "--name", name, keys_file=keys_file)
    assert done.returncode == 1 and "key name must be" in done.stderr
    assert done.stdout == ""
    assert not keys_file.exists()


def test_concurrent_creates_never_lose_a_key(keys_file):
    with ThreadPoolExecutor(max_workers=8) as pool:
        runs = list(pool.map(lambda i: cli("keys", "create", "--name", f"k{i}", keys_file=keys_file), range(8)))
    keys = [run.stdout.strip() for run in runs]
    assert all(run.returncode == 0 for run in runs), [run.stderr for run in runs]
    digests = {record.digest for record in auth.load_keys(keys_file).values()}
    assert digests == {auth.digest_of(key) for key in keys}
    assert len(digests) == 8


def test_edits_keep_comments_and_unrelated_lines(keys_file):
    keys_file.write_text("# operator note: rotate quarterly\n")
    auth.create_key(keys_file, "one")
    (record,) = auth.load_keys(keys_file).values()
    auth.revoke_key(keys_file, record.id)
    auth.create_key(keys_file, "two")
    text = keys_file.read_text()
    assert text.startswith("# operator note: rotate quarterly\n")
    assert len(auth.load_keys(keys_file)) == 2


def test_unwritable_keys_file_is_a_clear_error(tmp_path):
    done = cli("keys", "create", "--name", "x", keys_file=tmp_path / "missing" / "keys.env")
    assert done.returncode == 1
    assert done.stderr.startswith("error: cannot use the keys file") and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "flag, value",
    [
        ("--input-timeout", "nan"),
        ("--rate-limit", "0"),
        ("--port", "70000"),
        ("--enable-introspection", "maybe"),
        ("--document-cache-size", "0"),
        ("--document-cache-size", "many"),
        ("--metrics-port", "99999"),
        ("--redis-timeout", "0"),
        ("--redis-unavailable", "maybe"),
        ("--redis-url", "http://cache:6379"),
        ("--cors-origins", "example.com"),
    ],
)
def test_bad_settings_exit_2_naming_the_setting(flag, value, capsys):
    import server

    assert server.main([flag, value]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: {flag}: ") and "invalid literal" not in error and "could not convert" not in error


@pytest.mark.parametrize(
    "variable, value, message",
    [
        ("PORT", "abc", "expected a whole number, got 'abc'"),
        ("RATE_LIMIT", "1.5", "expected a whole number, got '1.5'"),
        ("INPUT_TIMEOUT", "soon", "expected a number, got 'soon'"),
        ("METRICS_PORT", "-1", "must be between 0 and 65535, got '-1'"),
    ],
)
def test_a_bad_setting_from_the_environment_gets_the_services_own_message(
    variable, value, message, capsys, monkeypatch
):
    import server

    monkeypatch.setenv(variable, value)
    assert server.main([]) == 2
    assert capsys.readouterr().err == f"error: {variable}: {message}\n"


def test_a_bad_redis_url_is_named_never_shown(capsys, monkeypatch):
    """A Redis URL may carry a password: the error names the setting and the schemes only."""
    import server

    monkeypatch.setenv("REDIS_URL", "https://:s3cret@cache:6379/0")
    assert server.main([]) == 2
    error = capsys.readouterr().err
    assert error == "error: REDIS_URL: expected a redis://, rediss:// or unix:// URL\n"


def test_corrupt_file_is_not_overwritten_by_create(keys_file):
    keys_file.write_text("KEY_abc=oops\n")
    done = cli("keys", "create", "--name", "x", keys_file=keys_file)
    assert done.returncode == 1 and "line 1" in done.stderr
    assert keys_file.read_text() == "KEY_abc=oops\n"


@pytest.mark.parametrize(
    "text, problem",
    [
        ("garbage\n", "line 1: expected NAME=value"),
        ("OTHER=1\n", "unexpected variable 'OTHER'"),
        ("KEY_0123456789ab_SHA256=xyz\n", "no valid KEY_0123456789ab_SHA256"),
        ("KEY_0123456789ab_NAME=a\nKEY_0123456789ab_NAME=b\n", "line 2: KEY_0123456789ab_NAME is set twice"),
        ("KEY_0123456789ab_SHA256=" + "a" * 64 + "\nKEY_0123456789ab_CREATED=yesterday\n", "not a UTC time"),
    ],
)
def test_corrupt_file_errors_name_the_problem(keys_file, text, problem):
    keys_file.write_text(text)
    with pytest.raises(auth.KeyFileError, match=re.escape(problem)):
        auth.load_keys(keys_file)


def test_quoted_values_and_export_prefix_are_accepted(keys_file):
    digest = "b" * 64
    keys_file.write_text(f"export KEY_0123456789ab_NAME=\"quoted\"\nKEY_0123456789ab_SHA256='{digest}'\n")
    (record,) = auth.load_keys(keys_file).values()
    assert (record.name, record.digest) == ("quoted", digest)


def test_corrupt_file_at_startup_exits_non_zero(keys_file):
    keys_file.write_text("this is not an env file\n")
    done = cli("--port", "0", keys_file=keys_file)
    assert done.returncode == 1
    assert "keys file is corrupt" in done.stderr and "line 1" in done.stderr


async def wait_for_status(api, expected: int, key: str, within: float = 2.0) -> int:
    """Poll until the status is `expected` or `within` seconds pass; returns the last status."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        status = (await api.positions(position_input(), key=key)).status
        if status == expected or loop.time() > deadline:
            return status
        await asyncio.sleep(0.05)


async def test_running_app_sees_created_and_revoked_keys_within_two_seconds(make_api, keys_file):
    api = await make_api()
    new_key, record = auth.create_key(keys_file, "late")
    assert await wait_for_status(api, 200, new_key) == 200
    auth.revoke_key(keys_file, record.id)
    assert await wait_for_status(api, 401, new_key) == 401


async def test_corrupt_file_at_reload_keeps_the_last_good_set(make_api, keys_file, caplog):
    caplog.set_level(logging.ERROR, logger="wallet_positions.auth")
    api = await make_api()
    good = keys_file.read_text()
    keys_file.write_text(good + "half-written line\n")
    await asyncio.sleep(1.5)
    assert (await api.positions(position_input())).status == 200
    assert any("keys file is corrupt" in r.getMessage() for r in caplog.records)
    keys_file.write_text(good)
    new_key = auth.create_key(keys_file, "after-fix")[0]
    assert await wait_for_status(api, 200, new_key) == 200


async def test_a_keys_file_that_disappears_keeps_the_last_good_set_and_an_emptied_one_applies(
    make_api, keys_file, caplog
):
    caplog.set_level(logging.INFO, logger="wallet_positions.auth")
    api = await make_api()
    good = keys_file.read_text()
    keys_file.unlink()
    await asyncio.sleep(1.5)
    assert (await api.positions(position_input())).status == 200, "nobody is locked out by a vanished file"
    assert any(r.levelno == logging.ERROR and "has disappeared" in r.getMessage() for r in caplog.records)
    keys_file.write_text(good)
    await asyncio.sleep(1.5)
    assert (await api.positions(position_input())).status == 200
    keys_file.write_text(auth.HEADER)
    assert await wait_for_status(api, 401, api.key) == 401, "an emptied file is applied"
    assert any(r.levelno == logging.WARNING and "no active keys" in r.getMessage() for r in caplog.records)


def test_a_name_held_by_an_active_key_is_refused(keys_file):
    _key, record = auth.create_key(keys_file, "ci")
    with pytest.raises(ValueError, match="an active key is already named 'ci'"):
        auth.create_key(keys_file, "ci")
    done = cli("keys", "create", "--name", "ci", keys_file=keys_file)
    assert done.returncode == 1 and "already named" in done.stderr and done.stdout == ""
    assert "replace it with `keys rotate ci`" in done.stderr
    auth.revoke_key(keys_file, record.id)
    assert auth.create_key(keys_file, "ci")[1].name == "ci", "a revoked key's name is free again"


def test_cli_usage_errors_exit_2(keys_file):
    assert cli("keys", "frobnicate", keys_file=keys_file).returncode == 2
    assert cli("keys", "create", keys_file=keys_file).returncode == 2, "--name is required"


async def test_a_key_is_usable_the_moment_it_is_created(make_api, keys_file):
    """No wait for the periodic check: an unknown key re-reads a changed file before it is refused."""
    api = await make_api(keys_reload_interval=3600)
    new_key, record = auth.create_key(keys_file, "fresh")
    assert (await api.positions(position_input(), key=new_key)).status == 200
    auth.revoke_key(keys_file, record.id)
    assert (await api.positions(position_input(), key=new_key)).status == 200, "a revocation waits for the check"
    assert (await api.positions(position_input(), key="pk_" + "0" * 64)).status == 401


def test_rotate_replaces_the_active_key_of_a_name_and_can_run_twice(keys_file):
    first = cli("keys", "rotate", "local", keys_file=keys_file)
    assert first.returncode == 0, first.stderr
    assert re.fullmatch(r"pk_[0-9a-f]{64}\n", first.stdout) and "no active key was named local" in first.stderr
    second = cli("keys", "rotate", "local", keys_file=keys_file)
    assert second.returncode == 0 and re.fullmatch(r"pk_[0-9a-f]{64}\n", second.stdout)
    records = list(auth.load_keys(keys_file).values())
    assert [r.name for r in records] == ["local", "local"]
    assert not records[0].active and records[1].active, "the earlier key is revoked, the new one active"
    assert records[1].digest == auth.digest_of(second.stdout.strip())
    assert f"revoked key {records[0].id}" in second.stderr and second.stdout.strip() not in second.stderr
    held = auth.KeyStore(keys_file)
    held.load()
    assert held.count == 1


def test_rotate_refuses_a_bad_name(keys_file):
    done = cli("keys", "rotate", "no spaces", keys_file=keys_file)
    assert done.returncode == 1 and "key name must be" in done.stderr and done.stdout == ""
    assert cli("keys", "rotate", keys_file=keys_file).returncode == 2, "the name is required"


def test_a_server_without_keys_says_the_command_that_makes_one(tmp_path, caplog):
    """The warning names a command that works pasted into a fresh shell (the dependencies are in
    .venv, not on the shell's python)."""
    caplog.set_level(logging.WARNING, logger="wallet_positions")
    server.create_app(Settings(keys_file=str(tmp_path / "none.env"), state_dir=str(tmp_path / "state")))
    (warning,) = [r.getMessage() for r in caplog.records if "no active API keys" in r.getMessage()]
    assert "`./scripts/serve keys create --name NAME`" in warning


@pytest.mark.parametrize("setting", fields(Settings), ids=lambda setting: setting.metadata["env"])
@pytest.mark.parametrize("empty", ["", "  "])
def test_an_empty_setting_is_an_unset_one(setting, empty):
    """One rule for every setting: `NAME=` in the environment (an env file's empty line) or an
    empty flag is the default, never an error or an empty value taken as given."""
    from config import resolve

    unset = resolve(argparse.Namespace(), {})
    assert getattr(resolve(argparse.Namespace(), {setting.metadata["env"]: empty}), setting.name) == getattr(
        unset, setting.name
    )
    flag = argparse.Namespace(**{setting.name: empty})
    assert getattr(resolve(flag, {}), setting.name) == getattr(unset, setting.name)


def test_an_empty_keys_file_setting_serves_with_the_default_file(tmp_path, monkeypatch):
    """API_KEYS_FILE= once read as the working directory ("the keys file is corrupt: .")."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("API_KEYS_FILE", "")
    assert cli("keys", "create", "--name", "empty").returncode == 0
    assert "KEY_" in (tmp_path / "keys.env").read_text()
