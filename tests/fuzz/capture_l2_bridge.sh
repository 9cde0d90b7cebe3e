#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Capture what a Linux bridge's ports receive, for fuzz_l2's seeds (make_seeds.py l2
# turns the captures into programs, tests/fuzz/pcap_to_l2.py). Run as root, under the
# lab lock:
#   flock /tmp/tp-lab.lock tests/fuzz/capture_l2_bridge.sh [DIR]   (tests/fuzz/l2_linux_bridge)
# A Linux bridge br0 in a namespace of its own, stp_state 1 (forward delay 2 s), and
# three hosts: h0 (fuzz_l2's p0, access VLAN 10), h1 (p2, the trunk's native VLAN
# 10) and h2 (p1, access VLAN 20), their MACs fuzz_l2's stations 02:00:00:00:00:10-12.
# Untagged only: the kernels this was made on have neither vlan_filtering
# (CONFIG_BRIDGE_VLAN_FILTERING) nor VLAN devices (8021q); the tagged and double
# tagged seeds stay scapy's. Each port's capture (tcpdump -Q in: what the bridge
# receives) is pN.pcap (N the fuzz port); the bridge's own BPDUs, as it sends them
# on a port, are stp.pcap (fed to p2: a neighbour Linux bridge on the trunk). The
# traffic: the hosts' start (IPv6 DAD, router solicitations, MLD reports), lldpd's
# LLDPDUs from h0, ARP and ping, ping6 to all-nodes and to link-local addresses,
# then a MAC move (h1 takes h0's MAC and pings) and h0 heard again.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-tests/fuzz/l2_linux_bridge}
mkdir -p "$out"
p=fzl2$$
br=$p-br
pids=()

cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    for n in "$br" "$p-h0" "$p-h1" "$p-h2"; do ip netns del "$n" 2>/dev/null || true; done
}
trap cleanup EXIT

ip netns add "$br"
ip -n "$br" link add br0 type bridge stp_state 1 forward_delay 200
port=(0 2 1) # host i on fuzz port port[i]
for i in 0 1 2; do
    ip netns add "$p-h$i"
    ip -n "$br" link add "p${port[$i]}" type veth peer name eth0 netns "$p-h$i"
    ip -n "$p-h$i" link set eth0 address "02:00:00:00:00:1$i"
    ip -n "$p-h$i" addr add "10.0.10.$((i + 1))/24" dev eth0
    ip -n "$br" link set "p${port[$i]}" master br0
    ip -n "$br" link set "p${port[$i]}" up # tcpdump needs it up (no carrier yet)
done
ip -n "$br" link set br0 up
for i in 0 1 2; do
    ip netns exec "$br" tcpdump -Q in -i "p$i" -s 0 -U -w "$out/p$i.pcap" 2>/dev/null &
    pids+=($!)
done
ip netns exec "$br" tcpdump -Q out -i p0 -s 0 -U -w "$out/stp.pcap" stp 2>/dev/null &
pids+=($!)
sleep 1
for i in 0 1 2; do ip -n "$p-h$i" link set eth0 up; done
# LLDP from h0 (its own control socket, in its namespace)
ip netns exec "$p-h0" lldpd -d -u "/tmp/$p-lldpd.sock" -I eth0 >/dev/null 2>&1 &
pids+=($!)
sleep 5 # listening and learning: 2 s each
h() { ip netns exec "$p-h$1" "${@:2}" >/dev/null 2>&1 || true; }
h 0 ping -c 2 -i 0.2 10.0.10.2
h 1 ping -c 2 -i 0.2 10.0.10.3
h 2 ping -c 2 -i 0.2 10.0.10.1
h 0 ping -6 -c 2 -i 0.2 ff02::1%eth0
h 1 ping -6 -c 2 -i 0.2 fe80::ff:fe00:10%eth0
h 2 ping -6 -c 1 fe80::ff:fe00:11%eth0
# the move: h1 takes h0's MAC (h0 silent meanwhile), then h0 is heard again
ip -n "$p-h1" link set eth0 address 02:00:00:00:00:10
h 1 ping -c 2 -i 0.2 10.0.10.3
h 0 ping -c 2 -i 0.2 10.0.10.3
sleep 1
