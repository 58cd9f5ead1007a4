;; The keyword search's inner loop, over the UTF-8 bytes of a text: one table lookup per byte, in
;; WebAssembly because a JavaScript loop over a string's characters runs at about half the speed.
;; The automaton's table is built in JavaScript (keywords.ts); this only walks it.
;;
;; classes: 256 bytes, each byte's class: the bytes no keyword holds share one, an upper-case
;;   ASCII letter has its lower-case form's. A row per state holds an entry per class, not per
;;   byte: the table is a few times smaller and stays in the processor's cache.
;; table: per state, one entry of 4 bytes per class; an entry is the next state's row offset in
;;   bytes, complemented (negative) when keywords end in that state.
;; out: pairs of 4-byte values (end, row) for each move into a state where keywords end; `end` is
;;   the offset just after the byte, in UTF-16 code units (what JavaScript's offsets count).
;; The walk's position (byte offset, row, UTF-16 offset) is kept in globals between calls, so a
;; full `out` is emptied and the walk goes on where it stopped.
(module
  (memory (export "memory") 1)
  (global $at (export "at") (mut i32) (i32.const 0))
  (global $row (export "row") (mut i32) (i32.const 0))
  (global $units (export "units") (mut i32) (i32.const 0))

  ;; Walks text[at..length); returns how many pairs it wrote to out (at most cap).
  (func (export "scan")
    (param $text i32) (param $length i32) (param $classes i32) (param $table i32) (param $out i32)
    (param $cap i32)
    (result i32)
    (local $at i32) (local $row i32) (local $units i32) (local $byte i32) (local $next i32)
    (local $count i32)
    (local.set $at (global.get $at))
    (local.set $row (global.get $row))
    (local.set $units (global.get $units))
    (block $done
      (loop $walk
        (br_if $done (i32.ge_u (local.get $at) (local.get $length)))
        (local.set $byte (i32.load8_u (i32.add (local.get $text) (local.get $at))))
        (local.set $at (i32.add (local.get $at) (i32.const 1)))
        ;; A character's first byte counts one UTF-16 unit (continuation bytes are 10xxxxxx); a
        ;; four-byte character counts two (a surrogate pair).
        (local.set $units
          (i32.add (local.get $units)
            (i32.add
              (i32.ne (i32.and (local.get $byte) (i32.const 0xc0)) (i32.const 0x80))
              (i32.ge_u (local.get $byte) (i32.const 0xf0)))))
        (local.set $next
          (i32.load
            (i32.add (local.get $table)
              (i32.add (local.get $row)
                (i32.shl (i32.load8_u (i32.add (local.get $classes) (local.get $byte))) (i32.const 2))))))
        (if (i32.lt_s (local.get $next) (i32.const 0))
          (then
            (local.set $next (i32.xor (local.get $next) (i32.const -1)))
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 3)))
              (local.get $units))
            (i32.store offset=4 (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 3)))
              (local.get $next))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))
            (local.set $row (local.get $next))
            (br_if $done (i32.ge_u (local.get $count) (local.get $cap)))
            (br $walk)))
        (local.set $row (local.get $next))
        (br $walk)))
    (global.set $at (local.get $at))
    (global.set $row (local.get $row))
    (global.set $units (local.get $units))
    (local.get $count)))
