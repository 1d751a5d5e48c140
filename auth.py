"""API keys: the env-format keys file, the in-memory key set, and reading a key from headers.

A key is `pk_` + 64 lower-case hex characters from `secrets`; the file holds only its SHA-256
digest, four lines per key:

    KEY_<id>_NAME=ci
    KEY_<id>_SHA256=<64 hex>
    KEY_<id>_CREATED=2026-11-21T16:08:09Z
    KEY_<id>_REVOKED=

`<id>` is 12 random hex characters, unrelated to the key, so listing ids reveals nothing. Edits
are made line by line under an exclusive lock and written atomically, so comments survive and two
concurrent writers never lose each other's keys.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import logging
import os
import re
import secrets
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from multidict import CIMultiDictProxy

log = logging.getLogger("wallet_positions.auth")

KEY_RE = re.compile(r"pk_[0-9a-f]{64}")
LOGGED_KEY_RE = re.compile(r"pk_(?:(?:\\+[rnt]|\\+u[0-9a-f]{4}|\s)*[0-9a-f]){16,}", re.I)
"""What is redacted from logs: `pk_` and 16 or more hex digits in any case, line folds, escaped
newlines or control characters allowed between them. Wider than a valid key on purpose: a key
cut short, upper-cased or folded over two header lines is still mostly a key."""
NAME_RE = re.compile(r"[A-Za-z0-9._-]{1,64}")
_LINE_RE = re.compile(r"(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)")
_VAR_RE = re.compile(r"KEY_([0-9a-f]{12})_(NAME|SHA256|CREATED|REVOKED)")
_DIGEST_RE = re.compile(r"[0-9a-f]{64}")
_STAMP_RE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")

HEADER = (
    "# API keys of the wallet positions service: SHA-256 digests only, never a key.\n"
    "# Managed with `./scripts/serve keys create|rotate|list|revoke` (the binary: `keys ...`); four lines per key.\n"
)

MISSING_KEY = "Missing API key. Provide via x-api-key header or Authorization: Bearer <key>."
INVALID_KEY = "Invalid or revoked API key."
CONFLICTING_KEYS = "Conflicting API keys: the x-api-key and Authorization headers carry different keys. Send one key."
CONFLICTING_SAME_HEADER = "Conflicting API keys: several {header} headers carry different keys. Send one key."


class KeyFileError(Exception):
    """The keys file cannot be read as a keys file; the message names the line."""


class AuthError(Exception):
    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason
        """For `wp_auth_failures`: missing, conflicting, malformed or unknown (never the key)."""


@dataclass(frozen=True)
class KeyRecord:
    id: str
    name: str
    digest: str
    created: str
    revoked: str

    @property
    def active(self) -> bool:
        return not self.revoked


def digest_of(key: str) -> str:
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_keys(text: str, source: str) -> tuple[dict[str, KeyRecord], dict[str, int]]:
    """Key records by id, and the line index of each `KEY_<id>_REVOKED` for in-place edits."""
    fields: dict[str, dict[str, str]] = {}
    revoked_lines: dict[str, int] = {}
    for index, raw in enumerate(text.splitlines()):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{source}, line {index + 1}"
        match = _LINE_RE.fullmatch(line)
        if not match:
            raise KeyFileError(f"{where}: expected NAME=value")
        var = _VAR_RE.fullmatch(match.group(1))
        if not var:
            raise KeyFileError(f"{where}: unexpected variable {match.group(1)[:64]!r}")
        key_id, field = var.groups()
        if field in fields.setdefault(key_id, {}):
            raise KeyFileError(f"{where}: {match.group(1)} is set twice")
        fields[key_id][field] = _unquote(match.group(2).strip())
        if field == "REVOKED":
            revoked_lines[key_id] = index
    records = {key_id: _record(key_id, values, source) for key_id, values in fields.items()}
    digests = [r.digest for r in records.values()]
    if len(set(digests)) != len(digests):
        raise KeyFileError(f"{source}: two keys have the same digest")
    return records, revoked_lines


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _record(key_id: str, values: Mapping[str, str], source: str) -> KeyRecord:
    digest = values.get("SHA256", "")
    if not _DIGEST_RE.fullmatch(digest):
        raise KeyFileError(f"{source}: key {key_id} has no valid KEY_{key_id}_SHA256 (64 hex)")
    for field in ("CREATED", "REVOKED"):
        stamp = values.get(field, "")
        if stamp and not _STAMP_RE.fullmatch(stamp):
            raise KeyFileError(f"{source}: KEY_{key_id}_{field} is not a UTC time like 2026-01-31T12:00:00Z")
    return KeyRecord(key_id, values.get("NAME", ""), digest, values.get("CREATED", ""), values.get("REVOKED", ""))


def _read_text(path: Path) -> str:
    """The file's text; empty when it does not exist, KeyFileError when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        raise KeyFileError(f"{path}: cannot be read ({type(exc).__name__})") from None


