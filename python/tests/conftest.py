"""Shared fixtures: where the repository and the build are, the bundled recorded runs, and the `gpu`
marker, whose tests skip cleanly without a CUDA device."""

from __future__ import annotations

import os
import pathlib
import shutil

import pytest
import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
RECORDED = ROOT / "samples" / "recorded"


def build_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("NIMBLE_BUILD_DIR", ROOT / "build"))


def tool(name: str) -> pathlib.Path | None:
    """A command-line tool of the build, or None where this build has none."""
    path = build_dir() / "cli" / name
    return path if path.exists() else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def inception_db(tmp_path: pathlib.Path) -> pathlib.Path:
    """A copy of the bundled Inception-v3 run (H100, eager, with its op graph)."""
    copy = tmp_path / "inception_v3.db"
    shutil.copyfile(RECORDED / "inception_v3.db", copy)
    return copy


@pytest.fixture
def streams_db(tmp_path: pathlib.Path) -> pathlib.Path:
    """A copy of the bundled concurrent_streams run (a CUDA program recorded by injection)."""
    copy = tmp_path / "concurrent_streams.db"
    shutil.copyfile(RECORDED / "concurrent_streams.db", copy)
    return copy
