// Holds a store's write lock the way a long CLI command does (a big `table load`): takes it,
// says so, keeps it for the given milliseconds, commits, says so, and exits.
import { DatabaseSync } from 'node:sqlite';

const [file, holdMs] = process.argv.slice(2);
const db = new DatabaseSync(file!, { timeout: 10_000 });
db.exec('BEGIN IMMEDIATE');
// A real change, so the commit is a real one.
db.prepare('INSERT INTO key_fingerprints (name, fingerprint, recorded_at) VALUES (?, ?, ?)').run(
  'lock-holder',
  '0000000000000000',
  new Date().toISOString(),
);
process.stdout.write('locked\n');
setTimeout(() => {
  db.exec('COMMIT');
  db.close();
  process.stdout.write('released\n');
}, Number(holdMs));
