"""Benchmark helpers: input generation (pcapgen) and DPDK telemetry (telemetry).

The benchmark entry points live in bench/ at the top of the repository.
"""
