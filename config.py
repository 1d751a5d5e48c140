"""Service settings: one dataclass whose field metadata feeds the CLI, the environment and --help.

Every setting has a command-line flag and an environment variable; the flag wins. Keeping them
in one place is what lets `./scripts/serve --help` list every setting without drift.
"""

from __future__ import annotations

import argparse
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import Field, dataclass, field, fields
from typing import Any
from urllib.parse import urlsplit


def _flag(value: str) -> bool:
    if value.strip().lower() in {"1", "true", "yes", "on"}:
        return True
    if value.strip().lower() in {"", "0", "false", "no", "off"}:
        return False
    raise ValueError(f"expected 1/0, true/false, yes/no or on/off, got {value!r}")


def _number(kind: type[int] | type[float], value: str) -> Any:
    """`value` as an int or a float, or the service's own message (not Python's `invalid literal`)."""
    try:
        return kind(value)
    except ValueError:
        raise ValueError(f"expected {'a whole number' if kind is int else 'a number'}, got {value!r}") from None


def _positive(kind: type[int] | type[float]) -> Callable[[str], Any]:
    def parse(value: str) -> Any:
        number = _number(kind, value)
        if not math.isfinite(number) or number <= 0:
            raise ValueError(f"must be greater than 0, got {value!r}")
        return number

    parse.__name__ = kind.__name__
    return parse


def _non_negative(kind: type[int] | type[float]) -> Callable[[str], Any]:
    def parse(value: str) -> Any:
        number = _number(kind, value)
        if not math.isfinite(number) or number < 0:
            raise ValueError(f"must be 0 or more, got {value!r}")
        return number

    parse.__name__ = kind.__name__
    return parse


def _port(value: str) -> int:
    number: int = _number(int, value)
    if not 0 <= number <= 65535:
        raise ValueError(f"must be between 0 and 65535, got {value!r}")
    return number


def _redis_url(value: str) -> str:
    """The URL may hold a password: the error names the schemes, never the value."""
    if value and urlsplit(value).scheme not in ("redis", "rediss", "unix"):
        raise ValueError("expected a redis://, rediss:// or unix:// URL")
    return value


def _index_url(value: str) -> str:
    """The URL may hold a password: the error names the form, never the value."""
    if not value:
        return value
    form = "expected a postgresql://user[:password]@host[:port]/database URL"
    try:
        parts = urlsplit(value)
        _ = parts.port  # a port that is no number raises here
    except ValueError:
        raise ValueError(form) from None
    if parts.scheme not in ("postgresql", "postgres") or not parts.hostname or len(parts.path) < 2:
        raise ValueError(form)
    return value


_ORIGIN = re.compile(r"https?://(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?")
"""An origin as a browser sends it: scheme, host and port, no path."""


def _origins(value: str) -> str:
    """Browser origins, comma-separated, or `*` for any; lower-cased, as browsers send them."""
    origins = [origin.strip().rstrip("/").lower() for origin in value.split(",") if origin.strip()]
    for origin in origins:
        if origin != "*" and not _ORIGIN.fullmatch(origin):
            raise ValueError(f"expected origins such as https://app.example.com, comma-separated, or *; got {origin!r}")
    return ",".join(origins)


def _choice(*choices: str) -> Callable[[str], str]:
    def parse(value: str) -> str:
        if value.strip().lower() not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}, got {value!r}")
        return value.strip().lower()

    parse.__name__ = "choice"
    return parse


def _setting(default: Any, env: str, parse: Callable[[str], Any], help: str) -> Any:
    return field(default=default, metadata={"env": env, "parse": parse, "help": help})


