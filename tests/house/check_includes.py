#!/usr/bin/env python3
"""Which component's files include which: a ratchet for the house's boundaries (issue 37).

  check_includes.py SOURCE_DIR [--write-known]

Every `#include "..."` of a C/C++ file is resolved as the compiler would find it (the including
file's folder, then the components' include folders) and the file it names is given its component:
format/, x86/, the runtime (hpcrun-lite/runtime/), the launcher, common/ (the options both share),
probe/ (what the launcher's --check and the runtime both ask of the machine), text/ (the words and
table cells the report and the viewer share), the analyzer's public view model
(analyzer/include/),
include/ (the public API), analyzer/, viewer-tui/, bench/, tests/, examples/. A component may
include its own files and those of the components it builds on:

  format    -> (none)             x86       -> (none)
  common    -> format             runtime   -> format, x86, common, probe, include
  probe     -> common             launcher  -> format, common, probe
  text      -> (none)             analyzer  -> format, x86, text, view
  view      -> analyzer, format, text (the analyzer's public headers: its view model)
  viewer    -> format, text, view

Tests and benchmarks may include anything. Inside the runtime, the folders are layered and a
folder includes only its own layer's and the layers below:

  base                          plain helpers: raw system calls, clocks, locks, logging
  loader                        the loaded modules, their symbols and program headers, the GOT
  memory, trees, python         the address maps and sites; calling-context trees, NUMA pages;
                                CPython's frames
  unwind, decode                call paths (libunwind), the stack's frames; the instruction
                                decoder that finds a sample's data access
  process                       thread states, signals, fork and exit, the source table's walks
  sources                       each sampling source, its row of the table (process/source_table.h)
  interpose, writer, startup    every exported entry point, the profile's writer, the constructor

so process/ never names a source (a source is a row it walks), and no folder graph cycle can
form. sources/ is sealed: no other folder, above it or not, includes a file of it. A folder missing from this list fails until it is placed in it, and docs/DESIGN.md's table
of the folders must name each folder of the tree in the same layer.

Includes that break these rules today are listed in tests/house/known_includes.txt, one
`FROM_FILE -> INCLUDED_FILE` per line; a crossing or a runtime folder cycle not listed there fails,
so the list can only shrink. --write-known rewrites it from the tree (after a deliberate change).
Python standard library only. Exit status: 0 pass, 1 fail, 2 usage.
"""

import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
ROOTS = [  # (component, folder, its include folders)
    ("format", "format", ["format/include", "format/src"]),
    ("x86", "x86", ["x86/include"]),
    ("common", "hpcrun-lite/common", ["hpcrun-lite/common"]),
    ("probe", "hpcrun-lite/probe", ["hpcrun-lite/probe/include"]),
    ("runtime", "hpcrun-lite/runtime", ["hpcrun-lite/runtime"]),
    ("launcher", "hpcrun-lite/launcher", ["hpcrun-lite/launcher"]),
    ("validate", "hpcrun-lite/validate", []),
    ("include", "include", ["include"]),
    ("text", "text", ["text/include"]),
    ("view", "analyzer/include", ["analyzer/include"]),
    ("analyzer", "analyzer/src", ["analyzer/src"]),
    ("viewer", "viewer-tui/src", ["viewer-tui/src"]),
    ("bench", "bench", []),
    ("tests", "tests", []),
    ("examples", "examples", []),
]
ALLOWED = {
    "format": set(), "x86": set(), "common": {"format"},
    "probe": {"common"},
    "runtime": {"format", "x86", "common", "probe", "include"},
    "launcher": {"format", "common", "probe"}, "validate": {"include"},
    "include": set(), "text": set(), "analyzer": {"format", "x86", "text", "view"},
    "view": {"analyzer", "format", "text"}, "viewer": {"format", "text", "view"},
    "examples": {"include"},
}
SUFFIXES = (".c", ".cc", ".cpp", ".h", ".hpp")


def component_of(rel):
    for name, folder, _ in ROOTS:
        if rel == folder or rel.startswith(folder + "/"):
            return name
    return None


def resolve(src, rel, name):
    """The repository-relative path `#include "name"` in `rel` finds, or None (generated, system)."""
    candidates = [os.path.join(os.path.dirname(rel), name)]
    for _, _, dirs in ROOTS:
        candidates += [os.path.join(d, name) for d in dirs]
    for c in candidates:
        c = os.path.normpath(c)
        if os.path.isfile(os.path.join(src, c)):
            return c
    return None


RUNTIME_LAYERS = {
    "base": 0, "loader": 1, "memory": 2, "trees": 2, "python": 2, "unwind": 3, "decode": 3,
    "process": 4,
    "sources": 5, "interpose": 6, "writer": 6, "startup": 6,
}


# Folders no other folder includes, whatever its layer: the sources are rows of the table that
# process/source_table.h walks, and nothing else names one.
SEALED = {"sources"}


def upward(a, b):
    """Whether folder a including folder b goes up the layers (or involves an unplaced folder), or
    into a sealed folder."""
    if b in SEALED and a != b:
        return True
    return a not in RUNTIME_LAYERS or b not in RUNTIME_LAYERS or RUNTIME_LAYERS[b] > RUNTIME_LAYERS[a]


