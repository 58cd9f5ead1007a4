// Linking this computer to an organization, from the computer's side (RFC 8628 device flow): start
// a request, send the person to the approval page, poll until they decide, keep the key. A request
// this process started and has not finished is resumed rather than restarted.
import type { Invoker } from './invoke.ts';
import { ops } from './operations/index.ts';
import type { MachineFacts } from './setup.ts';

export interface ConnectHooks {
  /** Asks the client to open the page for the person. */
  openUrl(message: string, url: string): Promise<'accepted' | 'declined' | 'closed' | 'no_form'>;
  progress(done: number, total: number, message: string): Promise<void>;
}

export type ConnectOutcome =
  | { status: 'connected'; user_code: string; verification_uri: string; org_id: string; node_id: string }
  | {
      status: 'pending' | 'denied' | 'expired' | 'cancelled';
      user_code: string;
      verification_uri: string;
    };

interface Pending {
  device_code: string;
  verification_uri: string;
  expires_at: number;
  interval: number;
}

export interface ConnectFlowOptions {
  invoker: Invoker;
  machine: () => MachineFacts;
  /** Where a browser reaches the approval page, when the service answers relative paths. */
  pageBase(): Promise<string>;
  /** Keeps the organization key the approval delivered (it is never shown). */
  keepKey(apiKey: string): void;
  /** Waits between polls; tests pass one that resolves at once. */
  wait?: (ms: number) => Promise<void>;
}

export class ConnectFlow {
  private readonly pending = new Map<string, Pending>();
  private readonly options: ConnectFlowOptions;

  constructor(options: ConnectFlowOptions) {
    this.options = options;
  }

  /** One step: start or resume a request, then wait up to `waitSeconds` for the person's decision. */
  async step(waitSeconds: number, hooks: ConnectHooks): Promise<ConnectOutcome> {
    const { invoker } = this.options;
    const now = Date.now();
    for (const [code, request] of this.pending) if (request.expires_at <= now) this.pending.delete(code);
    let [userCode, request] = [...this.pending.entries()].at(-1) ?? [];
    if (!userCode || !request) {
      const started = await invoker.invoke(ops.startConnect, undefined, this.options.machine());
      const uri = (started as { verification_uri?: string }).verification_uri;
      userCode = started.user_code;
      request = {
        device_code: started.device_code,
        // A remote service answers the page's full address; in process, the page is served here.
        verification_uri: uri ?? (await this.options.pageBase()) + started.verification_path,
        expires_at: now + started.expires_in * 1000,
        interval: started.interval,
      };
      this.pending.set(userCode, request);
      const opened = await hooks.openUrl(
        `Open this page to approve connecting this computer; check that it shows the code ${userCode}.`,
        request.verification_uri,
      );
      if (opened === 'declined') {
        this.pending.delete(userCode);
        return { status: 'cancelled', user_code: userCode, verification_uri: request.verification_uri };
      }
    }
    const base = { user_code: userCode, verification_uri: request.verification_uri };
    const deadline = Math.min(request.expires_at, now + waitSeconds * 1000);
    const wait = this.options.wait ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    for (;;) {
      const state = await invoker.invoke(ops.pollConnect, undefined, { device_code: request.device_code });
      if (state.status === 'approved') {
        this.pending.delete(userCode);
        this.options.keepKey(state.api_key!);
        return { status: 'connected', ...base, org_id: state.org_id!, node_id: state.node_id! };
      }
      if (state.status !== 'pending') {
        this.pending.delete(userCode);
        return { status: state.status, ...base };
      }
      const waited = Math.round((Date.now() - now) / 1000);
      await hooks.progress(
        waited,
        Math.round((deadline - now) / 1000),
        `waiting for approval of ${userCode}`,
      );
      if (Date.now() >= deadline) return { status: 'pending', ...base };
      await wait(request.interval * 1000);
    }
  }
}
