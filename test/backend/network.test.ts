// Which addresses a source reaches by default: every special-purpose range is refused, IPv6 forms
// that carry an IPv4 address are judged by it, and the connection's lookup hands on only what passes.
import { describe, expect, it } from 'vitest';
import type { LookupAddress } from 'node:dns';
import { guardedLookup, hostRange, privateRange, type ResolveHost } from '../../src/backend/network.ts';

describe('privateRange', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.255.254', 'a loopback address'],
    ['10.1.2.3', 'a private address (RFC 1918)'],
    ['172.16.0.1', 'a private address (RFC 1918)'],
    ['172.31.255.255', 'a private address (RFC 1918)'],
    ['192.168.1.1', 'a private address (RFC 1918)'],
    ['100.64.0.1', 'a carrier-grade NAT address (RFC 6598)'],
    ['169.254.169.254', 'a link-local address (cloud metadata services live here)'],
    ['0.0.0.0', 'a "this network" address'],
    ['192.0.2.10', 'a documentation address'],
    ['198.18.0.1', 'a benchmarking address'],
    ['224.0.0.1', 'a multicast address'],
    ['255.255.255.255', 'a reserved or broadcast address'],
    ['::', 'the unspecified address'],
    ['::1', 'a loopback address'],
    ['fe80::1', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['fc00::1', 'a unique local address'],
    ['fd12:3456::1', 'a unique local address'],
    ['ff02::1', 'a multicast address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['::ffff:a9fe:a9fe', 'a link-local address (cloud metadata services live here)'],
    ['64:ff9b::a00:1', 'a private address (RFC 1918)'],
    ['2002:7f00:1::', 'a loopback address'],
    ['::127.0.0.1', 'a reserved address'],
    ['2001:db8::1', 'a documentation address'],
    ['2001::1', 'an IETF protocol address (Teredo and others)'],
  ])('%s is %s', (address, range) => {
    expect(privateRange(address)).toBe(range);
  });

  it.each([
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '1.1.1.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('%s is public', (address) => {
    expect(privateRange(address)).toBeUndefined();
  });
});

describe('hostRange', () => {
  it.each([
    ['[::1]', '::1'],
    ['LOCALHOST', 'localhost'],
    ['api.localhost', 'api.localhost'],
    ['127.0.0.1', '127.0.0.1'],
  ])('%s is refused before any lookup', (host, address) => {
    expect(hostRange(host)?.address).toBe(address);
  });

  it('a name is left to the lookup', () => {
    expect(hostRange('api.example.com')).toBeUndefined();
  });
});

describe('guardedLookup', () => {
  const resolve: ResolveHost = async () => [
    { address: '10.0.0.5', family: 4 },
    { address: '93.184.215.14', family: 4 },
    { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
  ];
  const lookup = (allowPrivate: boolean, options: { all?: boolean; family?: number }) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[] }>((done) =>
      guardedLookup(resolve, allowPrivate)('api.example.com', options, (error, address) =>
        done({ error, address }),
      ),
    );

  it('hands on only the public addresses, in either shape node:net asks for', async () => {
    expect((await lookup(false, { all: true })).address).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ]);
    expect((await lookup(false, {})).address).toBe('93.184.215.14');
    expect((await lookup(false, { family: 6 })).address).toBe('2606:2800:21f:cb07:6820:80da:af6b:8b2c');
  });

  it('with the opt-in, hands on every address', async () => {
    expect((await lookup(true, {})).address).toBe('10.0.0.5');
  });

  it('refuses a name whose every address is private', async () => {
    const only: ResolveHost = async () => [{ address: '127.0.0.1', family: 4 }];
    const error = await new Promise<NodeJS.ErrnoException | null>((done) =>
      guardedLookup(only, false)('rebind.example.com', { all: true }, (e) => done(e)),
    );
    expect(error).toMatchObject({ code: 'SVC_PRIVATE_ADDRESS', address: '127.0.0.1' });
  });
});
