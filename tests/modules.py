"""The service's own modules, as its checks must reach them: every `*.py` at the root and in its
packages (any folder of the root with an `__init__.py`, but the tests). The docs test, the ABI
selector walk and the layout test all walk this list, and each asserts MIN_MODULES, so a later
move cannot shrink their reach unnoticed."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MIN_MODULES = 53
"""Service modules when the layout moved into `chain/` and `adapters/` (16 at the root)."""


def packages() -> list[Path]:
    return sorted(path.parent for path in ROOT.glob("*/__init__.py") if path.parent.name != "tests")


def service_files() -> dict[str, Path]:
    """Every service module by its dotted name (a package by its own name), in name order."""
    files = {path.stem: path for path in ROOT.glob("*.py")}
    for package in packages():
        for path in package.rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return dict(sorted(files.items()))
