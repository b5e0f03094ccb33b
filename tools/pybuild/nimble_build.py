"""The PEP 517 backend of `pip install .`: scikit-build-core, after finding the PyTorch to build against.

The extension must link the libtorch of the environment the package is installed into. pip's build
isolation hides that environment's site-packages from the backend, so the backend asks the
environment's own interpreter (sys.executable, without pip's isolation variables) where torch's CMake
files are, and hands them to CMake through CMAKE_PREFIX_PATH. NIMBLE_TORCH_CMAKE_PREFIX overrides it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Optional

from scikit_build_core import build as _skbuild
from scikit_build_core.build import (  # noqa: F401  (the PEP 517 hooks this backend passes through)
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

_QUERY = "import torch; print(torch.utils.cmake_prefix_path)"


def _torch_cmake_prefix() -> str:
    explicit = os.environ.get("NIMBLE_TORCH_CMAKE_PREFIX")
    if explicit:
        return explicit
    try:
        import torch  # importable when pip runs with --no-build-isolation

        return torch.utils.cmake_prefix_path
    except ImportError:
        pass
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONNOUSERSITE", "PYTHONHOME")}
    found = subprocess.run([sys.executable, "-c", _QUERY], env=env, capture_output=True, text=True)
    if found.returncode == 0 and found.stdout.strip():
        return found.stdout.strip().splitlines()[-1]
    raise RuntimeError(
        f"nimble: PyTorch is not installed for {sys.executable}, and the extension is built against it: "
        "install torch first (pip install torch==2.11.0), or set NIMBLE_TORCH_CMAKE_PREFIX to the output of "
        f"`python -c '{_QUERY}'`"
    )


def _prepare_environment() -> None:
    prefix = _torch_cmake_prefix()
    paths = [prefix] + [p for p in os.environ.get("CMAKE_PREFIX_PATH", "").split(os.pathsep) if p]
    os.environ["CMAKE_PREFIX_PATH"] = os.pathsep.join(paths)
    # libtorch's CMake files look for the CUDA toolkit; the README's machines have it here.
    if shutil.which("nvcc") is None and os.path.exists("/usr/local/cuda/bin/nvcc"):
        os.environ["PATH"] = "/usr/local/cuda/bin" + os.pathsep + os.environ.get("PATH", "")


def build_wheel(wheel_directory: str, config_settings: Optional[dict] = None,
                metadata_directory: Optional[str] = None) -> str:
    _prepare_environment()
    return _skbuild.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory: str, config_settings: Optional[dict] = None,
                   metadata_directory: Optional[str] = None) -> str:
    _prepare_environment()
    return _skbuild.build_editable(wheel_directory, config_settings, metadata_directory)