@dataclass(frozen=True)
class Settings:
    host: str = _setting("127.0.0.1", "HOST", str, "interface to listen on")
    port: int = _setting(8000, "PORT", _port, "TCP port to listen on (0 picks a free one)")
    keys_file: str = _setting("keys.env", "API_KEYS_FILE", str, "API keys file (env format, SHA-256 digests only)")
    keys_reload_interval: float = _setting(
        1.0,
        "KEYS_RELOAD_INTERVAL",
        _positive(float),
        "seconds between checks of the keys file for created or revoked keys",
    )
    rate_limit: int = _setting(100, "RATE_LIMIT", _positive(int), "requests each API key may make in any window")
    rate_window: int = _setting(60, "RATE_WINDOW", _positive(int), "rate-limit window in whole seconds")
    input_timeout: float = _setting(
        10.0, "INPUT_TIMEOUT", _positive(float), "time budget in seconds for resolving one input"
    )
    enable_introspection: bool = _setting(
        False, "ENABLE_INTROSPECTION", _flag, "allow GraphQL introspection queries (1 to enable)"
    )
    shutdown_timeout: float = _setting(
        30.0, "SHUTDOWN_TIMEOUT", _positive(float), "seconds in-flight requests get to finish after SIGTERM"
    )
    header_timeout: float = _setting(
        10.0, "HEADER_TIMEOUT", _positive(float), "seconds a request's headers may take to arrive (then 408)"
    )
    body_timeout: float = _setting(
        30.0, "BODY_TIMEOUT", _positive(float), "seconds a request's body may take to arrive (then 408)"
    )
    max_connections: int = _setting(
        1024, "MAX_CONNECTIONS", _positive(int), "open client connections at most (one more is answered 503)"
    )
    document_cache_size: int = _setting(
        1000,
        "DOCUMENT_CACHE_SIZE",
        _positive(int),
        "GraphQL documents whose parsed and validated form is kept (least recently used out first)",
    )
    addresses_file: str = _setting(
        "", "ADDRESSES_FILE", str, "JSON laid over the built-in contract addresses and price feeds"
    )
    multicall_max_calls: int = _setting(
        200, "MULTICALL_MAX_CALLS", _positive(int), "sub-calls per Multicall3 aggregate3 call"
    )
    logs_block_range: int = _setting(
        10_000, "LOGS_BLOCK_RANGE", _positive(int), "blocks per eth_getLogs query (narrowed when a node refuses)"
    )
    state_dir: str = _setting(
        "state", "STATE_DIR", str, "directory of the event index files (one SQLite file per chain)"
    )
    index_url: str = _setting(
        "",
        "INDEX_URL",
        _index_url,
        "keep the event index in this PostgreSQL database, shared by every replica using it "
        "(postgresql://user[:password]@host[:port]/database; SQLite files in STATE_DIR when unset)",
    )
    index_pool_size: int = _setting(
        10, "INDEX_POOL_SIZE", _positive(int), "connections to INDEX_URL's database at most, per process"
    )
    chain_cache_size: int = _setting(
        10_000, "CHAIN_CACHE_SIZE", _positive(int), "immutable chain facts (symbols, decimals...) kept in memory"
    )
    head_poll_seconds: float = _setting(
        1.0,
        "HEAD_POLL_SECONDS",
        _non_negative(float),
        "seconds between polls of a chain's newest block while requests use it, so that a request "
        "needs no round trip to pin its block (0: every request asks for the newest block itself)",
    )
    answer_cache_bytes: int = _setting(
        8 * 1024 * 1024,
        "ANSWER_CACHE_BYTES",
        _non_negative(int),
        "bytes of answers kept per input and block, so the same input at the same block is answered "
        "without RPC requests (0: none kept)",
    )
    rpc_connections: int = _setting(16, "RPC_CONNECTIONS", _positive(int), "open connections per RPC endpoint at most")
    metrics_port: int | None = _setting(
        None,
        "METRICS_PORT",
        _port,
        "serve Prometheus metrics at /metrics on this port, on the same host (off when unset; 0 picks a free one)",
    )
    redis_url: str = _setting(
        "",
        "REDIS_URL",
        _redis_url,
        "keep the rate limit in this Redis and share answers through it with every replica using it "
        "(redis://[:password@]host:port/db; in process when unset)",
    )
    redis_timeout: float = _setting(
        0.5,
        "REDIS_TIMEOUT",
        _positive(float),
        "seconds a rate-limit decision, or the lookup of a shared answer, may wait for Redis",
    )
    redis_unavailable: str = _setting(
        "fallback",
        "REDIS_UNAVAILABLE",
        _choice("fallback", "refuse"),
        "while Redis cannot decide: fallback (each replica limits alone) or refuse (503 with Retry-After)",
    )
    answer_share_ttl: int = _setting(
        300, "ANSWER_SHARE_TTL", _positive(int), "seconds an answer shared through Redis (REDIS_URL) stays there"
    )
    answer_share_max_bytes: int = _setting(
        512 * 1024,
        "ANSWER_SHARE_MAX_BYTES",
        _non_negative(int),
        "largest answer shared through Redis (REDIS_URL) with the other replicas; a larger one each "
        "replica keeps alone (0: none shared)",
    )
    cors_origins: str = _setting(
        "",
        "CORS_ORIGINS",
        _origins,
        "browser origins allowed to call the API (https://app.example.com, comma-separated, or * for any); "
        "others get no CORS headers (off when unset)",
    )
    rpc_max_response_bytes: int = _setting(
        16 * 1024 * 1024,
        "RPC_MAX_RESPONSE_BYTES",
        _positive(int),
        "largest RPC answer read (a larger batch is asked in halves)",
    )
    watches_per_key: int = _setting(
        100, "WATCHES_PER_KEY", _non_negative(int), "watches a key's name may have at once (0: no watches)"
    )
    webhooks_per_key: int = _setting(
        10, "WEBHOOKS_PER_KEY", _non_negative(int), "distinct webhook URLs a key's watches may post to"
    )
    webhook_hosts: str = _setting(
        "",
        "WEBHOOK_HOSTS",
        str,
        "host names webhook URLs may name, comma-separated (any public host when unset)",
    )
    webhook_allow_http: bool = _setting(
        False, "WEBHOOK_ALLOW_HTTP", _flag, "allow webhook URLs that are http, not https (1 to allow)"
    )
    webhook_allow_loopback: bool = _setting(
        False,
        "WEBHOOK_ALLOW_LOOPBACK",
        _flag,
        "allow webhooks to loopback addresses, for local use and tests (private and link-local ones never)",
    )
    webhook_retry_seconds: float = _setting(
        86400.0,
        "WEBHOOK_RETRY_SECONDS",
        _positive(float),
        "how long an event is retried after it was written before it counts as failed",
    )
    webhook_first_retry: float = _setting(
        5.0,
        "WEBHOOK_FIRST_RETRY",
        _positive(float),
        "seconds before an event's second attempt; each later wait doubles, an hour at most",
    )


