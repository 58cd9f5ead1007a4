// Which of many keywords a text holds, in one pass over it (an Aho-Corasick automaton): the
// scanner's prefilter. Searching the text once per keyword costs a pass per keyword, hundreds of
// passes over a large file; this costs one, whatever the number of keywords. Pure.

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

  /** Keywords are matched as given: lower-case them, and the text, for a search that ignores case. */
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
    this.ascii = new Int32Array(this.next.length * 128);
    // States in breadth-first order: a state's fail state is filled in before it.
    for (const state of [0, ...queue]) {
      for (let code = 0; code < 128; code++) {
        const to = this.next[state]!.get(code);
        this.ascii[state * 128 + code] =
          to ?? (state === 0 ? 0 : this.ascii[this.fail[state]! * 128 + code]!);
      }
    }
  }

  /** The indexes (in `keywords`) of the keywords `text` holds. */
  found(text: string): Set<number> {
    const hits = new Set<number>();
    const all = this.keywords.length;
    let state = 0;
    for (let i = 0; i < text.length && hits.size < all; i++) {
      const code = text.charCodeAt(i);
      if (code < 128) {
        state = this.ascii[state * 128 + code]!;
        for (const index of this.output[state]!) hits.add(index);
        continue;
      }
      let to = this.next[state]!.get(code);
      while (to === undefined && state !== 0) {
        state = this.fail[state]!;
        to = this.next[state]!.get(code);
      }
      state = to ?? 0;
      for (const index of this.output[state]!) hits.add(index);
    }
    return hits;
  }
}
