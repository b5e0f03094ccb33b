"""Example inputs as users give them, and models as the C++ workflows read them (a TorchScript file)."""

from __future__ import annotations

import contextlib
import os
import warnings
from typing import Any, List, Optional, Sequence, Tuple, Union

import torch
from torch.utils import _pytree as pytree

Inputs = Union[torch.Tensor, Sequence[torch.Tensor]]
ModelArg = Union[torch.nn.Module, "torch.export.ExportedProgram", str, "os.PathLike[str]"]

# The dtypes the ahead-of-time front end takes, by the name its --input uses.
DTYPE_NAMES = {
    torch.float32: "float32",
    torch.float16: "float16",
    torch.bfloat16: "bfloat16",
    torch.int64: "int64",
    torch.int32: "int32",
    torch.bool: "bool",
}
SUPPORTED_DTYPES = tuple(DTYPE_NAMES)


def as_tuple(example_inputs: Inputs, what: str) -> Tuple[torch.Tensor, ...]:
    """One tensor per forward argument; TypeError for anything else, ValueError for an empty tuple or a
    dtype the front end does not take."""
    if isinstance(example_inputs, torch.Tensor):
        items: Tuple[Any, ...] = (example_inputs,)
    elif isinstance(example_inputs, (tuple, list)):
        items = tuple(example_inputs)
    else:
        raise TypeError(
            f"{what}: example_inputs must be a tensor or a tuple of tensors, got {type(example_inputs).__name__}"
        )
    if not items:
        raise ValueError(f"{what}: example_inputs is empty: give one tensor per forward argument")
    for i, t in enumerate(items):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{what}: input {i} is {type(t).__name__}, not a tensor")
        if t.dtype not in SUPPORTED_DTYPES:
            raise ValueError(f"{what}: input {i} is {str(t.dtype).replace('torch.', '')}; Nimble captures "
                             f"{', '.join(DTYPE_NAMES.values())} inputs")
        if t.dim() == 0:
            raise ValueError(f"{what}: input {i} is a scalar tensor; give tensors with at least one dimension")
    return items


def memory_format(value: "str | torch.memory_format", what: str) -> str:
    """The front end's name for a convolution layout: "auto", "contiguous", "channels_last" or
    "measure", the two layouts also given as torch.contiguous_format or torch.channels_last."""
    names = {torch.contiguous_format: "contiguous", torch.channels_last: "channels_last"}
    if isinstance(value, torch.memory_format) and value in names:
        return names[value]
    if value in ("auto", "contiguous", "channels_last", "measure"):
        return str(value)
    raise ValueError(f"{what}: memory_format {value!r}: expected 'auto', 'contiguous', 'channels_last' or 'measure' "
                     "(or torch.contiguous_format, torch.channels_last)")


def spec(t: torch.Tensor) -> str:
    """The input as the tools' --input writes it: "1x3x224x224", "1x128:int64:0..50256". Integer
    inputs keep the range of the example's values, so that the random inputs of the output check and
    the timing index the same rows of an embedding as the example does."""
    text = "x".join(str(d) for d in t.shape)
    name = DTYPE_NAMES[t.dtype]
    if name != "float32":
        text += ":" + name
    if name in ("int64", "int32") and t.numel() > 0:
        text += f":{int(t.min())}..{int(t.max())}"
    return text


def specs(inputs: Sequence[torch.Tensor]) -> List[str]:
    return [spec(t) for t in inputs]


def shapes_text(inputs: Sequence[torch.Tensor]) -> str:
    return ",".join(specs(inputs))


def cuda_device(inputs: Sequence[torch.Tensor], device: Optional[Union[str, torch.device]]) -> str:
    """The CUDA device to capture on: the one asked, else the inputs', else the current one."""
    if device is not None:
        d = torch.device(device)
        if d.type != "cuda":
            raise ValueError(f"device {d}: Nimble captures CUDA graphs; use 'cuda' or 'cuda:N'")
        return str(d)
    for t in inputs:
        if t.is_cuda:
            return str(t.device)
    return "cuda"


_CONSTANT_TYPES = (type(None), bool, int, float, complex, str, torch.dtype, torch.device, torch.Size)


