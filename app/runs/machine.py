"""The machine a test runs on: host name, vCPUs (logical CPUs) and physical cores, for the run's environment.

The finding of field test 002 (CPU consistency) depends on the difference: 16 vCPUs are 8 cores x 2 hyperthreads,
and sessions beyond the core count share a core. os.cpu_count() gives the vCPUs; the cores come from /proc/cpuinfo
(distinct physical id and core id pairs), else from `lscpu -p=core,socket`, else they are unknown.
"""

import os
import platform
import shutil
import socket
import subprocess


def machine() -> dict:
    return {
        "host": socket.gethostname(),
        "vcpus": os.cpu_count(),
        "cores": physical_cores(),
        "os": f"{platform.system()} {platform.release()}",
    }


def physical_cores(cpuinfo: str | None = None) -> int | None:
    if cpuinfo is None:
        try:
            with open("/proc/cpuinfo") as f:
                cpuinfo = f.read()
        except OSError:
            cpuinfo = ""
    cores, physical = set(), "0"
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "physical id":
            physical = value
        elif key == "core id":
            cores.add((physical, value))
    if cores:
        return len(cores)
    return _lscpu_cores()


def _lscpu_cores() -> int | None:
    if not shutil.which("lscpu"):
        return None
    try:
        out = subprocess.run(["lscpu", "-p=core,socket"], capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    pairs = {line.strip() for line in out.splitlines() if line.strip() and not line.startswith("#")}
    return len(pairs) or None
