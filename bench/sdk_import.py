"""CPU time of `import anthropic` with the standard import machinery and through `sdk_finder.SDKFinder`, each
in a fresh interpreter, runs interleaved (which mode goes first alternates), the cyclic GC paused in both
as the app's background import does. Prints medians; asserts nothing.

    python bench/sdk_import.py [--runs N]

Before timing, one `import anthropic` with bytecode writing on makes sure the SDK's (and its dependencies')
pycs exist, so neither mode compiles; nothing of the app is compiled by it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

ENSURE_PYCS = "import sys; sys.dont_write_bytecode = False; import anthropic"

TIMED = """
import gc, json, sys, time
from amplifier_cli.sessions.sdk_finder import SDKFinder, SDKSourceLoader  # in both modes, before timing
gc.disable()
finder = SDKFinder({"anthropic"}) if sys.argv[1] == "finder" else None
start = time.process_time()
if finder is not None:
    sys.meta_path.insert(0, finder)
import anthropic
cpu = time.process_time() - start
if finder is not None:
    sys.meta_path.remove(finder)
sdk = [module for name, module in sys.modules.items() if name.partition(".")[0] == "anthropic"]
print(json.dumps({"cpu": cpu, "modules": len(sdk),
                  "by_finder": sum(isinstance(module.__loader__, SDKSourceLoader) for module in sdk)}))
"""


def run(mode: str) -> dict:
    done = subprocess.run([sys.executable, "-c", TIMED, mode], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    runs = parser.parse_args().runs
    subprocess.run([sys.executable, "-c", ENSURE_PYCS], check=True)
    samples: dict[str, list[float]] = {"plain": [], "finder": []}
    last: dict[str, dict] = {}
    for index in range(runs):
        for mode in ("plain", "finder") if index % 2 == 0 else ("finder", "plain"):
            last[mode] = run(mode)
            samples[mode].append(last[mode]["cpu"] * 1000)
    plain, finder = (statistics.median(samples[mode]) for mode in ("plain", "finder"))
    print(f"import anthropic: {last['plain']['modules']} anthropic modules, "
          f"{last['finder']['by_finder']} loaded through the finder; {runs} runs each, GC paused")
    print(f"  plain          {plain:6.0f} ms CPU (median; min {min(samples['plain']):.0f})")
    print(f"  through finder {finder:6.0f} ms CPU (median; min {min(samples['finder']):.0f})"
          f"  ({finder - plain:+.0f} ms, {(finder - plain) / plain:+.1%})")


if __name__ == "__main__":
    main()
