# SPDX-License-Identifier: BSD-3-Clause
"""Lab: test topologies of network namespaces and veth pairs around twinplane.

``RouterLab`` builds the default two-host topology and runs the daemon in
the router namespace; ``Lab`` is the generic base that owns namespaces and
tears them down; ``traffic`` sends and receives from inside namespaces;
``frr`` runs FRR daemons in a namespace; ``routed`` builds a network of four
routers (twinplanes or Linux) with FRR; ``NfProcess`` runs the sample network
function ``twinplane-nf``. ``python -m twinplane.lab`` runs
the README's demo.
"""

from twinplane.lab.daemon import Daemon, DaemonError
from twinplane.lab.lab import Lab, LabError
from twinplane.lab.netns import Netns, reap_stale, veth
from twinplane.lab.nfproc import NfError, NfProcess, nf_binary
from twinplane.lab.router import DEFAULT_LINKS, Link, RouterLab, lab_pmd, port_devargs

__all__ = [
    "DEFAULT_LINKS",
    "Daemon",
    "DaemonError",
    "Lab",
    "LabError",
    "Link",
    "Netns",
    "NfError",
    "NfProcess",
    "RouterLab",
    "lab_pmd",
    "nf_binary",
    "port_devargs",
    "reap_stale",
    "veth",
]
