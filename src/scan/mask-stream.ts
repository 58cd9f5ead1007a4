// Masking a stream of output (a command's stdout or stderr) as it arrives: the same masks as
// mask.ts, chunk by chunk, so a secret split across chunks is masked as surely as a whole one.
// Pure: text in, text out; the caller decodes bytes and writes what it is given.
import { MASK, MASK_WINDOW, Masker } from './mask.ts';

/**
 * The most characters held back between chunks. Every match mask.ts makes is at most MASK_WINDOW
 * characters wide (a window of a long form, or a whole short form), so a character more than
 * MASK_WINDOW - 1 from the end can no longer join a match: it is final and goes out at once. Held
 * back is thus independent of how long the secrets' forms are, and never more than 7 characters.
 */
export const HELD_BACK = MASK_WINDOW - 1;

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** Masks secrets out of one stream of text chunks; `fired` counts the masks written so far. */
export class StreamMasker {
  private readonly masker: Masker;
  /** Text received and not yet written: at most HELD_BACK characters (one more for a surrogate). */
  private tail = '';
  /**
   * How many leading characters of `tail` belong to a MASK already written (0: it ended just before
   * `tail`), or null when what was written last is not a MASK. A match that reaches or touches
   * them continues that MASK rather than writing another, as one pass over the whole text would.
   */
  private open: number | null = null;
  private ended = false;
  fired = 0;

  constructor(secrets: readonly string[] | Masker) {
    this.masker = secrets instanceof Masker ? secrets : new Masker(secrets);
  }

  /** What may be written after `chunk`: everything final so far, masked. */
  push(chunk: string): string {
    if (this.ended) throw new Error('the stream has ended');
    return this.emit(this.tail + chunk, false);
  }

  /** The rest, once the stream has ended: nothing more can join a match. */
  end(): string {
    if (this.ended) return '';
    this.ended = true;
    return this.emit(this.tail, true);
  }

  private emit(text: string, final: boolean): string {
    let limit = final ? text.length : Math.max(0, text.length - HELD_BACK);
    // Never split a surrogate pair: written alone, each half would become U+FFFD.
    if (!final && limit > 0 && isHighSurrogate(text.charCodeAt(limit - 1))) limit--;
    const runs = this.masker.runs(text);
    const open = this.open;
    let continuing = false;
    if (open !== null) {
      const first = runs[0];
      if (first && first[0] <= open) {
        first[0] = 0;
        first[1] = Math.max(first[1], open);
        continuing = true;
      } else if (open > 0) {
        runs.unshift([0, open]);
        continuing = true;
      }
    }
    let out = '';
    let at = 0;
    let next: number | null = null;
    for (const [index, [start, end]] of runs.entries()) {
      const continues = index === 0 && continuing;
      if (start >= limit) {
        // Not final yet; only the continuation of a MASK already written stays open.
        if (continues) next = end;
        break;
      }
      out += text.slice(at, start);
      if (!continues) {
        out += MASK;
        this.fired++;
      }
      at = end;
      if (end >= limit) {
        next = end - limit;
        break;
      }
    }
    if (at < limit) out += text.slice(at, limit);
    this.tail = text.slice(limit);
    this.open = next === null ? null : Math.min(next, this.tail.length);
    return out;
  }
}
