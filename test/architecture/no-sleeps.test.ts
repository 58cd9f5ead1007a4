// No test waits a fixed time for something to happen: it waits for the event that says it happened.
import { readFileSync, readdirSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Shapes of a sleep, matched line by line. A delay that is long enough on an idle machine is too
 * short on a loaded one (the test flakes) and too long everywhere else (the suite crawls), so the
 * rule is: wait for a line on a stream, a promise the code under test resolves, an 'exit', 'close'
 * or 'disconnect' event.
 *
 * - A timer whose callback resolves a promise, `setTimeout(resolve, N)` or
 *   `setTimeout(() => resolve(), N)`: the usual `new Promise((resolve) => setTimeout(resolve, N))`,
 *   and the heart of any poll-until-true loop.
 * - Awaiting a sleep by name: `await sleep(`, `await delay(`, `await setTimeout(` (the
 *   node:timers/promises one), `await scheduler.wait(`.
 * - `setInterval(`: polling on an interval is the same guess, repeated.
 *
 * A timer that rejects, kills or aborts is a deadline: it bounds a wait and never ends one in
 * success, so it passes (as does `AbortSignal.timeout`). A line that matches yet really is a
 * deadline carries a `// deadline:` comment saying so.
 */
const SLEEPS: readonly RegExp[] = [
  /\bsetTimeout\(\s*(?:\(\s*\)\s*=>\s*)?(?:resolve|res|r)\b/,
  /\bawait\s+(?:sleep|delay|setTimeout|scheduler\.wait)\s*\(/,
  /\bsetInterval\(/,
];
const ALLOW = '// deadline:';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// This file spells out the shapes it forbids, in the comment above and in the samples below.
const SELF = 'test/architecture/no-sleeps.test.ts';

const posix = (path: string): string => path.split(sep).join('/');

function sleepsIn(text: string): { line: number; text: string }[] {
  return text
    .split('\n')
    .map((line, index) => ({ line: index + 1, text: line.trim() }))
    .filter(({ text }) => !text.includes(ALLOW) && SLEEPS.some((shape) => shape.test(text)));
}

describe('the sleep detector', () => {
  it('flags the shapes of a sleep', () => {
    const sleeps = [
      'await new Promise((resolve) => setTimeout(resolve, 300));',
      'await new Promise((r) => setTimeout(r, 20));',
      'await new Promise<void>((resolve) => setTimeout(() => resolve(), 500));',
      'await sleep(100);',
      'await delay(100);',
      "await setTimeout(300); // from 'node:timers/promises'",
      'const poll = setInterval(check, 20);',
    ];
    expect(sleepsIn(sleeps.join('\n')).map((hit) => hit.line)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('passes deadlines and allow-listed lines', () => {
    const deadlines = [
      "setTimeout(() => reject(new Error('no exit within 5 s')), 5_000),",
      "const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);",
      "const timer = setTimeout(() => fail('no URL'), timeoutMs);",
      "await once(client, 'disconnect', { signal: AbortSignal.timeout(10_000) });",
      "setTimeout(() => resolve('timed out'), 5_000); // deadline: the caller fails on 'timed out'",
    ];
    expect(sleepsIn(deadlines.join('\n'))).toEqual([]);
  });
});

describe('the tests', () => {
  it('never sleep to order events', () => {
    const files = readdirSync(resolve(ROOT, 'test'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map((entry) => posix(relative(ROOT, resolve(entry.parentPath, entry.name))))
      .filter((file) => file !== SELF)
      .sort();
    expect(files.length).toBeGreaterThan(10);
    const found = files.flatMap((file) =>
      sleepsIn(readFileSync(resolve(ROOT, file), 'utf8')).map((hit) => `${file}:${hit.line}: ${hit.text}`),
    );
    expect(
      found,
      `waits by the clock; wait for an event, or mark a deadline with ${ALLOW}:\n  ${found.join('\n  ')}`,
    ).toEqual([]);
  });
});
