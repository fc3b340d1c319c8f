#!/usr/bin/env python3
"""Compares two mcl-format cluster files (one cluster per line, tab-separated labels) as
partitions. Prints clusters, nodes, and how many nodes sit in clusters that differ.
Exit 0 when the partitions are equal. Usage: compare_clusters.py A.clusters B.clusters"""
import sys


def read(path):
    with open(path) as f:
        return [frozenset(line.rstrip("\n").split("\t")) for line in f if line.strip()]


def main():
    a, b = read(sys.argv[1]), read(sys.argv[2])
    sa, sb = set(a), set(b)
    nodes_a = sum(len(c) for c in a)
    nodes_b = sum(len(c) for c in b)
    differ = sum(len(c) for c in sa - sb)
    print(f"{sys.argv[1]}: {len(a)} clusters, {nodes_a} nodes; {sys.argv[2]}: {len(b)} clusters, "
          f"{nodes_b} nodes; nodes in clusters that differ: {differ}; "
          f"{'SAME PARTITION' if sa == sb else 'DIFFERENT'}")
    return 0 if sa == sb else 1


if __name__ == "__main__":
    sys.exit(main())
