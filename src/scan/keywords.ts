// Which of many keywords a text holds, and where, in one pass over it (an Aho-Corasick automaton):
// the scanner's prefilter. Searching the text once per keyword costs a pass per keyword, hundreds of
// passes over a large file; this costs one, whatever the number of keywords. Pure.

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
  /** Per state: the next state for each character code seen in a keyword. */
  private readonly next: Map<number, number>[] = [new Map()];
  private readonly fail: number[] = [0];
  /** Per state: the keywords that end there, its fail chain's included. */
  private readonly output: number[][] = [[]];
  readonly keywords: readonly string[];
  /**
   * For ASCII, the automaton's whole move (fail links followed) per state and character, in one
   * flat table: a lookup per character of the text, where the maps cost a hash and a loop.
   */
  private readonly ascii: Int32Array;
  /** Every state's outputs, one after another: state `s`'s are from outputStart[s] to outputStart[s + 1]. */
  private readonly outputStart: Int32Array;
  private readonly outputs: Int32Array;

  /** Non-ASCII characters folded so far: the search meets few distinct ones. */
  private readonly folded = new Map<number, number>();

  /**
   * Keywords are matched as given against the text folded to lower case: give them in lower case
   * for a search that ignores case.
   */
  constructor(keywords: readonly string[]) {
    this.keywords = [...new Set(keywords)];
    this.keywords.forEach((keyword, index) => {
      let state = 0;
      for (let i = 0; i < keyword.length; i++) {
        const code = keyword.charCodeAt(i);
        let to = this.next[state]!.get(code);
        if (to === undefined) {
          to = this.next.length;
          this.next.push(new Map());
          this.fail.push(0);
          this.output.push([]);
          this.next[state]!.set(code, to);
        }
        state = to;
      }
      this.output[state]!.push(index);
    });
    // Breadth first: a state's fail link is the longest proper suffix of its text that is a prefix
    // of some keyword; its outputs gain those of its fail state.
    const queue: number[] = [...this.next[0]!.values()];
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      for (const [code, to] of this.next[state]!) {
        let f = this.fail[state]!;
        while (f !== 0 && !this.next[f]!.has(code)) f = this.fail[f]!;
        const target = this.next[f]!.get(code);
        this.fail[to] = target !== undefined && target !== to ? target : 0;
        this.output[to]!.push(...this.output[this.fail[to]!]!);
        queue.push(to);
      }
    }
    // Rows are 128 wide and a state is kept as its row's offset, so a move is one lookup. Upper-case
    // letters move as their lower-case forms: the text is folded as it is read, at no cost.
    this.ascii = new Int32Array(this.next.length * 128);
    // States in breadth-first order: a state's fail state is filled in before it.
    for (const state of [0, ...queue]) {
      for (let code = 0; code < 128; code++) {
        const to = this.next[state]!.get(code);
        this.ascii[state * 128 + code] =
          to !== undefined ? to * 128 : state === 0 ? 0 : this.ascii[this.fail[state]! * 128 + code]!;
      }
      for (let code = 65; code <= 90; code++)
        this.ascii[state * 128 + code] = this.ascii[state * 128 + code + 32]!;
    }
    this.outputStart = new Int32Array(this.next.length + 1);
    this.output.forEach(
      (out, state) => (this.outputStart[state + 1] = this.outputStart[state]! + out.length),
    );
    this.outputs = Int32Array.from(this.output.flat());
    // A move into a state where keywords end is stored complemented (negative): the search looks
    // for outputs only then, not at every character.
    for (let i = 0; i < this.ascii.length; i++) {
      const to = this.ascii[i]! >> 7;
      if (this.outputStart[to] !== this.outputStart[to + 1]) this.ascii[i] = ~this.ascii[i]!;
    }
  }

  /** The indexes (in `keywords`) of the keywords `text` holds, its case ignored. */
  found(text: string): Set<number> {
    const hits = this.hits(text);
    return new Set(hits.keyword.subarray(0, hits.count));
  }

  /** Every occurrence of every keyword in `text`, its case ignored, in the order they end. */
  hits(text: string): KeywordHits {
    let keyword: Int32Array = new Int32Array(1024);
    let end: Int32Array = new Int32Array(1024);
    let count = 0;
    const { ascii, outputStart, outputs } = this;
    /** The state times 128: its row in `ascii`. */
    let row = 0;
    const length = text.length;
    for (let i = 0; i < length; i++) {
      let code = text.charCodeAt(i);
      // Most characters are ASCII and move into states where no keyword ends: this loop does only
      // that, and leaves it for the rest.
      while (code < 128) {
        row = ascii[row + code]!;
        if (row < 0 || ++i === length) break;
        code = text.charCodeAt(i);
      }
      if (i === length) break;
      if (row < 0) row = ~row;
      else {
        let lower = this.folded.get(code);
        if (lower === undefined) this.folded.set(code, (lower = foldCase(code)));
        row = this.move(row >> 7, lower) * 128;
      }
      const state = row >> 7;
      const first = outputStart[state]!;
      const last = outputStart[state + 1]!;
      if (first === last) continue;
      if (count + last - first > keyword.length) {
        keyword = grow(keyword, count + last - first);
        end = grow(end, count + last - first);
      }
      for (let o = first; o < last; o++) {
        keyword[count] = outputs[o]!;
        end[count++] = i + 1;
      }
    }
    return { count, keyword, end };
  }

  private move(state: number, code: number): number {
    let to = this.next[state]!.get(code);
    while (to === undefined && state !== 0) {
      state = this.fail[state]!;
      to = this.next[state]!.get(code);
    }
    return to ?? 0;
  }
}

function grow(array: Int32Array, least: number): Int32Array {
  const bigger = new Int32Array(Math.max(least, array.length * 2));
  bigger.set(array);
  return bigger;
}
