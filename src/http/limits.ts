// Rate limits for what anyone may call without a credential: token buckets in this process's
// memory, keyed by the client's address, on a clock that tests move instead of waiting.
import type { Context } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import type { Clock } from '../backend/context.ts';

/** A bucket holds up to `burst` tokens and gets one back every `refillSeconds`. */
export interface Rate {
  burst: number;
  refillSeconds: number;
}

/** Addresses remembered at most: past it, the least recently seen is forgotten. */
const MAX_KEYS = 10_000;

interface Level {
  tokens: number;
  at: number;
}

/** One token bucket per key; a key not remembered has a full bucket. */
export class Buckets {
  private readonly levels = new Map<string, Level>();
  private readonly rate: Rate;
  private readonly clock: Clock;

  constructor(rate: Rate, clock: Clock) {
    this.rate = rate;
    this.clock = clock;
  }

  private level(key: string): Level {
    const at = this.clock().getTime();
    const kept = this.levels.get(key);
    if (!kept) return { tokens: this.rate.burst, at };
    const regained = Math.max(0, at - kept.at) / (this.rate.refillSeconds * 1000);
    return { tokens: Math.min(this.rate.burst, kept.tokens + regained), at };
  }

  private keep(key: string, level: Level): void {
    // Map order is the order of last use: re-inserting moves the key to the end. A full bucket is
    // the same as none, so it is not kept.
    this.levels.delete(key);
    if (level.tokens >= this.rate.burst) return;
    this.levels.set(key, level);
    if (this.levels.size > MAX_KEYS) this.levels.delete(this.levels.keys().next().value!);
  }

  /**
   * Takes a token for `key`. Answers 0 when one was taken, otherwise the whole seconds until one
   * will be there (nothing is taken then).
   */
  take(key: string): number {
    const level = this.level(key);
    if (level.tokens < 1) return Math.ceil((1 - level.tokens) * this.rate.refillSeconds);
    this.keep(key, { tokens: level.tokens - 1, at: level.at });
    return 0;
  }

  /** Gives back a token taken for a request that turned out not to count. */
  giveBack(key: string): void {
    const level = this.level(key);
    this.keep(key, { tokens: Math.min(this.rate.burst, level.tokens + 1), at: level.at });
  }
}

/**
 * Who is asking, as far as the connection tells: its remote address (see `addressKey`). Requests
 * without a socket (in-process tests) share one key. Behind a proxy every client has the proxy's
 * address; forwarded headers are not trusted.
 */
export function clientOf(c: Context): string {
  const address = (c.env as HttpBindings | undefined)?.incoming?.socket?.remoteAddress;
  return address ? addressKey(address) : 'unknown';
}

/** An IPv4 address as it is (also when IPv4-mapped); an IPv6 address by its /64, which one host commonly holds whole. */
export function addressKey(address: string): string {
  const v4 = /^(?:::ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (v4) return v4[1]!;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, `::` expanded (a zone suffix dropped). */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.split('%')[0]!.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros =
    tail === undefined ? [] : Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0');
  return [...left, ...zeros, ...right].map((group) => group.replace(/^0+(?=.)/, ''));
}
