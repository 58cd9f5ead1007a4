// IP addresses, v4 and v6, that can point at a person's connection: public unicast addresses.
// Private, loopback, link-local, shared, documentation, benchmarking, multicast and reserved ranges
// name no one and are left, as are the public resolvers everyone configures and version numbers
// that look like addresses. Pure.

import type { DetectionRule } from '../detect.ts';
import { baseName } from './context.ts';

/** IPv4 ranges that are never a person's address (RFC 6890 special-purpose registry), as [first, bits]. */
const SPECIAL_V4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // "this network" (RFC 791)
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // shared address space, carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback (RFC 1122)
  ['169.254.0.0', 16], // link-local (RFC 3927)
  ['172.16.0.0', 12], // private (RFC 1918)
  ['192.0.0.0', 24], // IETF protocol assignments (RFC 6890)
  ['192.0.2.0', 24], // TEST-NET-1, documentation (RFC 5737)
  ['192.88.99.0', 24], // 6to4 relay anycast (RFC 7526)
  ['192.168.0.0', 16], // private (RFC 1918)
  ['198.18.0.0', 15], // benchmarking (RFC 2544)
  ['198.51.100.0', 24], // TEST-NET-2, documentation (RFC 5737)
  ['203.0.113.0', 24], // TEST-NET-3, documentation (RFC 5737)
  ['224.0.0.0', 4], // multicast (RFC 5771)
  ['240.0.0.0', 4], // reserved, and the broadcast address 255.255.255.255 (RFC 1112, RFC 919)
];

/** Public resolvers and other addresses everyone configures: infrastructure, not a person. */
const WELL_KNOWN_V4: ReadonlySet<string> = new Set([
  '8.8.8.8',
  '8.8.4.4',
  '1.1.1.1',
  '1.0.0.1',
  '9.9.9.9',
  '149.112.112.112',
  '208.67.222.222',
  '208.67.220.220',
]);

function v4Number(address: string): number {
  return address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

/** Whether `address` (dotted quad, each octet 0-255) is a public unicast address. */
export function publicV4(address: string): boolean {
  const n = v4Number(address);
  return !SPECIAL_V4.some(
    ([first, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(v4Number(first) / 2 ** (32 - bits)),
  );
}

/** Manifests and lock files, where dotted numbers are versions. */
const PACKAGE_FILE =
  /^(?:package(?:-lock)?\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|cargo\.(?:toml|lock)|go\.(?:mod|sum)|gemfile\.lock|composer\.(?:json|lock)|poetry\.lock|pyproject\.toml|requirements.*\.txt|pipfile\.lock|.*\.(?:csproj|nuspec|podspec)|assemblyinfo\.cs|pom\.xml|build\.gradle(?:\.kts)?)$/;

const OCTET = String.raw`(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`;

export const IP_ADDRESS_V4: DetectionRule = {
  id: 'ip-address-v4',
  category: 'pii',
  type: 'IP_ADDRESS',
  // Addresses sit in logs and exports of every kind, unlabelled: the keyword is a digit, a dot and a
  // digit (`0.0` stands for any two digits), which every address holds, and the pattern starts
  // only at a digit that no word character, dot or dash precedes.
  keywords: ['0.0'],
  pattern: new RegExp(String.raw`(?<![\w.-])(?<value>${OCTET}(?:\.${OCTET}){3})(?![\w]|\.\d)`, 'g'),
  confidence: 0.7,
  check(value, { line, lineBefore, file }) {
    if (!publicV4(value) || WELL_KNOWN_V4.has(value)) return false;
    // Version-like: every part one digit (1.2.3.4), a manifest, or a line that speaks of versions.
    if (/^\d\.\d\.\d\.\d$/.test(value)) return false;
    if (PACKAGE_FILE.test(baseName(file))) return false;
    const lower = line.toLowerCase();
    // Before it: a version's word (`version`, `release 2.14.3.1`, `build`, `v`, `ver.`, `V8 to`),
    // an object identifier's (`OID 1.3.101.112`); on its line, release notes.
    const before = lower.slice(0, Math.max(0, line.indexOf(value)));
    if (
      /version|\boid\b|\b(?:release|build|v(?:er)?\.?|(?:v8|chrome|chromium|node|git|python)(?: (?:to|from))?) ?$/.test(
        before,
      ) ||
      /\brelease notes\b/.test(lower)
    )
      return false;
    // A Kubernetes env entry: `- name: BUILD_VERSION`, then `value: "2.32.0.101"`.
    if (/^\s*value:/.test(line) && /version/i.test(lineBefore)) return false;
    return /\bip\b|address|addr|client|remote|host|from/.test(lower) ? 0.8 : 0.7;
  },
};

/** The eight 16-bit groups of an IPv6 address written in RFC 4291 section 2.2 text form, or undefined. */
export function v6Groups(text: string): number[] | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string) => (part === '' ? [] : part.split(':'));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const words = [...head, ...tail];
  if (!words.every((w) => /^[0-9a-f]{1,4}$/i.test(w))) return undefined;
  const missing = 8 - words.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const numbers = (ws: string[]) => ws.map((w) => parseInt(w, 16));
  return [...numbers(head), ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...numbers(tail)];
}

/** Whether the groups are global unicast (2000::/3) outside documentation (2001:db8::/32, 3fff::/20) and special ranges. */
export function publicV6(groups: readonly number[]): boolean {
  const [a = 0, b = 0] = groups;
  if (a >> 13 !== 0b001) return false; // not 2000::/3: loopback, unspecified, mapped v4, ULA, link-local, multicast
  if (a === 0x2001 && b === 0x0db8) return false; // documentation (RFC 3849)
  if (a >> 4 === 0x3ff) return false; // documentation (RFC 9637)
  if (a === 0x2001 && b < 0x0200) return false; // IETF protocol assignments, Teredo, benchmarking (RFC 6890)
  if (a === 0x2002) return false; // 6to4 (RFC 3056): the IPv4 rule judges the address inside
  return true;
}

const HEX_OR_COLON = [...'0123456789abcdef:'];
const V6_TRIGGERS = HEX_OR_COLON.flatMap((a) => HEX_OR_COLON.map((b) => `:${a}${b}`));

export const IP_ADDRESS_V6: DetectionRule = {
  id: 'ip-address-v6',
  category: 'pii',
  type: 'IP_ADDRESS',
  // Every match holds a colon and two hex digits or colons after it (`:db`, `::`): those three
  // characters, in every combination, lead the prefilter to the few places an address can be,
  // where a run of letters a to f in code would otherwise start a try at every one.
  keywords: V6_TRIGGERS,
  // An address with three groups set has a colon at most two hex digits after one of its triggers
  // (a group is at most four digits, and `:::` is no address). Most triggers of code (`a?b:c`,
  // `{a:1}`, `:before`) are followed by none.
  follows: /[0-9a-f]{0,2}:/iy,
  // A run of hex digits and colons holding at least two colons; `check` parses it. The run is one
  // character class, so it is read one way only.
  pattern: /(?<![\w:.])(?<value>[0-9A-Fa-f]{0,4}:[0-9A-Fa-f:]{2,37})(?![\w:]|\.\d)/g,
  confidence: 0.7,
  check(value) {
    const groups = v6Groups(value);
    if (!groups || !/\d/.test(value) || !publicV6(groups)) return false;
    // An address with fewer than three groups set is a shorthand in prose or code (`2a00::1`).
    return groups.filter((g) => g !== 0).length >= 3 ? 0.7 : false;
  },
};
