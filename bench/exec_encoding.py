#!/usr/bin/env python3
"""The exec protocol's choice of tensor encoding, measured on a Python client's side.

For one int32 input of N elements and an int8 output of N elements: the time a client written
with the standard library needs to decode the request's tensor and encode its reply's tensor, as
the binary frame's little-endian bytes (what docs/exec-protocol.md chose) and as the vector files'
JSON encoding ({"dtype", "shape", "data": [...]}), and the bytes each puts on the wire.
bench/bench_exec_encoding.cc measures qspec's side.

    python3 bench/exec_encoding.py
"""
import array
import json
import random
import struct
import sys
import time


def best_of(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    print("Python %d.%d; best of several runs; decode input + encode output, per test" % sys.version_info[:2])
    print("%10s  %16s  %16s  %14s  %12s  %12s" % ("elements", "binary, array", "binary, struct", "JSON (ms)",
                                                   "binary bytes", "JSON bytes"))
    rng = random.Random(1)
    for n in (64, 1024, 16384, 262144, 1048576):
        x = [rng.randint(-2**31, 2**31 - 1) for _ in range(n)]
        y = [v % 256 - 128 for v in x]
        binary_in = struct.pack("<%di" % n, *x)
        json_in = json.dumps({"x": {"dtype": "int32", "shape": [n], "data": x}}).encode()

        def binary():  # as the example client does it
            v = struct.unpack_from("<%di" % n, binary_in, 0)
            return struct.pack("<%db" % len(v), *y)

        def binary_array():  # array: one copy each way (little-endian machines; else byteswap())
            v = array.array("i", binary_in)
            return array.array("b", y[:len(v)]).tobytes()

        def as_json():
            v = json.loads(json_in)["x"]["data"]
            return json.dumps({"y": {"dtype": "int8", "shape": [len(v)], "data": y}}).encode()

        repeat = 20 if n <= 16384 else 3
        ta, tb, tj = best_of(binary_array, repeat), best_of(binary, repeat), best_of(as_json, repeat)
        print("%10d  %9.3f ms %4.0fx  %9.3f ms %4.1fx  %11.3f ms  %12d  %12d" % (
            n, ta * 1e3, tj / ta, tb * 1e3, tj / tb, tj * 1e3, len(binary_in) + n, len(json_in) + len(as_json())))
    print("(Nx: how many times faster than the JSON encoding)")


if __name__ == "__main__":
    main()
