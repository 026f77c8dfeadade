"""The DRAM read bandwidth `ntpbench machine --refresh --force` measures now, for the tools/
scripts that set a measurement against it (decode_bandwidth.py, recurrence_bandwidth.py).
`--force`: a refresh that finds the machine busy or a figure impossible would otherwise exit 1
and print no JSON; the scripts want this measurement whatever the cache keeps."""
import json
import os
import subprocess
import sys


def machine_read_gbs(cli, cache, who):
    """GB/s; `cache` is an NTPB_CACHE_DIR of the script's own, `who` names it in an error."""
    r = subprocess.run([cli, "machine", "--refresh", "--force", "--json"], capture_output=True,
                       text=True, env=dict(os.environ, NTPB_CACHE_DIR=cache))
    if r.returncode != 0:
        sys.exit("%s: `ntpbench machine --refresh --force` failed:\n%s" % (who, r.stderr[-2000:]))
    return json.loads(r.stdout)["ceilings"]["read.dram"]["best"]
