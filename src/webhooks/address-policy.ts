// Where a webhook may be delivered (server-side request forgery): not to loopback, private,
// link-local (cloud metadata endpoints included), CGNAT, multicast, documentation or reserved
// addresses, unless the operator allows private ones (WEBHOOK_ALLOW_PRIVATE, for tests and
// development). Checked on the addresses a name resolves to, at every delivery, and the connection
// goes to an address that passed: a name that resolves elsewhere later (DNS rebinding) gains nothing.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const refused = new BlockList();
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
  refused.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64: an IPv4 address in disguise
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard
  ['2001::', 23], // protocol assignments (Teredo among them)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: an IPv4 address in disguise
  ['fc00::', 7], // unique local (private)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  refused.addSubnet(network, prefix, 'ipv6');
}

/** Why an address may not be delivered to, or undefined when it may (BlockList checks IPv4-mapped IPv6 as IPv4). */
export function refusedAddress(address: string, allowPrivate: boolean): string | undefined {
  if (allowPrivate) return undefined;
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  return refused.check(address, family === 4 ? 'ipv4' : 'ipv6')
    ? `${address} is not a public address`
    : undefined;
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
