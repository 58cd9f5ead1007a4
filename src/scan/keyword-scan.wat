;; The keyword search's inner loops, over the UTF-8 bytes of a text, in WebAssembly: a JavaScript
;; loop over a string's characters took about 5 ms a megabyte, one lane here about 1.8, four lanes
;; about 0.8. The automaton's table is built in JavaScript (keywords.ts); this only walks it.
;;
;; One walk is a chain: each byte's lookup needs the row the last one gave, so the processor waits
;; on every load. `walk` cuts a stretch of text into four lanes and takes a step in each in turn:
;; four chains that do not wait on each other, which the processor runs side by side.
;;
;; classes: 256 bytes, each byte's class: the bytes no keyword holds share one, an upper-case
;;   ASCII letter has its lower-case form's. A row per state holds an entry per class, not per
;;   byte: the table is a few times smaller and stays in the processor's cache.
;; table: per state, one entry of 4 bytes per class; an entry is the address of the next state's
;;   row, complemented (negative) when keywords end in that state.
;; lanes: four blocks of 32 bytes, one per lane: at +0 the address of its next byte, +4 the address
;;   just past its last, +8 its row, +12 the address before which no pair is written (a lane after
;;   the first starts a few bytes early, to reach its first byte in the state a walk from the text's
;;   start would), +16 the count of pairs written.
;; out: per lane, `cap` pairs of 4-byte values (end, row) for each move into a state where keywords
;;   end; `end` is the address just after the byte.
(module
  (memory (export "memory") 1)
  ;; Where `toUnits` has counted to: a byte address and the UTF-16 units before it.
  (global $at (export "at") (mut i32) (i32.const 0))
  (global $units (export "units") (mut i32) (i32.const 0))

  ;; Writes a lane's pair; returns 1 when its `cap` pairs are already written.
  (func $record (param $lane i32) (param $end i32) (param $row i32) (param $out i32) (param $cap i32)
    (result i32)
    (local $count i32)
    (if (i32.le_u (local.get $end) (i32.load offset=12 (local.get $lane)))
      (then (return (i32.const 0))))
    (local.set $count (i32.load offset=16 (local.get $lane)))
    (if (i32.ge_u (local.get $count) (local.get $cap)) (then (return (i32.const 1))))
    (i32.store (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 3)))
      (local.get $end))
    (i32.store offset=4 (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 3)))
      (local.get $row))
    (i32.store offset=16 (local.get $lane) (i32.add (local.get $count) (i32.const 1)))
    (i32.const 0))

  ;; Walks one lane to its end on its own; returns 1 when its pairs do not fit.
  (func $finish (param $lane i32) (param $classes i32) (param $out i32) (param $cap i32)
    (result i32)
    (local $at i32) (local $end i32) (local $row i32)
    (local.set $at (i32.load (local.get $lane)))
    (local.set $end (i32.load offset=4 (local.get $lane)))
    (local.set $row (i32.load offset=8 (local.get $lane)))
    (block $done
      (loop $step
        (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
        (local.set $row
          (i32.load (i32.add (local.get $row)
            (i32.shl (i32.load8_u (i32.add (local.get $classes) (i32.load8_u (local.get $at))))
              (i32.const 2)))))
        (local.set $at (i32.add (local.get $at) (i32.const 1)))
        (if (i32.lt_s (local.get $row) (i32.const 0))
          (then
            (local.set $row (i32.xor (local.get $row) (i32.const -1)))
            (if (call $record (local.get $lane) (local.get $at) (local.get $row) (local.get $out)
                  (local.get $cap))
              (then (return (i32.const 1))))))
        (br $step)))
    (i32.store (local.get $lane) (local.get $at))
    (i32.store offset=8 (local.get $lane) (local.get $row))
    (i32.const 0))

  ;; Walks the four lanes at `lanes`, side by side while each has bytes left, then each to its end.
  ;; Returns 0, or 1 when a lane's pairs did not fit in its `cap`: the caller walks the same text
  ;; again in shorter lanes (what was written is not to be read).
  (func (export "walk")
    (param $classes i32) (param $lanes i32) (param $out i32) (param $cap i32) (result i32)
    (local $a0 i32) (local $a1 i32) (local $a2 i32) (local $a3 i32)
    (local $r0 i32) (local $r1 i32) (local $r2 i32) (local $r3 i32)
    (local $o1 i32) (local $o2 i32) (local $o3 i32)
    (local $steps i32) (local $bytes i32)
    (local.set $o1 (i32.add (local.get $out) (i32.shl (local.get $cap) (i32.const 3))))
    (local.set $o2 (i32.add (local.get $o1) (i32.shl (local.get $cap) (i32.const 3))))
    (local.set $o3 (i32.add (local.get $o2) (i32.shl (local.get $cap) (i32.const 3))))
    (local.set $a0 (i32.load offset=0 (local.get $lanes)))
    (local.set $a1 (i32.load offset=32 (local.get $lanes)))
    (local.set $a2 (i32.load offset=64 (local.get $lanes)))
    (local.set $a3 (i32.load offset=96 (local.get $lanes)))
    (local.set $r0 (i32.load offset=8 (local.get $lanes)))
    (local.set $r1 (i32.load offset=40 (local.get $lanes)))
    (local.set $r2 (i32.load offset=72 (local.get $lanes)))
    (local.set $r3 (i32.load offset=104 (local.get $lanes)))
    ;; Side by side for as many steps as the shortest lane has bytes.
    (local.set $steps (i32.sub (i32.load offset=4 (local.get $lanes)) (local.get $a0)))
    (local.set $bytes (i32.sub (i32.load offset=36 (local.get $lanes)) (local.get $a1)))
    (if (i32.lt_s (local.get $bytes) (local.get $steps)) (then (local.set $steps (local.get $bytes))))
    (local.set $bytes (i32.sub (i32.load offset=68 (local.get $lanes)) (local.get $a2)))
    (if (i32.lt_s (local.get $bytes) (local.get $steps)) (then (local.set $steps (local.get $bytes))))
    (local.set $bytes (i32.sub (i32.load offset=100 (local.get $lanes)) (local.get $a3)))
    (if (i32.lt_s (local.get $bytes) (local.get $steps)) (then (local.set $steps (local.get $bytes))))
    (block $done
      (loop $step
        (br_if $done (i32.le_s (local.get $steps) (i32.const 0)))
        (local.set $steps (i32.sub (local.get $steps) (i32.const 1)))
        (local.set $r0
          (i32.load (i32.add (local.get $r0)
            (i32.shl (i32.load8_u (i32.add (local.get $classes) (i32.load8_u (local.get $a0))))
              (i32.const 2)))))
        (local.set $r1
          (i32.load (i32.add (local.get $r1)
            (i32.shl (i32.load8_u (i32.add (local.get $classes) (i32.load8_u (local.get $a1))))
              (i32.const 2)))))
        (local.set $r2
          (i32.load (i32.add (local.get $r2)
            (i32.shl (i32.load8_u (i32.add (local.get $classes) (i32.load8_u (local.get $a2))))
              (i32.const 2)))))
        (local.set $r3
          (i32.load (i32.add (local.get $r3)
            (i32.shl (i32.load8_u (i32.add (local.get $classes) (i32.load8_u (local.get $a3))))
              (i32.const 2)))))
        (local.set $a0 (i32.add (local.get $a0) (i32.const 1)))
        (local.set $a1 (i32.add (local.get $a1) (i32.const 1)))
        (local.set $a2 (i32.add (local.get $a2) (i32.const 1)))
        (local.set $a3 (i32.add (local.get $a3) (i32.const 1)))
        ;; Keywords end at few bytes: one test for the four lanes, the lanes' own tests only then.
        (br_if $step
          (i32.ge_s (i32.or (i32.or (local.get $r0) (local.get $r1))
                      (i32.or (local.get $r2) (local.get $r3)))
            (i32.const 0)))
        (if (i32.lt_s (local.get $r0) (i32.const 0))
          (then
            (local.set $r0 (i32.xor (local.get $r0) (i32.const -1)))
            (if (call $record (local.get $lanes) (local.get $a0) (local.get $r0) (local.get $out)
                  (local.get $cap))
              (then (return (i32.const 1))))))
        (if (i32.lt_s (local.get $r1) (i32.const 0))
          (then
            (local.set $r1 (i32.xor (local.get $r1) (i32.const -1)))
            (if (call $record (i32.add (local.get $lanes) (i32.const 32)) (local.get $a1)
                  (local.get $r1) (local.get $o1) (local.get $cap))
              (then (return (i32.const 1))))))
        (if (i32.lt_s (local.get $r2) (i32.const 0))
          (then
            (local.set $r2 (i32.xor (local.get $r2) (i32.const -1)))
            (if (call $record (i32.add (local.get $lanes) (i32.const 64)) (local.get $a2)
                  (local.get $r2) (local.get $o2) (local.get $cap))
              (then (return (i32.const 1))))))
        (if (i32.lt_s (local.get $r3) (i32.const 0))
          (then
            (local.set $r3 (i32.xor (local.get $r3) (i32.const -1)))
            (if (call $record (i32.add (local.get $lanes) (i32.const 96)) (local.get $a3)
                  (local.get $r3) (local.get $o3) (local.get $cap))
              (then (return (i32.const 1))))))
        (br $step)))
    (i32.store offset=0 (local.get $lanes) (local.get $a0))
    (i32.store offset=32 (local.get $lanes) (local.get $a1))
    (i32.store offset=64 (local.get $lanes) (local.get $a2))
    (i32.store offset=96 (local.get $lanes) (local.get $a3))
    (i32.store offset=8 (local.get $lanes) (local.get $r0))
    (i32.store offset=40 (local.get $lanes) (local.get $r1))
    (i32.store offset=72 (local.get $lanes) (local.get $r2))
    (i32.store offset=104 (local.get $lanes) (local.get $r3))
    (i32.or
      (i32.or
        (call $finish (local.get $lanes) (local.get $classes) (local.get $out) (local.get $cap))
        (call $finish (i32.add (local.get $lanes) (i32.const 32)) (local.get $classes) (local.get $o1)
          (local.get $cap)))
      (i32.or
        (call $finish (i32.add (local.get $lanes) (i32.const 64)) (local.get $classes) (local.get $o2)
          (local.get $cap))
        (call $finish (i32.add (local.get $lanes) (i32.const 96)) (local.get $classes) (local.get $o3)
          (local.get $cap)))))

  ;; Turns `count` pairs' ends (byte addresses, in order, none before `at`) into UTF-16 offsets,
  ;; then counts on to `until`: a character's first byte counts one unit (continuation bytes are
  ;; 10xxxxxx), a four-byte character's two (a surrogate pair). Sixteen bytes at a time.
  (func (export "toUnits") (param $pairs i32) (param $count i32) (param $until i32)
    (local $end i32) (local $at i32) (local $units i32) (local $byte i32) (local $block v128)
    (local.set $at (global.get $at))
    (local.set $units (global.get $units))
    (block $done
      (loop $pair
        (if (local.get $count)
          (then (local.set $end (i32.load (local.get $pairs))))
          (else (local.set $end (local.get $until))))
        (block $counted
          (loop $sixteen
            (br_if $counted (i32.gt_u (i32.add (local.get $at) (i32.const 16)) (local.get $end)))
            (local.set $block (v128.load (local.get $at)))
            (local.set $units
              (i32.add (local.get $units)
                (i32.add
                  (i32.sub (i32.const 16)
                    (i32.popcnt (i8x16.bitmask
                      (i8x16.eq (v128.and (local.get $block) (i8x16.splat (i32.const 0xc0)))
                        (i8x16.splat (i32.const 0x80))))))
                  (i32.popcnt (i8x16.bitmask
                    (i8x16.ge_u (local.get $block) (i8x16.splat (i32.const 0xf0))))))))
            (local.set $at (i32.add (local.get $at) (i32.const 16)))
            (br $sixteen)))
        (block $counted
          (loop $one
            (br_if $counted (i32.ge_u (local.get $at) (local.get $end)))
            (local.set $byte (i32.load8_u (local.get $at)))
            (local.set $units
              (i32.add (local.get $units)
                (i32.add
                  (i32.ne (i32.and (local.get $byte) (i32.const 0xc0)) (i32.const 0x80))
                  (i32.ge_u (local.get $byte) (i32.const 0xf0)))))
            (local.set $at (i32.add (local.get $at) (i32.const 1)))
            (br $one)))
        (br_if $done (i32.eqz (local.get $count)))
        (i32.store (local.get $pairs) (local.get $units))
        (local.set $pairs (i32.add (local.get $pairs) (i32.const 8)))
        (local.set $count (i32.sub (local.get $count) (i32.const 1)))
        (br $pair)))
    (global.set $at (local.get $at))
    (global.set $units (local.get $units)))

  ;; How many bytes of [from, to) are `byte`: sixteen at a time. The scanner counts a long file's
  ;; line breaks with it, to number the lines of its later pieces.
  (func (export "count") (param $from i32) (param $to i32) (param $byte i32) (result i32)
    (local $count i32) (local $pattern v128)
    (local.set $pattern (i8x16.splat (local.get $byte)))
    (block $counted
      (loop $sixteen
        (br_if $counted (i32.gt_u (i32.add (local.get $from) (i32.const 16)) (local.get $to)))
        (local.set $count
          (i32.add (local.get $count)
            (i32.popcnt (i8x16.bitmask (i8x16.eq (v128.load (local.get $from)) (local.get $pattern))))))
        (local.set $from (i32.add (local.get $from) (i32.const 16)))
        (br $sixteen)))
    (block $counted
      (loop $one
        (br_if $counted (i32.ge_u (local.get $from) (local.get $to)))
        (local.set $count
          (i32.add (local.get $count) (i32.eq (i32.load8_u (local.get $from)) (local.get $byte))))
        (local.set $from (i32.add (local.get $from) (i32.const 1)))
        (br $one)))
    (local.get $count)))