def runtime_folder(rel):
    parts = rel.split("/")
    return parts[2] if len(parts) > 3 and parts[:2] == ["hpcrun-lite", "runtime"] else None


def cycles(edges):
    """The edges of the folder graph that lie on a cycle (both ends in one strongly connected part)."""
    nodes = {a for a, _ in edges} | {b for _, b in edges}
    reach = {n: {n} for n in nodes}
    changed = True
    while changed:
        changed = False
        for a, b in edges:
            new = reach[b] - reach[a]
            if new:
                reach[a] |= new
                changed = True
    return {(a, b) for a, b in edges if a in reach[b]}


def scan(src):
    crossings, folder_edges = set(), {}
    for top in ("format", "x86", "hpcrun-lite", "include", "analyzer", "viewer-tui", "examples"):
        for dirpath, dirs, files in os.walk(os.path.join(src, top)):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for f in files:
                if not f.endswith(SUFFIXES):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), src)
                owner = component_of(rel)
                if owner is None or owner in ("tests", "bench"):
                    continue
                with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                for name in INCLUDE.findall(text):
                    target = resolve(src, rel, name)
                    if target is None:
                        continue
                    to = component_of(target)
                    if to is not None and to != owner and to not in ALLOWED.get(owner, set()):
                        crossings.add(f"{rel} -> {target}")
                    a, b = runtime_folder(rel), runtime_folder(target)
                    if a and b and a != b:
                        folder_edges.setdefault((a, b), f"{rel} -> {target}")
    on_cycle = cycles(set(folder_edges)) | {e for e in folder_edges if upward(*e)}
    # Each edge by its folders (the known list's key) and with the first include that makes it.
    return (crossings, {f"runtime folders {a} -> {b}" for a, b in on_cycle},
            {f"runtime folders {a} -> {b} (first: {folder_edges[(a, b)]})" for a, b in on_cycle})


DESIGN_ROW = re.compile(r"^\| (\d+) \| `([a-z_]+)/` \|", re.M)


def layer_problems(src):
    """The runtime's folders, the layers above and docs/DESIGN.md's folder table must agree: a
    folder of the tree missing from either, or placed in another layer, is a problem."""
    root = os.path.join(src, "hpcrun-lite/runtime")
    on_disk = {d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))}
    with open(os.path.join(src, "docs/DESIGN.md"), encoding="utf-8") as f:
        design = {name: int(layer) for layer, name in DESIGN_ROW.findall(f.read())}
    problems = []
    for d in sorted(on_disk - set(RUNTIME_LAYERS)):
        problems.append(f"hpcrun-lite/runtime/{d}/ has no layer in RUNTIME_LAYERS")
    for d in sorted(set(RUNTIME_LAYERS) - on_disk):
        problems.append(f"RUNTIME_LAYERS places {d}/, which hpcrun-lite/runtime/ does not have")
    for d in sorted(on_disk | set(design)):
        if d not in design:
            problems.append(f"docs/DESIGN.md's folder table lacks {d}/")
        elif d in RUNTIME_LAYERS and design[d] != RUNTIME_LAYERS[d]:
            problems.append(f"docs/DESIGN.md puts {d}/ in layer {design[d]}, this script in {RUNTIME_LAYERS[d]}")
        elif d not in on_disk:
            problems.append(f"docs/DESIGN.md's folder table names {d}/, which hpcrun-lite/runtime/ does not have")
    return problems


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    src = args[0]
    known_path = os.path.join(src, "tests/house/known_includes.txt")
    crossings, cycle_edges, described = scan(src)
    found = crossings | cycle_edges
    if "--write-known" in args:
        with open(known_path, "w", encoding="utf-8") as f:
            f.write("# Includes that cross a component boundary or close a cycle of the runtime's folders\n"
                    "# today (tests/house/check_includes.py says the rules). Issue 37 empties this list;\n"
                    "# nothing may be added to it but by a deliberate --write-known.\n")
            for line in sorted(found):
                f.write(line + "\n")
        print(f"check_includes: wrote {len(found)} known lines to {known_path}")
        return 0
    with open(known_path, encoding="utf-8") as f:
        known = {line.strip() for line in f if line.strip() and not line.startswith("#")}
    new = sorted(found - known)
    gone = sorted(known - found)
    by_owner = {}
    for c in crossings:
        owner = component_of(c.split(" -> ")[0])
        by_owner[owner] = by_owner.get(owner, 0) + 1
    print(f"check_includes: {len(crossings)} crossing includes known ({by_owner}), "
          f"{len(cycle_edges)} runtime folder edges on a cycle or up the layers")
    for line in sorted(described):
        print("  folder edge:", line)
    if gone:
        print(f"check_includes: {len(gone)} known lines are gone; shrink the list (--write-known):")
        for line in gone:
            print("  gone:", line)
    layers = layer_problems(src)
    for line in layers:
        print("FAIL: layers:", line, file=sys.stderr)
    if new:
        for line in new:
            print("FAIL: new:", line, file=sys.stderr)
        print(f"check_includes: {len(new)} new crossings or folder edges (the rules are in this script's doc)",
              file=sys.stderr)
        return 1
    return 1 if layers else 0


if __name__ == "__main__":
    sys.exit(main())
