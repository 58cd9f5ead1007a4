// Which addresses an external API call may reach. A source reaches public addresses only, unless
// its owner opted in for private ones: the check runs on every address a name resolves to, in the
// lookup of the connection itself, so a name that resolves to a public address when registered
// and to a private one when called (DNS rebinding) is refused when called.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';

/** One address a name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to its addresses; injected in tests so a name can point anywhere. */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolve: ResolveHost = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Raised from the connection's lookup when every address of a name is one a source may not reach. */
export class PrivateAddressError extends Error {
  readonly code = 'SVC_PRIVATE_ADDRESS';
  readonly address: string;
  readonly range: string;

  constructor(hostname: string, address: string, range: string) {
    super(`${hostname} resolves to ${address}, ${range}`);
    this.name = 'PrivateAddressError';
    this.address = address;
    this.range = range;
  }
}

type Range = [first: bigint, bits: number, name: string];

const v4 = (text: string): bigint =>
  text.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);

/**
 * IPv4 ranges a source does not reach by default (RFC 6890 and the IANA special-purpose registry):
 * everything here is local, private, shared, reserved, or not a unicast destination.
 */
const IPV4_RANGES: Range[] = [
  [v4('0.0.0.0'), 8, 'a "this network" address'],
  [v4('10.0.0.0'), 8, 'a private address (RFC 1918)'],
  [v4('100.64.0.0'), 10, 'a carrier-grade NAT address (RFC 6598)'],
  [v4('127.0.0.0'), 8, 'a loopback address'],
  [v4('169.254.0.0'), 16, 'a link-local address (cloud metadata services live here)'],
  [v4('172.16.0.0'), 12, 'a private address (RFC 1918)'],
  [v4('192.0.0.0'), 24, 'an IETF protocol address'],
  [v4('192.0.2.0'), 24, 'a documentation address'],
  [v4('192.88.99.0'), 24, 'a 6to4 relay address'],
  [v4('192.168.0.0'), 16, 'a private address (RFC 1918)'],
  [v4('198.18.0.0'), 15, 'a benchmarking address'],
  [v4('198.51.100.0'), 24, 'a documentation address'],
  [v4('203.0.113.0'), 24, 'a documentation address'],
  [v4('224.0.0.0'), 4, 'a multicast address'],
  [v4('240.0.0.0'), 4, 'a reserved or broadcast address'],
];

/** The 128 bits of an IPv6 address (`isIP` said 6; a zone, `%eth0`, is dropped). */
function v6(text: string): bigint {
  let address = text.split('%')[0]!;
  // A trailing dotted quad (::ffff:1.2.3.4) is two groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (quad) {
    const n = v4(quad[1]!);
    address = `${address.slice(0, quad.index)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = address.split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const all =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return all.reduce((n, group) => (n << 16n) | BigInt(parseInt(group, 16)), 0n);
}

const inV6 = (n: bigint, prefix: string, bits: number) =>
  n >> BigInt(128 - bits) === v6(prefix) >> BigInt(128 - bits);

function ipv4Range(n: bigint): string | undefined {
  return IPV4_RANGES.find(([first, bits]) => n >> BigInt(32 - bits) === first >> BigInt(32 - bits))?.[2];
}

/**
 * IPv6: only global unicast (2000::/3) is reached by default, less its special blocks; an address
 * that carries an IPv4 one (mapped, NAT64, 6to4) is judged by the IPv4 address it carries.
 */
function ipv6Range(n: bigint): string | undefined {
  if (n === 0n) return 'the unspecified address';
  if (n === 1n) return 'a loopback address';
  if (inV6(n, '::ffff:0:0', 96)) return ipv4Range(n & 0xffffffffn);
  if (inV6(n, '64:ff9b::', 96)) return ipv4Range(n & 0xffffffffn);
  if (inV6(n, '2002::', 16)) return ipv4Range((n >> 80n) & 0xffffffffn);
  if (inV6(n, 'fc00::', 7)) return 'a unique local address';
  if (inV6(n, 'fe80::', 10)) return 'a link-local address';
  if (inV6(n, 'ff00::', 8)) return 'a multicast address';
  if (!inV6(n, '2000::', 3)) return 'a reserved address';
  if (inV6(n, '2001:db8::', 32) || inV6(n, '3fff::', 20)) return 'a documentation address';
  if (inV6(n, '2001::', 23)) return 'an IETF protocol address (Teredo and others)';
  return undefined;
}

/** Why a source may not reach `address` by default (a phrase naming its range), or undefined when it may. */
export function privateRange(address: string): string | undefined {
  const family = isIP(address.split('%')[0]!);
  if (family === 4) return ipv4Range(v4(address));
  if (family === 6) return ipv6Range(v6(address));
  return 'not an IP address';
}

/**
 * Why a URL's host is refused before any lookup: an IP literal in a refused range, or a name that
 * always means this machine (`localhost` and `*.localhost`, RFC 6761). Undefined otherwise: a
 * name is checked on the addresses it resolves to, when the connection is made.
 */
export function hostRange(hostname: string): { address: string; range: string } | undefined {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (isIP(host)) {
    const range = privateRange(host);
    return range ? { address: host, range } : undefined;
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host === 'localhost.') {
    return { address: host, range: 'a name for this machine' };
  }
  return undefined;
}

/**
 * A `lookup` for the connection: resolves with `resolve` and hands on only the addresses a source
 * may reach (all of them when `allowPrivate`), so the address connected to is one that was
 * checked. When none is left it fails with PrivateAddressError and no connection is made.
 */
export function guardedLookup(resolve: ResolveHost, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const candidates = addresses.filter((a) => !family || a.family === family);
        const allowed = allowPrivate ? candidates : candidates.filter((a) => !privateRange(a.address));
        if (allowed.length === 0) {
          const refused = candidates[0];
          const error = refused
            ? new PrivateAddressError(hostname, refused.address, privateRange(refused.address)!)
            : Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
          callback(error, '', 0);
          return;
        }
        if (options.all) callback(null, allowed);
        else callback(null, allowed[0]!.address, allowed[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
