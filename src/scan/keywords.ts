// Which of many keywords a text holds, and where, in one pass over it (an Aho-Corasick automaton):
// the scanner's prefilter. Searching the text once per keyword costs a pass per keyword, hundreds of
// passes over a large file; this costs one, whatever the number of keywords. The text is walked as
// UTF-8 bytes by a small WebAssembly loop (keyword-scan.wat), several times the speed of a
// JavaScript loop over its characters, with the hits such a loop would give. Pure.
import { KEYWORD_SCAN_WASM } from './keyword-scan-wasm.ts';

/** Where keywords occur in a text, in the order their ends occur: pairs of (keyword index, end). */
export interface KeywordHits {
  count: number;
  /** Per hit: the keyword's index in `KeywordSet.keywords`. */
  keyword: Int32Array;
  /** Per hit: the offset just after the keyword's last character. */
  end: Int32Array;
}

/**
 * A character's lower-case form when it is one UTF-16 unit long, else the character itself: the
 * search folds case one unit at a time, so a hit's offsets are the text's own (`text.toLowerCase()`
 * may change the length, and costs a copy of the text).
 */
function foldCase(code: number): number {
  if (code < 128) return code >= 65 && code <= 90 ? code + 32 : code;
  const lower = String.fromCharCode(code).toLowerCase();
  return lower.length === 1 ? lower.charCodeAt(0) : code;
}

export class KeywordSet {
  readonly keywords: readonly string[];
  private readonly search: ByteSearch;

  /**
   * Keywords are matched as given against the text folded to lower case: give them in lower case
   * for a search that ignores case. A digit in a keyword stands for any digit (`000` is any three
   * digits in a row): the search folds digits as it folds case. A keyword holding a lone surrogate,
   * or with more than 64 spellings in upper and lower case, cannot be searched: refused here.
   */
  constructor(keywords: readonly string[]) {
    this.keywords = [...new Set(keywords)];
    const search = byteSearch(this.keywords);
    if (!search) {
      throw new Error(
        'a keyword holds a lone surrogate or has too many spellings in upper and lower case: it cannot be searched',
      );
    }
    this.search = search;
  }

  /** The indexes (in `keywords`) of the keywords `text` holds, its case ignored (and digits, as the constructor says). */
  found(text: string): Set<number> {
    const hits = this.hits(text);
    return new Set(hits.keyword.subarray(0, hits.count));
  }

  /**
   * Every occurrence of every keyword in `text`, its case ignored, in the order they end. `utf8`,
   * when given, is the text's own UTF-8 (valid, no byte order mark), read instead of encoding it.
   */
  hits(text: string, utf8?: Uint8Array): KeywordHits {
    // The Kelvin sign is the one character outside ASCII whose lower case is ASCII (`k`): the walk
    // reads a text holding one with each as `k`, one UTF-16 unit for one, so offsets stay the text's.
    if (text.includes('\u212a')) return this.search.hits(text.replaceAll('\u212a', 'k'));
    return this.search.hits(text, utf8);
  }
}

/** `keyword` with every ASCII digit as `0`: how the search reads digits, in keywords and texts alike. */
export function foldDigits(keyword: string): string {
  return keyword.replace(/[0-9]/g, '0');
}

function grow(array: Int32Array, least: number): Int32Array {
  const bigger = new Int32Array(Math.max(least, array.length * 2));
  bigger.set(array);
  return bigger;
}

/** Spellings of one keyword the byte automaton holds at most (its letters outside ASCII in each case). */
const MAX_SPELLINGS = 64;
/** The most bytes of a text the walk is given at once: a longer text goes through in pieces. */
const TEXT_PIECE_BYTES = 3 * 1024 * 1024;
/**
 * The walk takes a piece in four lanes (keyword-scan.wat) of at most this many bytes each, and
 * writes at most LANE_PAIRS pairs for each: a lane whose pairs do not fit is walked again shorter,
 * and a lane no longer than LANE_PAIRS bytes always fits (one pair per byte at most).
 */
