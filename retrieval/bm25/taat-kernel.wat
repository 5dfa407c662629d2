;; Accumulation kernel of medsynth's quantised term-at-a-time BM25 (fast-taat.ts, step 2).
;; Source of the bytes in taat-kernel-bytes.ts: edit here, then `node scripts/build-taat-kernel.mjs`.
;;
;; A posting is one little-endian int32: its document's offset in the accumulator window (high 16
;; bits) and its quantised impact q (low 16 bits). `add` does acc[v >>> 16] += q for every posting at
;; byte addresses [p, end); `addTimes` adds c·q (a term counted c times in the query). `acc` is the
;; byte address of the int32 accumulator. Addresses are unsigned (the memory is at most 65,535
;; pages, so p + 16 cannot wrap). Four postings per step, then one at a time.
(module
  (import "env" "memory" (memory 1))

  (func $post (param $acc i32) (param $v i32) (param $c i32)
    (local $a i32)
    (local.set $a (i32.add (local.get $acc) (i32.shl (i32.shr_u (local.get $v) (i32.const 16)) (i32.const 2))))
    (i32.store (local.get $a)
      (i32.add (i32.load (local.get $a)) (i32.mul (local.get $c) (i32.and (local.get $v) (i32.const 0xffff))))))

  (func (export "addTimes") (param $acc i32) (param $p i32) (param $end i32) (param $c i32)
    (local $v i32) (local $a i32)
    ;; Inline, as `add` (a call per posting cost ~1.5× here: the on-disk engine weights every term).
    (block $done4
      (loop $four
        (br_if $done4 (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        (local.set $v (i32.load (local.get $p)))
        (local.set $a (i32.add (local.get $acc) (i32.shl (i32.shr_u (local.get $v) (i32.const 16)) (i32.const 2))))
        (i32.store (local.get $a) (i32.add (i32.load (local.get $a)) (i32.mul (local.get $c) (i32.and (local.get $v) (i32.const 0xffff)))))
        (local.set $v (i32.load offset=4 (local.get $p)))
        (local.set $a (i32.add (local.get $acc) (i32.shl (i32.shr_u (local.get $v) (i32.const 16)) (i32.const 2))))
        (i32.store (local.get $a) (i32.add (i32.load (local.get $a)) (i32.mul (local.get $c) (i32.and (local.get $v) (i32.const 0xffff)))))
        (local.set $v (i32.load offset=8 (local.get $p)))
        (local.set $a (i32.add (local.get $acc) (i32.shl (i32.shr_u (local.get $v) (i32.const 16)) (i32.const 2))))
        (i32.store (local.get $a) (i32.add (i32.load (local.get $a)) (i32.mul (local.get $c) (i32.and (local.get $v) (i32.const 0xffff)))))
        (local.set $v (i32.load offset=12 (local.get $p)))
        (local.set $a (i32.add (local.get $acc) (i32.shl (i32.shr_u (local.get $v) (i32.const 16)) (i32.const 2))))
        (i32.store (local.get $a) (i32.add (i32.load (local.get $a)) (i32.mul (local.get $c) (i32.and (local.get $v) (i32.const 0xffff)))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $four)))
    (block $done1
      (loop $one
        (br_if $done1 (i32.ge_u (local.get $p) (local.get $end)))
        (call $post (local.get $acc) (i32.load (local.get $p)) (local.get $c))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (br $one))))

  (func (export "add") (param $acc i32) (param $p i32) (param $end i32)
    (local $v i32) (local $a i32)
    (block $done4
      (loop $four
        (br_if $done4 (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        (local.set $v (i32.load (local.get $p)))
        (local.set $a (i32.add (local.get $acc) (i32.shl (i32.shr_u (local.get $v) (i32.const 16)) (i32.const 2))))
        (i32.store (local.get $a) (i32.add (i32.load (local.get $a)) (i32.and (local.get $v) (i32.const 0xffff))))
        (local.set $v (i32.load offset=4 (local.get $p)))
        (local.set $a (i32.add (local.get $acc) (i32.shl (i32.shr_u (local.get $v) (i32.const 16)) (i32.const 2))))
        (i32.store (local.get $a) (i32.add (i32.load (local.get $a)) (i32.and (local.get $v) (i32.const 0xffff))))
        (local.set $v (i32.load offset=8 (local.get $p)))
        (local.set $a (i32.add (local.get $acc) (i32.shl (i32.shr_u (local.get $v) (i32.const 16)) (i32.const 2))))
        (i32.store (local.get $a) (i32.add (i32.load (local.get $a)) (i32.and (local.get $v) (i32.const 0xffff))))
        (local.set $v (i32.load offset=12 (local.get $p)))
        (local.set $a (i32.add (local.get $acc) (i32.shl (i32.shr_u (local.get $v) (i32.const 16)) (i32.const 2))))
        (i32.store (local.get $a) (i32.add (i32.load (local.get $a)) (i32.and (local.get $v) (i32.const 0xffff))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $four)))
    (block $done1
      (loop $one
        (br_if $done1 (i32.ge_u (local.get $p) (local.get $end)))
        (call $post (local.get $acc) (i32.load (local.get $p)) (i32.const 1))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (br $one))))
)
