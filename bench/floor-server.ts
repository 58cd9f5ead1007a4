// The floor for `http-compute`: what no receipted API can avoid per request, on bare node:http.
// It parses the POSTed JSON, signs one Ed25519 signature over a payload of the receipt's size,
// commits one row to SQLite in WAL mode (synchronous=NORMAL, like svc), and answers a JSON body of
// the size svc answers (FLOOR_ANSWER_BYTES). Run as its own process; prints "floor server listening
// on http://127.0.0.1:PORT" once ready; SIGTERM stops it.
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

const [dir] = process.argv.slice(2);
const answerBytes = Number(process.env.FLOOR_ANSWER_BYTES ?? 1500);
const payloadBytes = Number(process.env.FLOOR_PAYLOAD_BYTES ?? 600);

const db = new DatabaseSync(join(dir!, 'floor.db'));
db.exec('PRAGMA journal_mode = WAL');
db.exec('PRAGMA synchronous = NORMAL');
db.exec(
  'CREATE TABLE IF NOT EXISTS receipts (n INTEGER PRIMARY KEY, payload TEXT NOT NULL, signature TEXT NOT NULL)',
);
const insert = db.prepare('INSERT INTO receipts (payload, signature) VALUES (?, ?)');
const { privateKey } = generateKeyPairSync('ed25519');
let n = 0;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid JSON"}');
      return;
    }
    n++;
    const seed = createHash('sha256')
      .update(`${n}${JSON.stringify(body)}`)
      .digest('hex');
    const payload = JSON.stringify({ n, seed, pad: 'x'.repeat(Math.max(0, payloadBytes - 100)) });
    const signature = sign(null, Buffer.from(payload), privateKey).toString('hex');
    insert.run(payload, signature); // autocommit: one transaction, one WAL commit per request
    const answer = JSON.stringify({ payload, signature }).padEnd(answerBytes - 1, ' ') + '\n';
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
    res.end(answer);
  });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`floor server listening on http://127.0.0.1:${port}\n`);
});

process.once('SIGTERM', () => {
  server.close(() => {
    db.close();
    process.exit(0);
  });
  server.closeAllConnections();
});
