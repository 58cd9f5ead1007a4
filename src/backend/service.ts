// The service: the core opened on a data dir (core.ts), and the invoker every in-process adapter
// calls operations through.
import type { VaultKind } from '../vault/index.ts';
import { openCore, type ServiceOptions } from './core.ts';
import type { Context, LocalGate } from './context.ts';
import { localInvoker, type Invoker } from './invoke.ts';
import type { Operation } from './operation.ts';

export type { ServiceOptions } from './core.ts';

export class Service {
  readonly ctx: Context;
  readonly dataDir: string;
  /** Where the keys live: the OS keychain, or key files in the data dir (the fallback). */
  readonly vaultKind: VaultKind;
  readonly vaultFallbackReason: string | null;
  private local: Invoker | undefined;

  constructor(options: ServiceOptions) {
    ({
      ctx: this.ctx,
      dataDir: this.dataDir,
      vaultKind: this.vaultKind,
      vaultFallbackReason: this.vaultFallbackReason,
    } = openCore(options));
    // The gate of this computer, for exposures: loaded with the first one asked for, and compiled
    // rules checked against their files' stamps at every decision, so no watcher is needed.
    const { ctx, dataDir } = this;
    let gate: Promise<LocalGate> | undefined;
    ctx.localGate = () =>
      (gate ??= import('./gate-check.ts').then(
        ({ GateCheck }) => new GateCheck({ dataDir, core: () => ctx, watch: false }),
      ));
  }

  close(): void {
    this.ctx.store.close();
  }

  /** Calls operations on this core, authenticating each bearer: what in-process adapters use. */
  get invoker(): Invoker {
    this.local ??= localInvoker(this.ctx, {
      kind: 'local',
      data_dir: this.dataDir,
      key_store: this.ctx.vault.location,
      key_store_kind: this.vaultKind,
      key_store_note: this.vaultFallbackReason,
    });
    return this.local;
  }

  /** Shorthand for `invoker.invoke`. */
  invoke<I, R>(operation: Operation<I, R>, bearer: string | undefined, input: I): Promise<Awaited<R>> {
    return this.invoker.invoke(operation, bearer, input);
  }
}
