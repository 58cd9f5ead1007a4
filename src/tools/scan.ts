// svc_scan_folder: finds secrets and personal data in a folder or a file of this computer, for an
// agent. Every file is read only as the read gate lets this agent read it: a file a rule protects
// is not read and is counted as protected (its decision on the audit chain). Values never come
// back: a finding has a masked preview and a fingerprint.
import { resolve } from 'node:path';
import { z } from 'zod';
import { ServiceError } from '../backend/errors.ts';
import { GateUnavailable } from '../gate/check.ts';
import { RulesUnreadable } from '../gate/local.ts';
import { defineTool } from './registry.ts';

/** Findings listed at most in one answer: a model's context is not the place for thousands. */
export const SCAN_FINDINGS_SHOWN = 100;

const Input = z
  .object({
    path: z.string().min(1).max(4096).describe('the folder or file to scan, absolute or relative to cwd'),
    cwd: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe("where a relative path starts and the project is found (default: the server's folder)"),
  })
  .strict();

const FindingView = z.object({
  file: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  category: z.enum(['secret', 'pii']),
  type: z.string(),
  rule: z.string(),
  confidence: z.number(),
  fingerprint: z.string(),
  preview: z.string(),
});

const Output = z.object({
  findings: z.array(FindingView),
  total_findings: z.number().int(),
  files_scanned: z.number().int(),
  bytes_scanned: z.number().int(),
  /** Files not read, by reason: protected (the gate), binary, too_large, unreadable. */
  skipped: z.record(z.string(), z.number().int()),
  protected_files: z.array(z.string()),
  next: z.string(),
});

export const svcScanFolder = defineTool({
  name: 'svc_scan_folder',
  group: 'find-lock',
  title: 'Scan a folder for secrets and personal data',
  description:
    "Scans a folder (or one file) on this computer for secrets (cloud, version control, chat, payment, AI, registry and database credentials, private keys, tokens, passwords in assignments) and personal data (emails, phone numbers, card numbers, IBANs, US SSNs, IP addresses, dates of birth, names in labelled fields). It honours .gitignore and .svcignore, skips binaries, and reads only the files the owner's rules let you read: protected files are counted, not read. Values are never returned: each finding has a masked preview and a fingerprint. Use svc_rules to see the rules; protect what it finds before sharing the folder.",
  credential: 'none',
  inputSchema: Input,
  outputSchema: Output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (input, deps) => {
    const { gate, scan } = deps;
    if (!gate || !scan) {
      throw new ServiceError(
        'forbidden',
        'this server has no read gate of its own, so it reads no file: run svc_scan_folder through `svc mcp` on the computer that holds the files',
      );
    }
    const cwd = input.cwd ?? process.cwd();
    const asker = { cwd, client: 'svc' };
    let result;
    try {
      result = await scan(resolve(cwd, input.path), {
        admit: async (path) => {
          const { decision } = await gate.check({ kind: 'paths', action: 'read', paths: [path] }, asker);
          return decision.outcome === 'allowed' || decision.outcome === 'limited';
        },
        onProgress: ({ files, bytes }) =>
          void deps.progress(files, undefined, `${files} files, ${(bytes / 1048576).toFixed(1)} MiB scanned`),
      });
    } catch (error) {
      // Rules that cannot be read are the owner's to fix; until then nothing is read.
      if (error instanceof RulesUnreadable || error instanceof GateUnavailable) {
        throw new ServiceError(
          'forbidden',
          `the read gate cannot decide, so nothing was read: ${error.message}`,
        );
      }
      throw error;
    }
    const skipped: Record<string, number> = {};
    for (const s of result.skipped) skipped[s.reason] = (skipped[s.reason] ?? 0) + 1;
    const protectedFiles = result.skipped.filter((s) => s.reason === 'protected').map((s) => s.file);
    const shown = result.findings.slice(0, SCAN_FINDINGS_SHOWN);
    const next =
      result.findings.length === 0
        ? 'nothing found; protected files were not read'
        : 'review the findings with the person; keep secrets out of files the agent reads (move them to the vault, or add a rule with svc_rules)';
    const lines = shown.map(
      (f) => `${f.file}:${f.line}:${f.column} ${f.category} ${f.type} (${f.rule}) ${f.preview}`,
    );
    lines.push(
      `${result.findings.length} finding(s) in ${result.files_scanned} file(s)${protectedFiles.length ? `; ${protectedFiles.length} protected file(s) not read` : ''}`,
    );
    return {
      text: lines.join('\n'),
      structured: {
        findings: shown,
        total_findings: result.findings.length,
        files_scanned: result.files_scanned,
        bytes_scanned: result.bytes_scanned,
        skipped,
        protected_files: protectedFiles.slice(0, 20),
        next,
      },
    };
  },
});
