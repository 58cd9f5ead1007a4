// What `svc mcp`'s tools use on this computer, composed with the first tool call: the service (in
// this process over the local store, or a remote `svc serve`), the gate, the vault, the
// svc_connect flow and its approval page. Listing the tools needs none of it, so none of it loads
// before a client's first tools/list (mcp-stdio.ts).
import { Service } from '../backend/service.ts';
import { remoteInvoker, type Invoker } from '../backend/invoke.ts';
import { ConnectFlow } from '../backend/connect-flow.ts';
import { GateCheck } from '../backend/gate-check.ts';
import { openCore, type OpenedCore } from '../backend/core.ts';
import { ensureDataDir, resolveDataDir } from '../config/paths.ts';
import { machineFacts } from '../config/machine.ts';
import { ORG_KEY_CREDENTIAL, openVault, type KeyVault } from '../vault/index.ts';
import type { ToolDeps } from '../tools/registry.ts';
import type { RunningServer } from '../http/server.ts';

const bearer = (value: string | undefined) => (value?.trim() ? `Bearer ${value.trim()}` : undefined);

export interface StdioTools {
  /** The tools' dependencies for one call; the credentials are read from the environment each time. */
  deps(): Omit<ToolDeps, 'confirm' | 'openUrl' | 'progress' | 'client'>;
  /** Closes what was opened: the approval page's server, the gate's watchers, the store. */
  close(): Promise<void>;
}

export function stdioTools(): StdioTools {
  // SVC_BASE_URL points the tools at a remote `svc serve`; otherwise they use the local store.
  const baseUrl = process.env.SVC_BASE_URL?.trim();
  // The store opens with the first tool call, not at start: a client lists the tools first, and
  // listing needs no store. (A store that cannot open then answers that call with the reason.)
  let opened: Service | undefined;
  const local = baseUrl ? undefined : () => (opened ??= new Service({ dataDir: resolveDataDir() }));
  const invoker: Invoker = local
    ? {
        get location() {
          return local().invoker.location;
        },
        invoke: (operation, bearer, input) => local().invoke(operation, bearer, input),
      }
    : remoteInvoker(baseUrl!);
  // This computer's vault keeps the organization key svc_connect received.
  let ownVault: KeyVault | undefined;
  const machineVault = () =>
    local ? local().ctx.vault : (ownVault ??= openVault(ensureDataDir(resolveDataDir())).vault);
  let pages: Promise<RunningServer> | undefined;
  const flow = new ConnectFlow({
    invoker,
    machine: machineFacts,
    // No `svc serve` is needed: the approval page is served here, for as long as this process runs.
    pageBase: async () => {
      if (!local) throw new Error('a remote service serves its own approval page');
      const service = local();
      pages ??= Promise.all([import('../http/server.ts'), import('../http/connect-pages.ts')]).then(
        ([{ startServer }, { mountConnectPages }]) =>
          startServer({
            service,
            port: 0,
            closeService: false,
            mounts: [(app) => mountConnectPages(app, service.invoker, { clock: service.ctx.clock })],
          }),
      );
      return (await pages).url;
    },
    keepKey: (apiKey) => {
      machineVault().putCredential(ORG_KEY_CREDENTIAL, apiKey);
      storedKey = apiKey;
    },
  });
  // The key svc_connect stored is read once it exists, then kept: a keychain read per tool call
  // would cost every call a round trip to the keychain daemon.
  let storedKey: string | undefined;
  const ownerFromVault = () => {
    storedKey ??= machineVault().getCredential(ORG_KEY_CREDENTIAL);
    return storedKey;
  };
  // The gate of this computer, for svc's own tools: in remote mode decisions are still counted and
  // recorded in this computer's store, as its hooks record them.
  let ownCore: OpenedCore | undefined;
  const coreOf = () => (local ? local().ctx : (ownCore ??= openCore({ dataDir: resolveDataDir() })).ctx);
  const gate = new GateCheck({ dataDir: resolveDataDir(), core: coreOf });
  return {
    deps: () => {
      const fromEnv = bearer(process.env.SVC_API_KEY);
      return {
        invoker,
        ownerBearer: fromEnv ?? bearer(ownerFromVault()),
        ownerSource: fromEnv ? 'SVC_API_KEY' : 'keychain',
        agentBearer: bearer(process.env.SVC_AGENT_TOKEN),
        credentialSource: 'environment',
        connect: { flow, keyStore: machineVault().location },
        gate,
        find: async () => (await import('../backend/scan.ts')).finderOf(coreOf()),
        // Sealed files belong to this computer: their keys are in its store, also in remote mode.
        seals: {
          protect: async (paths, options) =>
            (await import('../backend/seal-files.ts')).protectPaths(coreOf(), paths, options),
          open: async (path, options) =>
            (await import('../backend/seal-files.ts')).openSealed(coreOf(), path, options),
          revoke: async (target, options) =>
            (await import('../backend/seal-files.ts')).revokeSeal(coreOf(), target, options),
        },
        // So is the archive: its objects are in this computer's data dir, their keys in its vault.
        archive: {
          wrap: async (paths, options) =>
            (await import('../backend/archive.ts')).wrapPaths(coreOf(), paths, options),
          list: async () => (await import('../backend/archive.ts')).listArchive(coreOf()),
          restore: async (id, options) =>
            (await import('../backend/archive.ts')).restoreArchived(coreOf(), id, options),
        },
        // Vault secrets are this computer's too: a command runs here with them.
        runner: async (options) => (await import('../backend/run.ts')).runWithSecrets(coreOf(), options),
        // The agent's Fabric key is this computer's too: envelopes are opened here, also in remote mode.
        fabricKeys: {
          get location() {
            return coreOf().vault.location;
          },
          secret: async (name) =>
            (await import('../backend/fabric-inbox.ts')).fabricKeyStore(coreOf()).secret(name),
        },
      };
    },
    close: async () => {
      if (pages) await (await pages).close();
      await gate.close();
      opened?.close();
      ownCore?.ctx.store.close();
    },
  };
}
