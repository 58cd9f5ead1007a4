// The owner's side of an exposure, for the adapters on this computer (`svc expose`, svc_expose):
// start one and make the link a partner opens, and read an exposure's id back from its link.
import type { Invoker } from './invoke.ts';
import { ops } from './operations/index.ts';
import { ServiceError } from './errors.ts';
import { linkBase, newAccessCode } from './share-client.ts';

export interface ExposeOptions {
  folder: string;
  expiresHours?: number | undefined;
  maxCopies?: number | undefined;
  /** Make an access code here (printed once to the owner, kept only as a hash). */
  code?: boolean | undefined;
  by: string;
}

export async function exposeFolder(invoker: Invoker, options: ExposeOptions) {
  const code = options.code ? newAccessCode() : undefined;
  const started = await invoker.invoke(ops.startExposure, undefined, {
    folder: options.folder,
    ...(options.expiresHours === undefined ? {} : { expires_hours: options.expiresHours }),
    ...(options.maxCopies === undefined ? {} : { max_copies: options.maxCopies }),
    ...(code ? { code } : {}),
    by: options.by,
  });
  const base = linkBase(invoker);
  return {
    url: `${base.url}${started.path}`,
    exposure_id: started.exposure_id,
    folder: started.folder,
    expires_at: started.expires_at,
    max_copies: started.max_copies,
    code: code ?? null,
    receipt_id: started.receipt.receipt_id,
    served: base.served,
    note: base.note,
  };
}

/** An exposure's id from its link (any base) or the bare id. */
export function exposureIdOf(link: string): string {
  const match = /(?:^|\/x\/)([A-Za-z0-9_-]{22})(?:[#?/].*)?$/.exec(link.trim());
  if (!match) {
    throw new ServiceError(
      'invalid_request',
      `\`${link}\` is not an exposure link or id (22 characters after /x/)`,
    );
  }
  return match[1]!;
}
