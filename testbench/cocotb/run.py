"""Builds the engine's Verilog with Icarus Verilog and runs test_qp_table.py on it, once per
Verilog file given, with cocotb's Python runner (cocotb_tools.runner).

    python run.py [--build-dir DIR] [--seed N] VERILOG...

The top module is the file's stem (`qptable gen` writes `<top>.v`); the lookup port names are
read from the module header (the `s_<port>_req_valid` inputs). Exit status 0 when every test
passed on every file.
"""

import argparse
import re
import sys
from pathlib import Path

from cocotb_tools.check_results import get_results
from cocotb_tools.runner import get_runner

HERE = Path(__file__).resolve().parent


def module_header(verilog: Path, top: str):
    """The port list of module `top` in `verilog`, comments dropped (a match), or None."""
    text = re.sub(r"//[^\n]*", "", verilog.read_text())
    return re.search(rf"^module\s+{re.escape(top)}\s*\((.*?)\);", text, re.M | re.S)


def lookup_ports(verilog: Path, top: str) -> list[str]:
    header = module_header(verilog, top)
    if header is None:
        sys.exit(f"run.py: {verilog}: no module `{top}` (the top module must be named like the file)")
    ports = re.findall(r"\bs_(\w+?)_req_valid\b", header.group(1))
    if not ports:
        sys.exit(f"run.py: {verilog}: module `{top}` has no s_<port>_req_valid input")
    return ports


def header_parameter(verilog: Path, name: str) -> str | None:
    """A generator parameter from the file's header comment (`// Configuration: ...`)."""
    head = verilog.read_text()[:4096]
    m = re.search(rf"\b{name} = (\w+)", head)
    return m.group(1) if m else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("verilog", nargs="+", type=Path)
    ap.add_argument("--build-dir", type=Path, default=HERE / "sim_build")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    failed_files = []
    for verilog in args.verilog:
        verilog = verilog.resolve()
        top = verilog.stem
        ports = lookup_ports(verilog, top)
        header = module_header(verilog, top)
        # The state in memory (SPEC 9: the memory master has write channels) adds its tests.
        state_in_memory = re.search(r"\bm_axi_awvalid\b", header.group(1)) is not None
        modules = ["test_qp_table"] + (["test_state_mem"] if state_in_memory else [])
        env = {"QPTABLE_PORTS": ",".join(ports)}
        if state_in_memory:
            block_bits = header_parameter(verilog, "block_bits")
            if block_bits is None:
                sys.exit(f"run.py: {verilog}: no `block_bits = N` in the header comment")
            env["QPTABLE_BLOCK_BITS"] = block_bits
        # One build directory per file: two files may share a top module name.
        build_dir = args.build_dir / f"{verilog.parent.name}-{top}"
        print(f"run.py: {verilog} (top {top}, ports {', '.join(ports)}, tests of "
              f"{', '.join(modules)}) in {build_dir}", flush=True)
        runner = get_runner("icarus")
        runner.build(
            sources=[verilog],
            hdl_toplevel=top,
            build_dir=build_dir,
            always=True,
            timescale=("1ns", "1ps"),
        )
        results = runner.test(
            hdl_toplevel=top,
            test_module=modules,
            test_dir=build_dir,
            build_dir=build_dir,
            seed=args.seed,
            extra_env=env,
            results_xml=str(build_dir / "results.xml"),
        )
        tests, failed = get_results(results)
        print(f"run.py: {verilog}: {tests - failed} of {tests} tests passed", flush=True)
        if failed or tests == 0:
            failed_files.append(str(verilog))
    if failed_files:
        print(f"run.py: FAILED on {', '.join(failed_files)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