const LANE_BYTES = 64 * 1024;
const LANE_PAIRS = 16 * 1024;
/** A stretch shorter than four lanes of this many bytes is walked as one lane. */
const MIN_LANE_BYTES = 256;
/** Where the walk's byte classes sit in its memory; its lanes, then its table follow them. */
const CLASSES_AT = 0;
const LANES_AT = 256;

/** Code units lower-cased in one call when the folds are read. */
const FOLD_BLOCK = 256;

/**
 * The characters outside ASCII that fold to each of `chars` (`É` and `é` to `é`): the byte walk
 * matches a keyword's letters in every case by holding each spelling. Lone surrogates fold to
 * themselves and encode as U+FFFD, so a keyword holding one cannot be searched by bytes.
 *
 * Every code unit is read, lower-cased a block at a time with each unit followed by a space: one
 * call per block rather than one per unit, with no map of every unit's fold (a thread's start spent
 * 12 ms there, now about 3). Between spaces no unit's lower case depends on its neighbours, as a
 * final sigma's does; a block where some unit lower-cases to two (`İ`) is read a unit at a time.
 */
function foldingTo(chars: ReadonlySet<number>): Map<number, number[]> | undefined {
  const to = new Map<number, number[]>();
  for (const c of chars) {
    if (c >= 0xd800 && c <= 0xdfff) return undefined;
    to.set(c, []);
  }
  if (to.size === 0) return to;
  // The block as UTF-16LE bytes, written a byte at a time so that the platform's byte order does
  // not matter; surrogates are written as spaces (alone, they would decode as U+FFFD).
  const bytes = new Uint8Array(4 * FOLD_BLOCK);
  const decoder = new TextDecoder('utf-16le');
  const surrogate = (code: number) => code >= 0xd800 && code <= 0xdfff;
  for (let first = 128; first < 0x10000; first += FOLD_BLOCK) {
    const count = Math.min(FOLD_BLOCK, 0x10000 - first);
    for (let i = 0; i < count; i++) {
      const code = surrogate(first + i) ? 32 : first + i;
      bytes[4 * i] = code & 0xff;
      bytes[4 * i + 1] = code >> 8;
      bytes[4 * i + 2] = 32;
      bytes[4 * i + 3] = 0;
    }
    const spaced = decoder.decode(bytes.subarray(0, 4 * count));
    const lower = spaced.toLowerCase();
    if (lower.length !== spaced.length) {
      for (let code = first; code < first + count; code++) {
        if (!surrogate(code)) to.get(foldCase(code))?.push(code);
      }
      continue;
    }
    for (const [c, folded] of to) {
      const char = String.fromCharCode(c);
      for (let at = lower.indexOf(char); at !== -1; at = lower.indexOf(char, at + 1)) {
        if (at % 2 === 0) folded.push(first + at / 2);
      }
    }
  }
  return to;
}

/** Every spelling of `keyword` whose folded form it is (its characters outside ASCII in each case). */
function spellings(keyword: string, folds: Map<number, number[]>): string[] | undefined {
  let all = [''];
  for (let i = 0; i < keyword.length; i++) {
    const code = keyword.charCodeAt(i);
    const forms = code < 128 ? [code] : (folds.get(code) ?? []);
    all = all.flatMap((start) => forms.map((form) => start + String.fromCharCode(form)));
    if (all.length > MAX_SPELLINGS) return undefined;
  }
  return all;
}

/** One text's walk: its hits so far, the automaton's row, and the UTF-16 units before the piece walked. */
interface Walk {
  keyword: Int32Array;
  end: Int32Array;
  count: number;
  row: number;
  unitsBefore: number;
}

interface ByteSearch {
  hits(text: string, utf8?: Uint8Array): KeywordHits;
}

