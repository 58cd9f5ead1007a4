// The sender's side of a share link (docs/SHARE.md), for the CLI and the tools alike: seal the
// content here, hand the service ciphertext and policy, and put the key only into the link's
// fragment. Also where links are served from: the public base the owner set, the address of the
// `svc serve` running on this data dir, or the remote service's own address.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { svcCommand } from '../config/command.ts';
import { writeFileAtomic } from '../config/paths.ts';
import { sealForLink } from '../proofs/link-seal.ts';
import { ServiceError } from './errors.ts';
import type { Invoker } from './invoke.ts';
import { ops } from './operations/index.ts';
import { randomInt } from 'node:crypto';
import { LINK_MAX_BYTES } from './vocabulary.ts';
import { contentTypeOf, refuseSealedContent } from './media-types.ts';

/** Where the `svc serve` of a data dir says it listens, while it runs. */
const SERVING_FILE = 'serving.json';
/** `svc serve`'s default address, when no running one has said where it is. */
export const DEFAULT_SERVE_URL = 'http://127.0.0.1:8787';

export function recordServing(dataDir: string, url: string): () => void {
  const file = join(dataDir, SERVING_FILE);
  writeFileAtomic(file, `${JSON.stringify({ url, pid: process.pid })}\n`, 0o600);
  return () => {
    try {
      const kept = JSON.parse(readFileSync(file, 'utf8')) as { pid?: number };
      if (kept.pid === process.pid) rmSync(file, { force: true });
    } catch {
      // Already gone, or rewritten by another server: nothing of ours to remove.
    }
  };
}

/** Whether a process still runs (signal 0 checks without sending anything). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface LinkBase {
  url: string;
  /** Whether something is known to serve links there now. */
  served: boolean;
  /** What the person must do for the link to open, when something must be done. */
  note: string | null;
}

/**
 * Where links of this invoker's service open. SVC_PUBLIC_URL when the owner set one (the service
 * sits behind a proxy other people reach); else a remote service's own address; else the address
 * of the `svc serve` running on this data dir; else the default address, with a note to start it.
 */
export function linkBase(invoker: Invoker, env: NodeJS.ProcessEnv = process.env): LinkBase {
  const publicUrl = env.SVC_PUBLIC_URL?.trim();
  if (publicUrl) return { url: publicUrl.replace(/\/+$/, ''), served: true, note: null };
  const location = invoker.location;
  if (location.kind === 'remote')
    return { url: location.base_url.replace(/\/+$/, ''), served: true, note: null };
  const file = join(location.data_dir, SERVING_FILE);
  if (existsSync(file)) {
    try {
      const kept = JSON.parse(readFileSync(file, 'utf8')) as { url?: unknown; pid?: unknown };
      if (typeof kept.url === 'string' && typeof kept.pid === 'number' && running(kept.pid)) {
        return { url: kept.url, served: true, note: null };
      }
    } catch {
      // An unreadable record is no record: fall through to the default.
    }
  }
  return {
    url: DEFAULT_SERVE_URL,
    served: false,
    // Who reads this may be a model with a shell, where a bare `svc` is no command: the whole line.
    note: `the link opens only while svc serve runs on this computer: start it with \`${svcCommand('serve')}\`, then share the link; set SVC_PUBLIC_URL for people on other computers`,
  };
}

/** An access code people can read out: 8 characters without look-alikes (no 0/O, 1/I/L), in two halves. */
export function newAccessCode(): string {
  const alphabet = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
  const pick = () => Array.from({ length: 4 }, () => alphabet[randomInt(alphabet.length)]).join('');
  return `${pick()}-${pick()}`;
}

export interface SendLinkOptions {
  bytes: Uint8Array;
  /** The file's name, sealed with the content; absent for a message. */
  name?: string | undefined;
  expiresHours?: number | undefined;
  maxOpens?: number | undefined;
  burnAfterRead?: boolean | undefined;
  viewOnly?: boolean | undefined;
  /** Ask for an access code (made here) or give one. */
  code?: boolean | string | undefined;
  senderName?: string | undefined;
}

/** Seals content, keeps it behind a new link, and answers the whole link (key in its fragment). */
export async function sendLink(invoker: Invoker, ownerBearer: string | undefined, options: SendLinkOptions) {
  if (options.bytes.byteLength > LINK_MAX_BYTES) {
    throw new ServiceError(
      'payload_too_large',
      `a link carries at most ${LINK_MAX_BYTES} bytes; this is ${options.bytes.byteLength}: send a smaller file, or seal it (svc_protect, or \`svc protect\`) and share it another way`,
      { limit_bytes: LINK_MAX_BYTES },
    );
  }
  refuseSealedContent(options.bytes, options.name);
  const code = options.code === true ? newAccessCode() : options.code || undefined;
  const { fragment, ...sealed } = await sealForLink(options.bytes, options.name);
  const made = await invoker.invoke(ops.createLink, ownerBearer, {
    ...sealed,
    size_bytes: options.bytes.byteLength,
    content_type: contentTypeOf(options.name, options.bytes),
    ...(options.senderName ? { sender_name: options.senderName } : {}),
    ...(options.expiresHours !== undefined ? { expires_hours: options.expiresHours } : {}),
    ...(options.maxOpens !== undefined ? { max_opens: options.maxOpens } : {}),
    ...(options.burnAfterRead ? { burn_after_read: true } : {}),
    ...(options.viewOnly ? { view_only: true } : {}),
    ...(code ? { code } : {}),
  });
  const base = linkBase(invoker);
  return {
    url: `${base.url}${made.path}#${fragment}`,
    link_id: made.link_id,
    expires_at: made.expires_at,
    max_opens: made.max_opens,
    burn_after_read: made.burn_after_read,
    view_only: made.view_only,
    code: code ?? null,
    receipt_id: made.receipt.receipt_id,
    served: base.served,
    note: base.note,
  };
}

/** A link's id from the link itself (any base, with or without its fragment) or the bare id. */
export function linkIdOf(link: string): string {
  const match = /(?:^|\/s\/)([A-Za-z0-9_-]{22})(?:[#?/].*)?$/.exec(link.trim());
  if (!match) {
    throw new ServiceError(
      'invalid_request',
      `\`${link}\` is not a link or a link id (22 characters after /s/)`,
    );
  }
  return match[1]!;
}
