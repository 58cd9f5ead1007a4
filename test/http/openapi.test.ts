// The OpenAPI 3.1 document: built from the validating schemas, complete, and clean under a real
// linter (@redocly/cli, its recommended rules).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { harness } from '../helpers.ts';

/** Every endpoint of the specification's two groups. */
const SPEC_ROUTES = [
  'POST /api/v1/governance/grant',
  'GET /api/v1/agents',
  'POST /api/access/compute',
  'POST /api/agents/{handle}/read',
  'POST /api/agents/{handle}/fabric/enroll',
  'GET /api/v1/fabric-grants',
  'POST /api/v1/fabric-grants',
  'PATCH /api/v1/fabric-grants',
  'POST /api/agents/{handle}/fabric/send',
  'GET /api/agents/{handle}/fabric/inbox',
  'POST /api/agents/{handle}/fabric/fetch',
  'POST /v1/documents/compute',
  'POST /access/verify',
  'POST /v1/capsules',
  'GET /v1/capsules',
  'GET /v1/capsules/{id}',
  'POST /v1/capsules/{id}/documents',
  'POST /v1/capsules/{id}/members',
  'POST /v1/capsules/{id}/ai-grants',
  'POST /v1/capsules/{id}/revoke',
  'POST /v1/recovery/pubkey',
  'POST /v1/recovery/copy',
  'POST /v1/recovery/event',
  'GET /v1/recovery/state',
  'GET /v1/overview',
  'GET /v1/usage/invoice',
];

/** Endpoints svc adds; each must carry x-svc-extension. */
const EXTENSIONS = [
  'POST /api/v1/governance/revoke',
  'GET /api/v1/tables',
  'POST /api/v1/tables',
  'POST /api/v1/tables/{name}/rows',
  'GET /access/proofs/{id}',
  'GET /.well-known/svc-keys.json',
  'GET /api/v1/whoami',
  'GET /api/v1/policy',
  'GET /api/v1/proofs',
  'POST /api/access/retrieve',
  'POST /api/access/read',
  'POST /api/v1/nodes',
  'POST /api/v1/terms',
  'GET /api/v1/terms',
  'GET /api/v1/terms/{version}',
  'POST /api/v1/sources',
  'GET /api/v1/sources',
  'POST /api/v1/sources/{name}/call',
  'GET /api/v1/rules',
  'POST /api/v1/rules',
  'DELETE /api/v1/rules/{rule_id}',
  'POST /api/v1/patches',
  'GET /api/v1/patches',
  'POST /api/v1/patches/{patch_id}/approve',
  'POST /api/v1/patches/{patch_id}/reject',
  'GET /api/v1/scan-feedback',
  'POST /api/v1/scan-feedback/{feedback_id}/promote',
  'POST /api/v1/scans/{scan_id}/plan/apply',
  'POST /api/v1/links',
  'GET /api/v1/links',
  'GET /api/v1/links/{link_id}',
  'POST /api/v1/links/{link_id}/burn',
  'POST /api/v1/links/{link_id}/revoke',
  'GET /s/{link_id}/info',
  'POST /s/{link_id}/open',
  'GET /x/{exposure_id}/files',
  'POST /x/{exposure_id}/copy',
  'POST /api/v1/connect/device',
  'POST /api/v1/connect/token',
  'POST /api/access/use',
  'POST /api/agents/{handle}/fabric/enroll/challenge',
  'GET /api/agents/{handle}/fabric/senders',
  'GET /api/agents/{handle}/fabric/keys/{kid}',
];

const h = harness();
afterAll(() => h.close());

describe('GET /openapi.json', () => {
  it('is OpenAPI 3.1, lists every route, and marks the extensions', async () => {
    const r = await h.request('GET', '/openapi.json');
    expect(r.status).toBe(200);
    const doc = r.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    const operations = Object.entries(
      doc.paths as Record<string, Record<string, { 'x-svc-extension'?: boolean }>>,
    ).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, op })),
    );
    const routes = operations.map((o) => o.route).sort();
    expect(routes).toEqual([...SPEC_ROUTES, ...EXTENSIONS].sort());
    const extensions = operations
      .filter((o) => o.op['x-svc-extension'])
      .map((o) => o.route)
      .sort();
    expect(extensions).toEqual([...EXTENSIONS].sort());
    // The request schema is the validating one: its limits appear in the document.
    const read = doc.components.schemas.ReadRequest;
    expect(read.properties.limit).toMatchObject({ minimum: 1, maximum: 200 });
  });

  it('passes @redocly/cli lint with no errors and no warnings', async () => {
    const r = await h.request('GET', '/openapi.json');
    const file = join(h.dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(r.body));
    const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
    let output: string;
    try {
      output = execFileSync(process.execPath, [cli, 'lint', file, '--format=stylish', '--max-problems=50'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      });
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string };
      throw new Error(`redocly lint failed:\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`, {
        cause: error,
      });
    }
    expect(output).not.toMatch(/warning|error/i);
  });
});