/** The part of the WebAssembly API used here: the DOM library declares it, this project's (ES2024) does not. */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};

/** What keyword-scan.wat exports. */
interface KeywordScan {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  at: { value: number };
  units: { value: number };
  walk(classes: number, lanes: number, out: number, cap: number): number;
  toUnits(pairs: number, count: number, until: number): void;
  count(from: number, to: number, byte: number): number;
}

let compiled: object | undefined;

/** A new instance of keyword-scan.wat, with memory of its own: the module is compiled once. */
function scanInstance(): KeywordScan {
  compiled ??= new WebAssembly.Module(Uint8Array.from(atob(KEYWORD_SCAN_WASM), (c) => c.charCodeAt(0)));
  return new WebAssembly.Instance(compiled).exports as KeywordScan;
}

/** Bytes counted at once by lineBreaks: a longer text goes through in pieces. */
const COUNT_PIECE_BYTES = 1024 * 1024;
let counter: { exports: KeywordScan; view: Uint8Array } | undefined;

/**
 * How many line breaks (`\n`) UTF-8 `bytes` hold, sixteen bytes at a time: the scanner numbers
 * the lines of a long file's later pieces with it. A loop of `indexOf` over a piece's text took a
 * tenth of the time spent scanning a large bundle of short lines.
 */
export function lineBreaks(bytes: Uint8Array): number {
  if (!counter) {
    const exports = scanInstance();
    exports.memory.grow(COUNT_PIECE_BYTES / 65536);
    counter = { exports, view: new Uint8Array(exports.memory.buffer, 0, COUNT_PIECE_BYTES) };
  }
  const { exports, view } = counter;
  let count = 0;
  for (let from = 0; from < bytes.length; from += COUNT_PIECE_BYTES) {
    const piece = bytes.subarray(from, from + COUNT_PIECE_BYTES);
    view.set(piece);
    count += exports.count(0, piece.length, 10);
  }
  return count;
}

/**
 * The automaton over the keywords' UTF-8 bytes, every spelling of each, with ASCII's upper case
 * moving as its lower case, and the WebAssembly loop that walks it; null when a keyword cannot be
 * spelled in bytes (one holding a surrogate, or with too many spellings).
 */
