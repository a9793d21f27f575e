#!/usr/bin/env python3
"""A trivial exec backend (standard library only) that answers every test: the protocol's own cost.

It claims every (op, convention) pair of the op catalogue (spec/catalogue/*.json under the data
root given as its argument), and answers each request at once without computing anything: OK with
zero-filled outputs of the requested dtypes and shapes, or REJECTED for an invalid test (no
outputs). The verdicts are mostly FAIL, on purpose: what it measures is qspec's side of the exec
protocol plus a Python client's framing, for every test of the shipped suite, against the
in-process plugin (docs/running.md, "Isolation", costs):

    qspec run --backend exec:'python3 bench/exec_trivial_client.py .' --progress never
"""
import glob
import json
import os
import struct
import sys

FRAME = struct.Struct("<4sIQ")
WIDTHS = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "int64": 8, "float32": 4, "float64": 8}
STDIN, STDOUT = sys.stdin.buffer, sys.stdout.buffer


def read_frame():
    head = STDIN.read(FRAME.size)
    if len(head) < FRAME.size:
        return None, None
    _, json_size, data_size = FRAME.unpack(head)
    header = json.loads(STDIN.read(json_size))
    STDIN.read(data_size)  # the inputs: not looked at
    return header, None


def write_frame(header, data=b""):
    text = json.dumps(header).encode()
    STDOUT.write(FRAME.pack(b"QSPX", len(text), len(data)) + text + data)
    STDOUT.flush()


def catalogue_claims(root):
    claims = []
    for path in sorted(glob.glob(os.path.join(root, "spec", "catalogue", "*.json"))):
        with open(path) as f:
            entry = json.load(f)
        claims += [{"op": entry["op"], "convention": c["name"]} for c in entry["conventions"]]
    return claims


def answer(request):
    reply = {"type": "result", "id": request["id"], "status": "OK", "message": "", "outputs": []}
    if not request["outputs"]:
        reply["status"] = "REJECTED"
        return reply, b""
    data = bytearray()
    for out in request["outputs"]:
        size = WIDTHS[out["dtype"]]
        for d in out["shape"]:
            size *= d
        reply["outputs"].append({"name": out["name"], "offset": len(data), "size": size})
        data += bytes(size)
    return reply, bytes(data)


def main():
    hello, _ = read_frame()
    if hello is None:
        return
    write_frame({"type": "hello", "protocol": 1, "name": "bench.trivial_python", "version": "1.0",
                 "claims": catalogue_claims(sys.argv[1] if len(sys.argv) > 1 else ".")})
    while True:
        request, _ = read_frame()
        if request is None:
            return
        write_frame(*answer(request))


if __name__ == "__main__":
    main()
