// The interim check for a credential written into code: what it flags, what it leaves (short
// values, words, references to the environment), and that the value never comes back.
import { describe, expect, it } from 'vitest';
import { findSecretAssignments } from '../../src/scan/secret-assignment.ts';

describe('findSecretAssignments', () => {
  it.each([
    ['const API_KEY = "q7Zr2VbN9xKp4LmW8sTd3FhJ";', 'API_KEY', 24],
    ['db_password: Xk29fLq0ZpW7sN3vB8', 'db_password', 18],
    ['"client_secret": "aB3dE5gH7jK9mN1pQ3sT5vW7"', 'client_secret', 24],
    ['token := `Zq8Wm3Xr7Ln2Kp5Vt9Bs4`', 'token', 21],
  ])('flags %s', (line, name, length) => {
    const found = findSecretAssignments(line);
    expect(found).toEqual([{ kind: 'assignment', name, length }]);
  });

  it('flags a PEM private key header', () => {
    expect(findSecretAssignments('-----BEGIN OPENSSH PRIVATE KEY-----')).toEqual([
      { kind: 'private_key', name: 'OPENSSH PRIVATE KEY', length: 0 },
    ]);
  });

  it.each([
    ['a short value', 'password = "hunter2"'],
    ['a low-entropy value', 'token = "aaaaaaaaaaaaaaaaaaaaaaaa"'],
    ['a reference to the environment', 'const apiKey = process.env.SERVICE_API_KEY_VALUE'],
    ['a template placeholder', 'secret: ${SECRET_FROM_THE_VAULT_XYZ}'],
    ['a name that says nothing', 'const checksum = "q7Zr2VbN9xKp4LmW8sTd3FhJ"'],
  ])('leaves %s', (_name, line) => {
    expect(findSecretAssignments(line)).toEqual([]);
  });
});
