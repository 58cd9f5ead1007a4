// The media type svc gives content it shares (links, envelopes): by the file name's extension, else
// text when the bytes are UTF-8 without NUL bytes, else bytes. Text types name their charset, so a
// browser shows them as they were written. A file sealed in place is not shared at all: its bytes
// are ciphertext that only this computer's vault opens.
import { extname } from 'node:path';
import { hasSealedMagic } from '../vault/sealed-file.ts';
import { ServiceError } from './errors.ts';

/**
 * Refuses content that is a file sealed by svc protect (it starts with the seal header): sent as it
 * is, it would be ciphertext no recipient can open, labelled as the type its name says.
 */
export function refuseSealedContent(bytes: Uint8Array, name: string | undefined): void {
  if (!hasSealedMagic(bytes)) return;
  throw new ServiceError(
    'invalid_request',
    `${name ?? 'the text'} is a file sealed by svc_protect (or \`svc protect\`): sent as it is, it would be ciphertext nobody else can open. Open it first with svc_open, \`out\` a new file (or \`svc open FILE --out COPY\`), send the opened copy, and remove it afterwards; nothing was sent`,
    { sealed: true },
  );
}

const BY_EXTENSION: Record<string, string> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.toml': 'application/toml',
  '.xml': 'application/xml',
  '.html': 'text/html',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.ts': 'text/x-typescript',
  '.py': 'text/x-python',
  '.go': 'text/x-go',
  '.rs': 'text/x-rust',
  '.java': 'text/x-java',
  '.sh': 'application/x-sh',
  '.sql': 'application/sql',
  '.env': 'text/plain',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
};

/** The bytes as text when they are UTF-8 without NUL bytes, else null. */
export function asText(bytes: Uint8Array): string | null {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return text.includes('\u0000') ? null : text;
  } catch {
    return null;
  }
}

export function contentTypeOf(name: string | undefined, bytes: Uint8Array): string {
  const known = name ? BY_EXTENSION[extname(name).toLowerCase()] : undefined;
  const type = known ?? (asText(bytes) === null ? 'application/octet-stream' : 'text/plain');
  return type.startsWith('text/') ? `${type}; charset=utf-8` : type;
}