class OutputSpec:
    """Where the graph's flat tensor outputs go in what the model returns (its pytree); non-tensor
    leaves are the values of the example run."""

    def __init__(self, output: Any, what: str) -> None:
        leaves, self._spec = pytree.tree_flatten(output)
        self._tensor_slots = [i for i, leaf in enumerate(leaves) if isinstance(leaf, torch.Tensor)]
        for leaf in leaves:
            # A container pytree does not know is one leaf: its tensors would come back as the example
            # run's values on every call.
            if not isinstance(leaf, (torch.Tensor, _CONSTANT_TYPES)):
                raise ValueError(f"{what}: the model returns a {type(leaf).__name__}, which Nimble cannot "
                                 "rebuild: return tensors, or tuples, lists or dicts of them")
        # Tensor slots hold None: the example run's tensors are not kept alive.
        self._leaves = [None if isinstance(leaf, torch.Tensor) else leaf for leaf in leaves]
        self._single = len(leaves) == 1 and self._tensor_slots == [0] and isinstance(output, torch.Tensor)

    @property
    def num_tensors(self) -> int:
        return len(self._tensor_slots)

    @property
    def is_single_tensor(self) -> bool:
        return self._single

    def restore(self, tensors: Sequence[torch.Tensor]) -> Any:
        if self._single:
            return tensors[0]
        leaves = list(self._leaves)
        for slot, tensor in zip(self._tensor_slots, tensors):
            leaves[slot] = tensor
        return pytree.tree_unflatten(leaves, self._spec)


def on_device(device: str) -> "contextlib.AbstractContextManager[Any]":
    """`device` current while C++ work runs on it, and the caller's current device afterwards (the
    capture makes its device current). Without a GPU, nothing: the C++ side says there is none."""
    if not torch.cuda.is_available():
        return contextlib.nullcontext()
    return torch.cuda.device(torch.device(device))


class _FlatOutputs(torch.nn.Module):
    """The model with its output flattened to a tuple of its tensors, in pytree order."""

    def __init__(self, inner: torch.nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, *inputs: torch.Tensor) -> Tuple[torch.Tensor, ...]:
        return tuple(t for t in pytree.tree_leaves(self.inner(*inputs)) if isinstance(t, torch.Tensor))


def flat_outputs(tensors: Sequence[torch.Tensor]) -> Any:
    """Outputs of a model whose structure is unknown (a model.nimble): a tensor, or a tuple."""
    return tensors[0] if len(tensors) == 1 else tuple(tensors)


def torchscript_file(model: ModelArg, inputs: Tuple[torch.Tensor, ...], workdir: str, what: str
                     ) -> Tuple[str, Optional[OutputSpec], Any]:
    """The model as a TorchScript file the C++ workflow reads, its output structure and its output on
    the example inputs from one eager run (None for a path: the file is not run here). An nn.Module is
    traced in eval mode. A model that changes its inputs or buffers in place is refused."""
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{path}: no such file")
        return path, None, None
    if isinstance(model, torch.export.ExportedProgram):
        # Saved as it is: the C++ front end reads .pt2 programs itself.
        path = os.path.join(workdir, "model.pt2")
        torch.export.save(model, path)
        with torch.no_grad():
            try:
                output = model.module()(*inputs)
            except Exception as e:
                raise ValueError(f"{what}: the program does not run on the example inputs: {e}") from e
        spec = OutputSpec(output, what)
        if spec.num_tensors == 0:
            raise ValueError(f"{what}: the program returns no tensor")
        return path, spec, output
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"{what}: model must be an nn.Module, a ScriptModule, a torch.export ExportedProgram or a "
                        f"path, got {type(model).__name__}")
    path = os.path.join(workdir, "model.pt")
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad(), warnings.catch_warnings():
            # TorchScript is how the C++ front end reads the model; its deprecation notice is not the user's.
            warnings.simplefilter("ignore", category=DeprecationWarning)
            warnings.simplefilter("ignore", category=FutureWarning)
            versions = [t._version for t in inputs] + [b._version for b in model.buffers()]
            try:
                output = model(*inputs)
            except Exception as e:
                raise ValueError(f"{what}: the model does not run on the example inputs: {e}") from e
            if versions != [t._version for t in inputs] + [b._version for b in model.buffers()]:
                # A replay would change only its own copies of them.
                raise ValueError(f"{what}: the model changes its inputs or buffers in place, which a "
                                 "captured graph cannot do for the caller")
            spec = OutputSpec(output, what)
            if spec.num_tensors == 0:
                raise ValueError(f"{what}: the model returns no tensor")
            if isinstance(model, torch.jit.ScriptModule) and spec.is_single_tensor:
                scripted = model
            else:
                # The C++ front end takes tensors and tuples of them: anything else the model returns
                # (dicts, dataclasses, constants) is flattened here and rebuilt by OutputSpec.restore.
                traced = model if spec.is_single_tensor else _FlatOutputs(model)
                try:
                    scripted = torch.jit.trace(traced, inputs, check_trace=False, strict=False)
                except Exception as e:
                    raise ValueError(f"{what}: the model cannot be traced to TorchScript: {e}") from e
            torch.jit.save(scripted, path)
    finally:
        model.train(was_training)
    return path, spec, output
