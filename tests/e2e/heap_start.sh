#!/usr/bin/env bash
# tier: quick
# With ASLR off the heap starts after the executable's .bss, so without care every kdet build of
# another size gives a compiler loaded in its worker other heap addresses, and an address-
# following compiler (the real libNVVM 13.0) another sequence of outputs for the same seed: the
# verdict of 12 runs changed with a 1 MiB .bss. kdet moves its break to a 64 MiB boundary before
# anything allocates. Here a copy of kdet whose ELF says its .bss is 1 MiB larger (its memory
# image ends 1 MiB later, the program's code and data unchanged) must give the fake compiler the
# very same heap addresses; with ASLR on, the kernel's random heap start is kept.
source "$(dirname "$0")/lib/common.bash"
need_fakes libfakenvvm.so
heap_follows_aslr || skip "in a ${KDET_SANITIZER} build the worker's allocator is the sanitizer's"
SAXPY=$KDET_SOURCE_DIR/examples/nvvm/llvm7/saxpy.ll

# grow_bss IN OUT BYTES: OUT is IN whose last PT_LOAD segment takes BYTES more memory (its .bss).
grow_bss() {
  python3 - "$@" <<'PY'
import struct, sys
src, dst, extra = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, "rb").read())
assert b[:4] == b"\x7fELF" and b[4] == 2 and b[5] == 1, "a 64-bit little-endian ELF"
phoff, = struct.unpack_from("<Q", b, 0x20)
phentsize, phnum = struct.unpack_from("<HH", b, 0x36)
loads = [phoff + i * phentsize for i in range(phnum)
         if struct.unpack_from("<I", b, phoff + i * phentsize)[0] == 1]
last = max(loads, key=lambda o: struct.unpack_from("<Q", b, o + 16)[0])  # highest p_vaddr
memsz, = struct.unpack_from("<Q", b, last + 40)
struct.pack_into("<Q", b, last + 40, memsz + extra)
open(dst, "wb").write(b)
PY
  chmod +x "$2"
}
mkdir -p "$T/big"
grow_bss "$KDET" "$T/big/kdet" $((1 << 20))

heap_lines() { # KDET OUT_DIR ARGS...: the "// heap:" line of every run's output, in run order
  "$1" run "$SAXPY" --lib "$FAKES/libfakenvvm.so" "${@:3}" --unnamed natural -n 4 --out "$2" \
    -q -- -fake-mode=heapaddr >/dev/null || true
  for v in $(python3 -c 'import json,sys
for l in open(sys.argv[1]): print(json.loads(l)["variant"][:12])' "$2/runs.jsonl"); do
    grep -h "^// heap:" "$2/variants/$v/ptx"
  done
}
for process in same fresh; do
  a=$(heap_lines "$KDET" "$T/a-$process" --aslr off --heap none --process "$process")
  b=$(heap_lines "$T/big/kdet" "$T/b-$process" --aslr off --heap none --process "$process")
  [[ $(grep -c heap <<<"$a") == 4 ]] || fail "--process $process: 4 heap lines expected, got: $a"
  expect_eq "--process $process, ASLR off: the heap of a kdet 1 MiB larger" "$b" "$a"
done
# The break moved up to the boundary: blocks lie in its first MiB, not 26 MiB into a block.
first=$(head -1 <<<"$a" | awk '{print $3}')
(((first & ((64 << 20) - 1)) < (1 << 20))) || fail "heap block $first is not near a 64 MiB boundary"

# ASLR on: every fresh worker's heap starts elsewhere (the kernel's randomness is kept).
on=$(heap_lines "$KDET" "$T/on" --aslr on --heap none --process fresh)
(($(sort -u <<<"$on" | wc -l) > 1)) || fail "with ASLR on, 4 fresh workers had one heap address: $on"
echo "heap_start: OK"
