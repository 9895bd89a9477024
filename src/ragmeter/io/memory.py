"""Memory free to this process, so that a file too large to read is one line before it is
read, not a MemoryError (or the kernel's kill) half way through."""

from __future__ import annotations


def available_memory() -> int | None:
    """Bytes this process may still use: the least of its cgroup's room (containers, SLURM),
    its address-space limit (`ulimit -v`) and the machine's available memory; None if unknown."""
    import resource
    from pathlib import Path

    found: list[int] = []
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit != "max":
            found.append(int(limit) - int(Path("/sys/fs/cgroup/memory.current").read_text()))
    except (OSError, ValueError):
        pass
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        found.append(soft - _proc_kb("/proc/self/status", "VmSize:"))
    try:
        found.append(_proc_kb("/proc/meminfo", "MemAvailable:"))
    except (OSError, StopIteration, ValueError):
        pass
    return min(found) if found else None


def _proc_kb(path: str, key: str) -> int:
    """A `key: N kB` line of a /proc file, in bytes (0 when absent)."""
    with open(path) as handle:
        line = next((line for line in handle if line.startswith(key)), f"{key} 0 kB")
    return int(line.split()[1]) * 1024