class SettingError(ValueError):
    """A setting has a value it cannot take; the message names the setting."""


def _flag_name(setting: Field[Any]) -> str:
    return "--" + setting.name.replace("_", "-")


def add_arguments(
    parser: argparse.ArgumentParser, only: tuple[str, ...] | None = None, suppress_default: bool = False
) -> None:
    """Add a flag for every setting (or the named ones); unset flags leave room for the env.

    Subcommands pass `suppress_default` so that their unset flag does not erase a value the
    top-level parser already took.
    """
    for setting in fields(Settings):
        if only is not None and setting.name not in only:
            continue
        parser.add_argument(
            _flag_name(setting),
            dest=setting.name,
            default=argparse.SUPPRESS if suppress_default else None,
            metavar=setting.metadata["env"],
            help=f"{setting.metadata['help']} (env {setting.metadata['env']}, default {shown_default(setting)})",
        )


def shown_default(setting: Field[Any]) -> str:
    """A default as a user would type it: `0`/`1` for a switch, `unset` for none."""
    if isinstance(setting.default, bool):
        return str(int(setting.default))
    return "unset" if setting.default in (None, "") else str(setting.default)


def resolve(args: argparse.Namespace, environ: Mapping[str, str] = os.environ) -> Settings:
    """Settings from flags, then environment, then defaults; a bad value raises SettingError.
    One rule for every setting: an empty (or blank) value is no value, so `PORT=` in an env
    file means the default, as an absent line does (`RPC_URL_<chainId>` too, chain/rpc.py)."""
    values: dict[str, Any] = {}
    for setting in fields(Settings):
        raw, source = getattr(args, setting.name, None), _flag_name(setting)
        if raw is None or not raw.strip():
            raw, source = environ.get(setting.metadata["env"]), setting.metadata["env"]
        if raw is None or not raw.strip():
            continue
        try:
            values[setting.name] = setting.metadata["parse"](raw)
        except ValueError as exc:
            raise SettingError(f"{source}: {exc}") from None
    return Settings(**values)