function byteSearch(keywords: readonly string[]): ByteSearch | null {
  const outside = new Set<number>();
  for (const keyword of keywords)
    for (let i = 0; i < keyword.length; i++)
      if (keyword.charCodeAt(i) >= 128) outside.add(keyword.charCodeAt(i));
  const folds = foldingTo(outside);
  if (!folds) return null;
  const encoder = new TextEncoder();
  /** Every spelling of every keyword, in bytes, with the keyword's index. */
  const forms: { index: number; bytes: Uint8Array }[] = [];
  for (const [index, keyword] of keywords.entries()) {
    const spelled = spellings(foldDigits(keyword), folds);
    if (!spelled) return null;
    for (const form of spelled) forms.push({ index, bytes: encoder.encode(form) });
  }
  /** The longest spelling in bytes: a lane that starts this far before its first byte is in step there. */
  const longest = Math.max(0, ...forms.map((f) => f.bytes.length));
  // A class per byte some keyword holds; every other byte is class 0, which always leads back to
  // the root (no keyword goes on with it). Upper-case ASCII letters move as their lower-case
  // forms, and every digit as `0` (keywords are given in lower case, digits as `0`): the text is
  // folded as it is read. The automaton is built over classes, a few dozen, not 256 bytes.
  const classOf = new Uint8Array(256);
  let width = 1;
  for (const { bytes } of forms) for (const byte of bytes) if (classOf[byte] === 0) classOf[byte] = width++;
  for (let byte = 65; byte <= 90; byte++) classOf[byte] = classOf[byte + 32]!;
  for (let byte = 49; byte <= 57; byte++) classOf[byte] = classOf[48]!;
  // The trie: a row of `width` moves per state (-1: none), in one array sized for the most states
  // the spellings can make (one per byte, and the root), and the keywords that end in each state.
  // One array, not one per state: a new thread builds this before its first file.
  const next = new Int32Array((1 + forms.reduce((n, f) => n + f.bytes.length, 0)) * width).fill(-1);
  let states = 1;
  const outputs: number[][] = [[]];
  for (const { index, bytes } of forms) {
    let state = 0;
    for (const byte of bytes) {
      const at = state * width + classOf[byte]!;
      if (next[at] === -1) {
        next[at] = states++;
        outputs.push([]);
      }
      state = next[at]!;
    }
    if (!outputs[state]!.includes(index)) outputs[state]!.push(index);
  }
  // Breadth first: each state's missing moves become its fail state's, whose row is complete by
  // then (it is shallower), and its outputs gain its fail state's.
  const fail = new Int32Array(states);
  const queue: number[] = [];
  for (let cls = 0; cls < width; cls++) {
    if (next[cls] === -1) next[cls] = 0;
    else queue.push(next[cls]!);
  }
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head]!;
    const row = state * width;
    const failRow = fail[state]! * width;
    outputs[state]!.push(...outputs[fail[state]!]!.filter((k) => !outputs[state]!.includes(k)));
    for (let cls = 0; cls < width; cls++) {
      const to = next[row + cls]!;
      if (to === -1) next[row + cls] = next[failRow + cls]!;
      else {
        fail[to] = next[failRow + cls]!;
        queue.push(to);
      }
    }
  }
  const outputStart = new Int32Array(states + 1);
  outputs.forEach((out, state) => (outputStart[state + 1] = outputStart[state]! + out.length));
  const flatOutputs = Int32Array.from(outputs.flat());

  const exports = scanInstance();
  const memory = exports.memory;
  const rowBytes = width * 4;
  const table = LANES_AT + 128;
  const out = table + states * rowBytes;
  const textAt = out + 4 * LANE_PAIRS * 8;
  // The classes, the lanes, the table, the pairs and one piece of text: all the memory the walk
  // ever needs.
  memory.grow(Math.ceil((textAt + TEXT_PIECE_BYTES - memory.buffer.byteLength) / 65536));
  new Uint8Array(memory.buffer, CLASSES_AT, 256).set(classOf);
  {
    const rows = new Int32Array(memory.buffer, table, states * width);
    for (let at = 0; at < states * width; at++) {
      const address = table + next[at]! * rowBytes;
      rows[at] = outputs[next[at]!]!.length > 0 ? ~address : address;
    }
  }
  const minLane = Math.max(MIN_LANE_BYTES, longest);
  /** Per lane, 8 values: the address of its next byte, past its last, its row, no pairs before, pairs written. */
  const lanes = new Int32Array(memory.buffer, LANES_AT, 32);
  const pairs = new Int32Array(memory.buffer, out, 4 * LANE_PAIRS * 2);

  /**
   * Sets the lanes for bytes [from, from + span) of the piece at textAt, the automaton in `row` at
   * `from`: four equal lanes, each after the first starting `longest` bytes early in the root
   * state, or one lane for a short stretch.
   */
  const setLanes = (from: number, span: number, row: number) => {
    const cuts =
      span < 4 * minLane
        ? [from, from + span, from + span, from + span, from + span]
        : [0, 1, 2, 3, 4].map((k) => from + Math.floor((span * k) / 4));
    for (let lane = 0; lane < 4; lane++) {
      const first = cuts[lane]!;
      const early = lane === 0 || first === cuts[lane + 1] ? 0 : longest;
      lanes[lane * 8] = textAt + first - early;
      lanes[lane * 8 + 1] = textAt + cuts[lane + 1]!;
      lanes[lane * 8 + 2] = lane === 0 ? row : table;
      lanes[lane * 8 + 3] = textAt + first;
      lanes[lane * 8 + 4] = 0;
    }
  };

  /**
   * Walks the piece of `length` bytes at textAt on from where the last piece left the automaton,
   * adding its hits to `walk`'s. In a piece of ASCII alone a byte is a unit; else the units are
   * counted. Defined once, not per text, as is addPairs: their code stays compiled from one text
   * to the next.
   */
  const walkPiece = (walk: Walk, length: number, ascii: boolean) => {
    exports.at.value = textAt;
    exports.units.value = walk.unitsBefore;
    const shift = ascii ? walk.unitsBefore - textAt : 0;
    for (let from = 0; from < length;) {
      let span = Math.min(length - from, 4 * LANE_BYTES);
      setLanes(from, span, walk.row);
      while (exports.walk(CLASSES_AT, LANES_AT, out, LANE_PAIRS) !== 0) {
        span = Math.ceil(span / 2);
        setLanes(from, span, walk.row);
      }
      for (let lane = 0; lane < 4; lane++) {
        const written = lanes[lane * 8 + 4]!;
        if (written === 0) continue;
        if (!ascii) exports.toUnits(out + lane * LANE_PAIRS * 8, written, 0);
        addPairs(walk, lane * LANE_PAIRS * 2, written, shift);
      }
      // The last lane that walked ends the stretch: the next starts in its state.
      walk.row = lanes[lanes[27] !== lanes[25] ? 26 : 2]!;
      from += span;
    }
    if (ascii) walk.unitsBefore += length;
    else {
      exports.toUnits(0, 0, textAt + length);
      walk.unitsBefore = exports.units.value;
    }
  };
  /** Adds a lane's `written` pairs, from `first` in `pairs`, to `walk`'s hits: each keyword that ends in the pair's state. */
  const addPairs = (walk: Walk, first: number, written: number, shift: number) => {
    let { keyword, end, count } = walk;
    for (let p = first, last = first + written * 2; p < last; p += 2) {
      const state = (pairs[p + 1]! - table) / rowBytes;
      const from = outputStart[state]!;
      const to = outputStart[state + 1]!;
      if (count + to - from > keyword.length) {
        keyword = grow(keyword, count + to - from);
        end = grow(end, count + to - from);
      }
      for (let o = from; o < to; o++) {
        keyword[count] = flatOutputs[o]!;
        end[count++] = pairs[p]! + shift;
      }
    }
    walk.keyword = keyword;
    walk.end = end;
    walk.count = count;
  };

  return {
    hits(text, utf8) {
      const walk: Walk = {
        keyword: new Int32Array(1024),
        end: new Int32Array(1024),
        count: 0,
        row: table,
        unitsBefore: 0,
      };
      // A long text goes through in pieces, so the module's memory (which never shrinks) stays
      // about TEXT_PIECE_BYTES however long the texts a process meets. The automaton's state and
      // the UTF-16 count carry from piece to piece, so a keyword across a cut is found.
      const view = new Uint8Array(memory.buffer, textAt, TEXT_PIECE_BYTES);
      if (utf8) {
        const ascii = utf8.length === text.length;
        for (let from = 0; from < utf8.length; from += TEXT_PIECE_BYTES) {
          const piece = utf8.subarray(from, from + TEXT_PIECE_BYTES);
          view.set(piece);
          walkPiece(walk, piece.length, ascii);
        }
      } else {
        // UTF-8 takes at most three bytes per UTF-16 unit. A surrogate pair cut in two is encoded
        // as two U+FFFD, still two units, and no keyword the byte walk holds has a surrogate.
        for (let from = 0; from < text.length; from += TEXT_PIECE_BYTES / 3) {
          const { read, written } = encoder.encodeInto(text.slice(from, from + TEXT_PIECE_BYTES / 3), view);
          walkPiece(walk, written, read === written);
        }
      }
      return { count: walk.count, keyword: walk.keyword, end: walk.end };
    },
  };
}
