"""The `"cuda:N"` device: MIR kernels on NVIDIA GPUs through cuda-python's driver API.

`run(kernel, launch, arrays, scalars, device_index=N)` follows the device
protocol of docs/INTERFACES.md; `cuda_available(N)` says whether device N
can run kernels, and if not, why (for tests to skip with that reason);
`default_arch(N)` is the sm_XY to compile for.
"""
from .abi import AbiMismatchError, AbiSlot, abi_slots, pack_parameters, ptx_entry_params
from .driver import CudaDriverError, compute_capability, cuda_available, device_count, device_name
from .runner import DeviceArrays, LoadedKernel, default_arch, launch_loaded, load_kernel, run, synchronize

__all__ = [
    "AbiMismatchError", "AbiSlot", "abi_slots", "pack_parameters", "ptx_entry_params",
    "CudaDriverError", "compute_capability", "cuda_available", "device_count", "device_name",
    "DeviceArrays", "LoadedKernel", "default_arch", "launch_loaded", "load_kernel", "run",
    "synchronize",
]
