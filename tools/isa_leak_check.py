#!/usr/bin/env python3
# Fails when the linker may hand a lower ISA level an inline function's copy compiled for a higher one.
"""
    isa_leak_check.py --compile-commands BUILD/compile_commands.json [--linked FILE] OBJECT...

A function defined in several objects as a COMDAT group (inline functions, template
instantiations, lambdas in headers: std::vector members, std::min, a shared helper) or as a
weak symbol is linked once: the linker keeps one copy and every object's calls go to it. When
the objects were compiled with different ISA flags (the avx2 backend's -mavx2, -mavxvnni,
-mavx512* files next to baseline ones), the kept copy may hold instructions that the level of
some other caller lacks, and that caller then dies of SIGILL on a CPU without them. Run-time
tests on an emulated CPU (qemu -cpu Haswell / Nehalem) see this only on the paths the vectors
reach; this check sees every copy.

For every group or weak function defined in objects whose ISA flags differ, each copy's
instructions must stay within what every one of those objects' flags allow (their
intersection); otherwise it prints the function (demangled), each object with its level and the
first instruction above the allowed set, and exits 1. An object's flags come from
compile_commands.json (the -m options of the command that wrote it): it is what the compiler
was told, not guessed from the code. The instruction classes, from the encoding (the objdump
bytes after the legacy and REX prefixes) and, for VEX, the mnemonic:
  AVX512-VBMI  the EVEX byte permutes vpermb, vpermi2b, vpermt2b and vpmultishiftqb (-mavx512vbmi:
            the depthwise kernel's direct strips; Skylake-X and Cascade Lake lack them)
  AVX-512   EVEX (0x62 in 64-bit code) and the VEX-encoded mask instructions (k*)
  AVX-VNNI  VEX vpdpbusd(s) / vpdpwssd(s) ({vex}; AVX512-VNNI's are EVEX)
  AVX2      any other VEX instruction (0xc4 / 0xc5 in 64-bit code)
  SSE4.2    non-VEX instructions above x86-64's SSE2: popcnt, crc32, SSSE3 / SSE4.x ones
With --linked, it also disassembles each such function in the linked file and names the copy
the linker kept there.

Objects holding LTO bytecode (.gnu.lto_* sections, or LLVM bitcode) fail the check: their machine
code, if any, is not what gets linked, so checking it would pass for nothing. Exit 77 (CTest's
SKIP_RETURN_CODE) when objdump, readelf or c++filt is missing, or when a file is compiled with an
-march other than x86-64[-v2|-v3|-v4] (then every file requires that CPU anyway).
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections import defaultdict

SKIP = 77

# What each -m option lets the compiler emit (an option implies the ones it enables in GCC).
AVX2_SET = frozenset({"SSE4.2", "AVX2"})
FLAG_FEATURES = {
    "-mpopcnt": {"SSE4.2"}, "-msse3": {"SSE4.2"}, "-mssse3": {"SSE4.2"}, "-msse4.1": {"SSE4.2"},
    "-msse4.2": {"SSE4.2"}, "-msse4": {"SSE4.2"},
    "-mavx": AVX2_SET, "-mavx2": AVX2_SET, "-mfma": AVX2_SET, "-mf16c": AVX2_SET,
    "-mbmi": AVX2_SET, "-mbmi2": AVX2_SET,
    "-mavxvnni": AVX2_SET | {"AVX-VNNI"},
}
MARCH_FEATURES = {
    "x86-64": frozenset(), "x86-64-v2": frozenset({"SSE4.2"}), "x86-64-v3": AVX2_SET,
    "x86-64-v4": AVX2_SET | {"AVX-512"},
}
LEVEL_ORDER = ["SSE4.2", "AVX2", "AVX-VNNI", "AVX-512", "AVX512-VBMI"]  # named by these, SSE4.2 only without AVX2

LEGACY_PREFIXES = {0x66, 0x67, 0xf0, 0xf2, 0xf3, 0x2e, 0x36, 0x3e, 0x26, 0x64, 0x65}
VEX_VNNI = {"vpdpbusd", "vpdpbusds", "vpdpwssd", "vpdpwssds"}
VBMI = {"vpermb", "vpermi2b", "vpermt2b", "vpmultishiftqb"}
# Non-VEX SSE3 ... SSE4.2 and POPCNT mnemonics (under -mavx the compiler emits their VEX forms).
SSE4_MNEMONICS = set("""
popcnt crc32 pshufb pblendvb blendvps blendvpd blendps blendpd pblendw ptest pmulld pmuldq pminsd
pmaxsd pminud pmaxud pminsb pmaxsb pminuw pmaxuw pextrb pextrd pextrq pinsrb pinsrd pinsrq
pmovsxbw pmovsxbd pmovsxbq pmovsxwd pmovsxwq pmovsxdq pmovzxbw pmovzxbd pmovzxbq pmovzxwd
pmovzxwq pmovzxdq pcmpeqq pcmpgtq packusdw roundps roundpd roundss roundsd dpps dppd insertps
extractps mpsadbw phminposuw movntdqa pabsb pabsw pabsd phaddw phaddd phaddsw phsubw phsubd
phsubsw palignr pmaddubsw pmulhrsw psignb psignw psignd haddps haddpd hsubps hsubpd addsubps
addsubpd movddup movshdup movsldup lddqu pcmpestri pcmpestrm pcmpistri pcmpistrm
""".split())


def level_name(features):
    top = [f for f in LEVEL_ORDER if f in features and not (f == "SSE4.2" and "AVX2" in features)]
    return "+".join(top) if top else "x86-64"


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"isa_leak_check: {' '.join(cmd)} failed: {r.stderr.strip()}")
    return r.stdout


def object_features(compile_commands):
    """Object path (absolute, normalized) -> the ISA features its compile command allows."""
    table = {}
    with open(compile_commands) as f:
        for entry in json.load(f):
            args = entry.get("arguments") or shlex.split(entry["command"])
            out = entry.get("output")
            feats = set()
            for i, a in enumerate(args):
                if a == "-o" and i + 1 < len(args) and out is None:
                    out = args[i + 1]
                elif a.startswith("-march="):
                    march = a[len("-march="):]
                    if march not in MARCH_FEATURES:
                        # -march=native or a CPU name: the whole build targets that CPU, baseline
                        # files included, so there is no lower level to protect.
                        print(f"QSPEC-SKIP: {entry['file']} is compiled with {a}: no baseline level to check")
                        sys.exit(SKIP)
                    feats = set(MARCH_FEATURES[march])
                elif a == "-mavx512vbmi":
                    feats |= AVX2_SET | {"AVX-512", "AVX512-VBMI"}
                elif a.startswith("-mavx512"):
                    feats |= AVX2_SET | {"AVX-512"}
                elif a in FLAG_FEATURES:
                    feats |= FLAG_FEATURES[a]
            if out:
                table[os.path.normpath(os.path.join(entry["directory"], out))] = frozenset(feats)
    return table


def read_object(path):
    """-> (is_lto, {key: (text sections, symbol or None)}) for the COMDAT groups holding code and
    the weak functions outside groups; key is the group signature or the weak symbol."""
    with open(path, "rb") as f:
        if f.read(4) in (b"BC\xc0\xde", b"\xde\xc0\x17\x0b"):
            return True, {}
    sections = {}  # index -> name
    for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)", run(["readelf", "-SW", path]), re.M):
        sections[int(m.group(1))] = m.group(2)
    if any(n.startswith(".gnu.lto_") or n in (".llvmbc", ".llvm.lto") for n in sections.values()):
        return True, {}
    copies = {}
    in_group = set()
    sig = None
    for line in run(["readelf", "-gW", path]).splitlines():
        m = re.match(r"COMDAT group section \[\s*\d+\] `[^']*' \[(.*)\] contains", line)
        if m:
            sig = m.group(1)
            continue
        m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)$", line)
        if m and sig is not None:
            idx, name = int(m.group(1)), m.group(2)
            in_group.add(idx)
            if name.startswith(".text"):
                copies.setdefault(sig, ([], None))[0].append(name)
    for line in run(["readelf", "-sW", path]).splitlines():
        f = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(f) >= 8 and f[3] == "FUNC" and f[4] == "WEAK" and f[6].isdigit():
            idx = int(f[6])
            if idx not in in_group:
                copies[f[7]] = ([sections[idx]], f[7])
    return False, copies


def classify(raw, text):
    """One instruction (its bytes, its objdump text) -> the ISA class above x86-64 it needs, or None."""
    i = 0
    while i < len(raw) and raw[i] in LEGACY_PREFIXES:
        i += 1
    if i < len(raw) and 0x40 <= raw[i] <= 0x4f:
        i += 1
    words = text.replace("{vex}", "").split()
    mnemonic = words[0] if words else ""
    if mnemonic in ("rex", "rex.W", "data16", "cs", "ds", "lock", "rep", "repz", "repnz", "bnd", "notrack") and len(words) > 1:
        mnemonic = words[1]
    if i >= len(raw):
        return None
    op = raw[i]
    if op == 0x62:
        return "AVX512-VBMI" if mnemonic in VBMI else "AVX-512"
    if op in (0xc4, 0xc5):
        if mnemonic.startswith("k"):
            return "AVX-512"
        if mnemonic in VEX_VNNI:
            return "AVX-VNNI"
        return "AVX2"
    if mnemonic in SSE4_MNEMONICS:
        return "SSE4.2"
    return None


INSN = re.compile(r"^\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t(.*)$")
FUNC = re.compile(r"^([0-9a-f]+) <(.+)>:$")
SECTION = re.compile(r"^Disassembly of section (\S+):$")


def disassemble(path, sections=None, start=None, stop=None):
    """-> [(section, function, function+offset, bytes, text)] of the given sections or address range."""
    cmd = ["objdump", "-d", "-w", "--insn-width=15"]
    for s in sections or []:
        cmd += ["-j", s]
    if start is not None:
        cmd += [f"--start-address={start:#x}", f"--stop-address={stop:#x}"]
    out = []
    section = func = None
    func_start = 0
    for line in run(cmd + [path]).splitlines():
        m = SECTION.match(line)
        if m:
            section = m.group(1)
            continue
        m = FUNC.match(line)
        if m:
            func, func_start = m.group(2), int(m.group(1), 16)
            continue
        m = INSN.match(line)
        if m:
            where = f"{func}+{int(m.group(1), 16) - func_start:#x}"
            out.append((section, func, where, bytes.fromhex(m.group(2).replace(" ", "")), m.group(3).strip()))
    return out


def uses(insns):
    """-> {class: its first instruction, as text} over the instructions."""
    found = {}
    for _, _, where, raw, text in insns:
        c = classify(raw, text)
        if c and c not in found:
            found[c] = f"{where}: {raw.hex(' ')}  {' '.join(text.split())}"
    return found


def demangle(names):
    """Demangled and deduplicated (a group holds a constructor's or destructor's C1/C2 aliases)."""
    return list(dict.fromkeys(run(["c++filt"] + list(names)).splitlines())) if names else []


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--compile-commands", required=True)
    ap.add_argument("--linked", action="append", default=[], help="a linked file to check the kept copies in")
    ap.add_argument("objects", nargs="+")
    args = ap.parse_args()
    for tool in ("objdump", "readelf", "c++filt"):
        if shutil.which(tool) is None:
            print(f"QSPEC-SKIP: {tool} is not on PATH (Debian: binutils)")
            return SKIP

    feats_of = object_features(args.compile_commands)
    defs = defaultdict(list)  # key -> [(object, sections, symbol)]
    levels = defaultdict(int)
    lto = []
    # CTest passes each $<TARGET_OBJECTS:...> as one ;-separated argument (add_test cannot expand lists).
    objects = [os.path.normpath(os.path.abspath(o)) for arg in args.objects for o in arg.split(";") if o]
    for obj in objects:
        if obj not in feats_of:
            sys.exit(f"isa_leak_check: {obj} is not in {args.compile_commands}: its ISA flags are unknown")
        is_lto, copies = read_object(obj)
        if is_lto:
            lto.append(obj)
            continue
        levels[level_name(feats_of[obj])] += 1
        for key, (secs, sym) in copies.items():
            defs[key].append((obj, secs, sym))
    if lto:
        print(f"FAIL: {len(lto)} objects hold LTO bytecode (e.g. {lto[0]}): the linker generates their code "
              "from it, so the machine code this check reads is not what runs. Build this target without -flto.")
        return 1

    shared = {k: d for k, d in defs.items() if len({feats_of[o] for o, _, _ in d}) > 1}
    # Disassemble each object once, only the sections of the shared functions.
    want = defaultdict(set)
    for d in shared.values():
        for obj, secs, _ in d:
            want[obj].update(secs)
    insns = {obj: disassemble(obj, sorted(secs)) for obj, secs in want.items()}

    leaks = []
    for key, d in sorted(shared.items()):
        allowed = frozenset.intersection(*(feats_of[o] for o, _, _ in d))
        rows, bad, funcs = [], False, set()
        for obj, secs, sym in d:
            if sym is None:  # a COMDAT group: all the code of its sections (clones, .cold parts)
                used = uses(x for x in insns[obj] if x[0] in secs)
                funcs.update(f for f in group_functions(obj, secs) if "." not in f)
            else:  # a weak function in a shared section: its own block
                used = uses(x for x in insns[obj] if x[1] in (sym, sym + ".cold"))
                funcs.add(sym)
            above = {c: t for c, t in used.items() if c not in allowed}
            bad |= bool(above)
            rows.append((obj, feats_of[obj], above))
        if bad:
            leaks.append((key, allowed, rows, sorted(funcs)))
        else:
            print(f"ok: {' / '.join(demangle(sorted(funcs) or [key]))}: "
                  f"{len(d)} copies ({', '.join(sorted({level_name(feats_of[o]) for o, _, _ in d}))}), "
                  f"all within {level_name(allowed)}")

    report_leaks(leaks, objects)
    kept_bad = check_linked(args.linked, shared, feats_of)
    print(f"isa_leak_check: {len(objects)} objects ({', '.join(f'{n} {lv}' for lv, n in sorted(levels.items()))}), "
          f"{len(defs)} COMDAT or weak functions, {len(shared)} defined at more than one ISA level, "
          f"{len(leaks)} with a copy above what all of their objects allow")
    return 1 if leaks or kept_bad else 0


_group_funcs_cache = {}


def group_functions(obj, secs):
    """The function symbols defined in the given sections of obj (readelf -s, section indices)."""
    if obj not in _group_funcs_cache:
        names = {}
        for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)", run(["readelf", "-SW", obj]), re.M):
            names[int(m.group(1))] = m.group(2)
        funcs = defaultdict(list)
        for line in run(["readelf", "-sW", obj]).splitlines():
            f = line.split()
            if len(f) >= 8 and f[3] == "FUNC" and f[6].isdigit():
                funcs[names[int(f[6])]].append(f[7])
        _group_funcs_cache[obj] = funcs
    out = []
    for s in secs:
        out += _group_funcs_cache[obj].get(s, [])
    return out


def report_leaks(leaks, objects):
    root = os.path.commonpath(objects) if len(objects) > 1 else os.path.dirname(objects[0])
    for key, allowed, rows, funcs in leaks:
        names = demangle(funcs or [key])
        print(f"ISA LEAK: {' / '.join(names)}")
        print(f"  COMDAT group or weak symbol {key}: one copy is linked for {len(rows)} objects; "
              f"every one of them allows only {level_name(allowed)}")
        for obj, feats, above in rows:
            what = "; ".join(f"{c} at {t}" for c, t in sorted(above.items())) or "within it"
            print(f"    {level_name(feats):>16}  {os.path.relpath(obj, root)}: {what}")


def check_linked(linked, shared, feats_of):
    """Names the copy each linked file kept of the shared functions; True if one is above its bound."""
    bad = False
    for path in linked:
        syms = {}
        for line in run(["readelf", "-sW", path]).splitlines():
            f = line.split()
            if len(f) >= 8 and f[3] == "FUNC" and f[6].isdigit() and int(f[2], 0) > 0:
                syms.setdefault(f[7].split("@")[0], (int(f[1], 16), int(f[2], 0)))
        for key, d in sorted(shared.items()):
            allowed = frozenset.intersection(*(feats_of[o] for o, _, _ in d))
            funcs = set()  # global names only: a local clone (.part, .cold) has namesakes in other objects
            for obj, secs, sym in d:
                funcs.update(f for f in ([sym] if sym else group_functions(obj, secs)) if "." not in f)
            for fn in sorted(funcs):
                if fn not in syms:
                    continue
                start, size = syms[fn]
                above = {c: t for c, t in uses(disassemble(path, start=start, stop=start + size)).items()
                         if c not in allowed}
                if above:
                    bad = True
                    name = demangle([fn])[0]
                    print(f"ISA LEAK in {os.path.basename(path)}: the kept copy of {name} uses "
                          + "; ".join(f"{c} at {t}" for c, t in sorted(above.items()))
                          + f" (its callers allow only {level_name(allowed)})")
    return bad


if __name__ == "__main__":
    sys.exit(main())