def load_keys(path: str | Path) -> dict[str, KeyRecord]:
    """Records in the file; a missing file is an empty set, a corrupt one raises KeyFileError."""
    return parse_keys(_read_text(Path(path)), str(path))[0]


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[str]:
    """Hold the keys file's lock and yield its current text (empty when it does not exist)."""
    lock_fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
        yield _read_text(path)
    finally:
        os.close(lock_fd)


def _write_atomically(path: Path, text: str) -> None:
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def create_key(path: str | Path, name: str) -> tuple[str, KeyRecord]:
    """Append a new key to the file; returns the key (shown once) and its record. A name an
    active key holds is refused."""
    key, record, _ = _add_key(path, name, rotate=False)
    return key, record


def rotate_key(path: str | Path, name: str) -> tuple[str, KeyRecord, KeyRecord | None]:
    """Revoke the active key named `name`, if there is one, and create a new key of that name,
    in one write; returns the new key (shown once), its record and the revoked record. A client's
    key is replaced without a moment with two keys or none, and a command that makes a key of a
    name can be run twice (the README's quick start)."""
    return _add_key(path, name, rotate=True)


def _add_key(path: str | Path, name: str, rotate: bool) -> tuple[str, KeyRecord, KeyRecord | None]:
    """A new key named `name`, under the file's lock; the active key of that name is revoked in
    the same write when rotating, else it makes the name refused."""
    if not NAME_RE.fullmatch(name):
        raise ValueError("key name must be 1-64 characters of letters, digits, '.', '_' or '-'")
    path = Path(path)
    with _locked(path) as text:
        records, revoked_lines = parse_keys(text, str(path))
        holder = next((r for r in records.values() if r.active and r.name == name), None)
        if holder is not None:
            if not rotate:
                raise ValueError(
                    f"an active key is already named {name!r} (id {holder.id}); choose another "
                    f"name, revoke that key first, or replace it with `keys rotate {name}`"
                )
            holder = replace(holder, revoked=_now())
            text = _with_revoked(text, revoked_lines, holder)
        key, record = _new_key(records, name)
        _write_atomically(path, _appended(text, record))
    return key, record, holder


def _new_key(records: Mapping[str, KeyRecord], name: str) -> tuple[str, KeyRecord]:
    key = "pk_" + secrets.token_hex(32)
    key_id = secrets.token_hex(6)
    while key_id in records:
        key_id = secrets.token_hex(6)
    return key, KeyRecord(key_id, name, digest_of(key), _now(), "")


def _appended(text: str, record: KeyRecord) -> str:
    prefix = text if text else HEADER
    if prefix and not prefix.endswith("\n"):
        prefix += "\n"
    return prefix + record_lines(record)


def record_lines(record: KeyRecord) -> str:
    """A key's four lines in the keys file."""
    return (
        f"KEY_{record.id}_NAME={record.name}\n"
        f"KEY_{record.id}_SHA256={record.digest}\n"
        f"KEY_{record.id}_CREATED={record.created}\n"
        f"KEY_{record.id}_REVOKED={record.revoked}\n"
    )


def revoke_key(path: str | Path, key_id: str) -> tuple[KeyRecord, bool]:
    """Mark a key revoked; returns its record and whether this call revoked it."""
    path = Path(path)
    with _locked(path) as text:
        records, revoked_lines = parse_keys(text, str(path))
        record = records.get(key_id)
        if record is None:
            raise LookupError(f"no key with id {key_id[:64]!r} in {path}")
        if not record.active:
            return record, False
        record = replace(record, revoked=_now())
        _write_atomically(path, _with_revoked(text, revoked_lines, record))
    return record, True


def _with_revoked(text: str, revoked_lines: Mapping[str, int], record: KeyRecord) -> str:
    """The file's text with the record's REVOKED line set (in place, else appended)."""
    lines = text.splitlines()
    line = f"KEY_{record.id}_REVOKED={record.revoked}"
    if record.id in revoked_lines:
        lines[revoked_lines[record.id]] = line
    else:
        lines.append(line)
    return "\n".join(lines) + "\n"


def redact(text: str) -> str:
    """`text` with everything shaped like an API key (LOGGED_KEY_RE) replaced, for log lines."""
    return LOGGED_KEY_RE.sub("pk_[redacted]", text)


