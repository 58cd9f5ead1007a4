// Benchmark `source-mask`: what masking costs a source call's answer. The worst answer svc masks
// is the largest it reads (256 KiB) from an upstream that echoes everything, for an agent whose
// request is as large as allowed (32 KiB), so that every encoded form of the credential and of the
// request is looked for. Beside it, the same answer masked for the credential alone (an
// organization key's call) and the floor: one pass of `indexOf` for the credential as given, the
// least any masking must do. Figures are informational: there is no target.
import { randomBytes } from 'node:crypto';
import { Masker } from '../src/scan/mask.ts';
import { measure, type Benchmark } from './lib.ts';

const ANSWER_BYTES = 256 * 1024;
const REQUEST_BYTES = 32 * 1024;
const LIMIT_BYTES = 64 * 1024;

/** An echo-style answer: JSON with the headers (credential included) and the request body, twice. */
function echoAnswer(credential: string, body: string): string {
  let text = '';
  while (text.length < ANSWER_BYTES) {
    text += JSON.stringify({ headers: { authorization: `Bearer ${credential}` }, data: body, args: {} });
  }
  return text.slice(0, ANSWER_BYTES);
}

export const sourceMask: Benchmark = {
  name: 'source-mask',
  description: `masking a ${ANSWER_BYTES / 1024} KiB echoing answer (credential in every encoding, a ${REQUEST_BYTES / 1024} KiB reflected request) and cutting it to ${LIMIT_BYTES / 1024} KiB`,
  async run() {
    await Promise.resolve();
    const credential = `sk_live_${randomBytes(24).toString('base64url')}`;
    const body = randomBytes(REQUEST_BYTES * 0.75).toString('base64');
    const text = echoAnswer(credential, body);
    const agentMasker = () => new Masker([credential], { reflected: [body] });
    const agent = measure(() => agentMasker().answer(text, { limitBytes: LIMIT_BYTES, complete: true }), {
      durationMs: 3000,
    });
    const owner = measure(
      () => new Masker([credential]).answer(text, { limitBytes: LIMIT_BYTES, complete: true }),
      { durationMs: 3000 },
    );
    const floor = measure(() => text.split(credential).join('[credential]'), { durationMs: 2000 });
    const ms = (perSecond: number) => 1000 / perSecond;
    return {
      metrics: [
        {
          key: 'agent_answer_ms',
          label: 'agent call: credential and reflected request',
          value: ms(agent.perSecond),
          unit: 'ms',
        },
        {
          key: 'owner_answer_ms',
          label: 'organization key call: credential only',
          value: ms(owner.perSecond),
          unit: 'ms',
        },
        {
          key: 'floor_ms',
          label: 'floor: one split of the credential as given',
          value: ms(floor.perSecond),
          unit: 'ms',
        },
        {
          key: 'agent_mb_per_sec',
          label: 'agent call, answer masked per second',
          value: (agent.perSecond * ANSWER_BYTES) / 1024 / 1024,
          unit: 'MiB/s',
        },
      ],
      checks: [],
      notes: [
        'each figure includes building the masker (its windows) and the cut, as a call does; one call masks one answer',
      ],
    };
  },
};
