"""Nimble: find and remove what keeps a GPU idle during low-latency inference.

The three-line start::

    import nimble
    fast = nimble.accelerate(model, (x,))   # ahead-of-time multi-stream CUDA graph, outputs checked
    y = fast(x)                             # one graph replay; fast.report has measured vs predicted

``nimble.profile`` and ``nimble.open`` report where the GPU idles (active ratio, idle time by cause,
critical path, logical concurrency, the optimal stream assignment and the predicted speedups);
``torch.compile(model, backend="nimble")`` uses the same capture. ``nimble.import_trace`` reads
torch.profiler and Nsight Systems traces, ``nimble.export_chrome`` writes Perfetto JSON, and
``nimble.diff`` compares two runs with a regression gate. Every call runs the same C++ workflows as the
command-line tools, with the same messages in its exceptions. ``nimble.accelerate_training`` captures a
whole training step (forward on the assignment's streams, backward, optimizer update) into one CUDA graph;
its stream assignment comes from the same C++ plan step.
"""

import torch  # libtorch must be loaded before the extension that links it

from . import _build_info

if torch.__version__ != _build_info.TORCH_VERSION:
    raise ImportError(
        f"nimble {_build_info.VERSION} was built against torch {_build_info.TORCH_VERSION}, but this "
        f"environment has torch {torch.__version__}: rebuild it here (pip install . from the nimble clone)"
    )

from . import _C  # noqa: E402
from ._accelerate import AcceleratedModule, AccelerateReport, ModeReport, accelerate, load  # noqa: E402
from . import _dynamo  # noqa: E402
from ._dynamo import backend  # noqa: E402
from ._progress import NimbleWarning, ProgressUpdate  # noqa: E402
from ._report import ProfileReport, Report, open, open_all, profile  # noqa: E402
from ._interop import RunDiff, calibrate, diff, export_chrome, import_trace  # noqa: E402
from ._training import TrainingReport, TrainingStep, accelerate_training  # noqa: E402

__version__: str = _build_info.VERSION

_dynamo._register()

# nimble.open is public but not in __all__, so that `from nimble import *` keeps the built-in open.
__all__ = [
    "AcceleratedModule",
    "AccelerateReport",
    "ModeReport",
    "NimbleWarning",
    "ProfileReport",
    "ProgressUpdate",
    "Report",
    "RunDiff",
    "TrainingReport",
    "TrainingStep",
    "accelerate",
    "accelerate_training",
    "backend",
    "calibrate",
    "diff",
    "export_chrome",
    "import_trace",
    "load",
    "open_all",
    "profile",
]
