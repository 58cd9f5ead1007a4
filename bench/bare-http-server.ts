// The baseline for `http-compute`: a bare node:http server, run as its own process, that reads
// a POSTed JSON body, parses it and answers a small JSON body. It is the floor of what any
// Node JSON API costs per request (HTTP parsing, body read, JSON in and out) on this machine.
// Prints "bare server listening on http://127.0.0.1:PORT" once it is ready; SIGTERM stops it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const ANSWER = JSON.stringify({ decision: 'allow', allowed: { columns: ['id', 'email'] }, reasons: [] });

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid JSON"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(ANSWER) });
    res.end(ANSWER);
  });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`bare server listening on http://127.0.0.1:${port}\n`);
});

process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