def has_credentials(headers: CIMultiDictProxy[str]) -> bool:
    return "x-api-key" in headers or "Authorization" in headers


def presented_key(headers: CIMultiDictProxy[str]) -> str:
    """The one key a request carries in `x-api-key` or `Authorization: Bearer`, or AuthError."""
    if "Authorization" not in headers:
        given = headers.getall("x-api-key", ())
        if len(given) == 1 and (key := given[0].strip()):
            return key
    from_header = {value.strip() for value in headers.getall("x-api-key", [])} - {""}
    bearer = set()
    for value in headers.getall("Authorization", []):
        scheme, _, token = value.strip().partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            bearer.add(token.strip())
    for header, keys in (("x-api-key", from_header), ("Authorization", bearer)):
        if len(keys) > 1:
            raise AuthError(CONFLICTING_SAME_HEADER.format(header=header), "conflicting")
    candidates = from_header | bearer
    if not candidates:
        raise AuthError(MISSING_KEY, "missing")
    if len(candidates) > 1:
        raise AuthError(CONFLICTING_KEYS, "conflicting")
    return candidates.pop()


Buckets = tuple[tuple[tuple[bytes, str], ...], ...]
"""The active keys' (digest, id) pairs by the first byte of the digest: 256 buckets."""


class KeyStore:
    """The active keys, held in memory as digests and refreshed when the file changes.

    A presented key's digest is compared in constant time (hmac.compare_digest) with every stored
    digest in its bucket, the stored digests that begin with the same byte as its own. The bucket
    searched depends on the presented key alone, never on a stored one, and the work per
    request stays small with thousands of keys (a scan of every stored digest cost 61 µs
    a request with 1,000 keys)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._buckets: Buckets = ((),) * 256
        self._stamp: tuple[int, int, int] | None = None
        self._names: dict[str, str] = {}

    def load(self) -> int:
        """Read the file now; raises KeyFileError, keeping the previous set, when it is corrupt."""
        stamp = self._file_stamp()
        records = load_keys(self.path)
        buckets: list[list[tuple[bytes, str]]] = [[] for _ in range(256)]
        for record in records.values():
            if record.active:
                digest = bytes.fromhex(record.digest)
                buckets[digest[0]].append((digest, record.id))
        self._buckets = tuple(tuple(bucket) for bucket in buckets)
        self._names = {record.id: record.name or record.id for record in records.values() if record.active}
        self._stamp = stamp
        return self.count

    def name(self, key_id: str) -> str:
        """The name of a key (its id where it has none): what a key's watches belong to, so that a
        rotated key keeps them."""
        return self._names.get(key_id, key_id)

    def active_names(self) -> set[str]:
        """The names some active key holds: a watch of another name (its key revoked, not rotated)
        is not evaluated (what it wrote before is still sent)."""
        return set(self._names.values())

    @property
    def count(self) -> int:
        """How many active keys are held."""
        return sum(map(len, self._buckets))

    def refresh(self) -> None:
        """Reload when the file changed since the last load. A corrupt or vanished file is
        logged as an error and not used (the last good set stays); an emptied one applies, with
        a warning, since revoking every key is something an operator may mean."""
        stamp = self._file_stamp()
        if stamp == self._stamp:
            return
        if stamp is None:
            self._stamp = stamp
            log.error("keys file %s has disappeared; keeping the last good set of %d keys", self.path, self.count)
            return
        try:
            count = self.load()
        except KeyFileError as exc:
            self._stamp = stamp
            log.error("keys file is corrupt; keeping the last good set of keys: %s", exc)
            return
        if count == 0:
            log.warning("keys file %s reloaded with no active keys: every request now gets 401", self.path)
        else:
            log.info("keys file reloaded: %d active keys", count)

    def _file_stamp(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def identify(self, headers: CIMultiDictProxy[str]) -> str:
        """The id of the active key the request carries, or AuthError with the client message."""
        key = presented_key(headers)
        if not KEY_RE.fullmatch(key):
            raise AuthError(INVALID_KEY, "malformed")
        digest = hashlib.sha256(key.encode("ascii")).digest()
        found = self._find(digest)
        if found is None:
            # A key is usable the moment `keys create` returns, not at the next periodic check:
            # a key not held re-reads the file if it changed (one stat when it did not).
            self.refresh()
            found = self._find(digest)
        if found is None:
            raise AuthError(INVALID_KEY, "unknown")
        return found

    def _find(self, digest: bytes) -> str | None:
        found = None
        for stored, key_id in self._buckets[digest[0]]:
            if hmac.compare_digest(stored, digest):
                found = key_id
        return found
