// Where a webhook may be delivered (server-side request forgery): only to public addresses, unless
// the operator allows private ones (WEBHOOK_ALLOW_PRIVATE, for tests and development). IPv4: every
// address outside IANA's special-purpose ranges (loopback, private, link-local where cloud metadata
// endpoints live, CGNAT, multicast, documentation, benchmarking, reserved). IPv6: an allow-list, the
// global unicast range 2000::/3 less the parts of it that are not public; every other form (the
// IPv4-compatible ::/96, IPv4-mapped and -translated ::ffff:0:0/96, site-local, NAT64, SRv6, what
// is not assigned yet) is refused, so a range nobody listed is never an opening. Checked on the
// addresses a name resolves to, at every delivery, and the connection goes to an address that
// passed: a name that resolves elsewhere later (DNS rebinding) gains nothing.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const notPublic4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, where cloud metadata endpoints live
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relays
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  notPublic4.addSubnet(network, prefix, 'ipv4');
}

/** IPv6's global unicast range: nothing outside it is public. */
const globalUnicast6 = new BlockList();
globalUnicast6.addSubnet('2000::', 3, 'ipv6');
/** The parts of 2000::/3 that are not public either. */
const notPublic6 = new BlockList();
for (const [network, prefix] of [
  ['2001::', 23], // protocol assignments (Teredo, benchmarking, ORCHID among them)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: an IPv4 address in disguise
  ['3fff::', 20], // documentation (RFC 9637)
] as const) {
  notPublic6.addSubnet(network, prefix, 'ipv6');
}

/** Whether an address is public: IPv4 outside the special ranges, IPv6 global unicast. */
function isPublic(address: string, family: 4 | 6): boolean {
  if (family === 4) return !notPublic4.check(address, 'ipv4');
  // A zone (fe80::1%eth0) belongs to a link, never to the internet.
  if (address.includes('%')) return false;
  // An IPv4-mapped or -compatible address is outside 2000::/3 as IPv6 (BlockList does not match it
  // against an IPv6 range as IPv4): refused, whatever IPv4 address it carries.
  return globalUnicast6.check(address, 'ipv6') && !notPublic6.check(address, 'ipv6');
}

/** Why an address may not be delivered to, or undefined when it may. */
export function refusedAddress(address: string, allowPrivate: boolean): string | undefined {
  if (allowPrivate) return undefined;
  const family = isIP(address);
  if (family !== 4 && family !== 6) return `${address} is not an IP address`;
  return isPublic(address, family) ? undefined : `${address} is not a public address`;
}

export class AddressRefusedError extends Error {
  readonly code = 'ADDRESS_REFUSED';
}

/**
 * A `lookup` for http.request: resolves as Node does, and fails when any address the name has is
 * refused (a name with one private address among public ones could be steered to it).
 */
export function policedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const why = addresses.map((a) => refusedAddress(a.address, allowPrivate)).find(Boolean);
      if (why) return callback(new AddressRefusedError(why), '', 0);
      if ((options as { all?: boolean }).all)
        return (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const [first] = addresses;
      if (!first) return callback(new AddressRefusedError(`${hostname} has no address`), '', 0);
      return callback(null, first.address, first.family);
    });
  };
}

/** The addresses a URL's host stands for (itself, for an IP literal). */
export async function resolveHost(hostname: string): Promise<string[]> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return [bare];
  return new Promise((resolve, reject) =>
    dnsLookup(bare, { all: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses.map((a) => a.address)),
    ),
  );
}
