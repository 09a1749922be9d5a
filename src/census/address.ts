/**
 * Whether a URL from an untrusted list points into the network the census runs in: loopback,
 * private, link-local (cloud metadata lives there), carrier-grade NAT, and the other addresses
 * no public server has. A registry entry naming such a host would turn the census into a
 * scanner of its own network, so such a target is recorded, not called.
 */
import { lookup as dnsLookup, type LookupOptions } from "node:dns";
import { lookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";

/** Every address a host name resolves to. Injectable, so tests never ask a real resolver. */
export type Resolver = (hostname: string) => Promise<string[]>;

const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** The addresses a connection made with `lookup` (as node:net takes one) would go to. */
export function resolverOf(lookup: LookupFunction): Resolver {
  return (hostname) =>
    new Promise((resolve, reject) => {
      lookup(
        hostname,
        { all: true },
        (error: NodeJS.ErrnoException | null, addresses: string | { address: string }[]) => {
          if (error) reject(error);
          else resolve(typeof addresses === "string" ? [addresses] : addresses.map((a) => a.address));
        },
      );
    });
}

/** What a URL's host is or resolves to, judged by the private-address rule. */
export type AddressVerdict =
  | { kind: "public" }
  /** The first address that no public server has. */
  | { kind: "private"; address: string }
  /** The name did not resolve, or the URL has no host: nothing can be called, so nothing is. */
  | { kind: "unresolved"; reason: string };

/**
 * Where the URL's host points: an IP literal is judged as it is, a name by every address it
 * resolves to. A name that does not resolve is `unresolved`, never taken as public: the
 * connection would resolve it again, and could be answered otherwise then.
 */
export async function vetUrl(url: string, resolve: Resolver): Promise<AddressVerdict> {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[(.*)\]$/, "$1");
  } catch {
    return { kind: "unresolved", reason: "not a URL" };
  }
  if (isIP(host)) return isNonPublic(host) ? { kind: "private", address: host } : { kind: "public" };
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code;
    return { kind: "unresolved", reason: typeof code === "string" ? code : "ENOTFOUND" };
  }
  if (addresses.length === 0) return { kind: "unresolved", reason: "ENOTFOUND" };
  const address = addresses.find(isNonPublic);
  return address === undefined ? { kind: "public" } : { kind: "private", address };
}

/** The failure of a connection whose host resolved to an address the private-address rule refuses. */
class PrivateAddressError extends Error {
  override readonly name = "PrivateAddressError";
  readonly code = "ERR_PRIVATE_ADDRESS";
  constructor(
    readonly hostname: string,
    readonly address: string,
  ) {
    super(`${hostname} resolves to ${address} (loopback, private, link-local or cloud metadata): not connected`);
  }
}

type LookupAddress = { address: string; family: number };

/**
 * A `lookup` (as node:net takes one) that refuses every name resolving to an address the
 * private-address rule refuses, told to `onRefused`. A name checked once and resolved again to
 * connect can answer otherwise the second time (DNS rebinding): vetting the answer the
 * connection itself uses is what keeps it off the census's own network. Every address of the
 * answer is vetted, since the connection may try any of them.
 */
export function vettedLookup(
  base: LookupFunction = dnsLookup as unknown as LookupFunction,
  onRefused?: (hostname: string, address: string) => void,
): LookupFunction {
  const vetted = (
    hostname: string,
    options: LookupOptions,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    base(
      hostname,
      { ...options, all: true },
      (error: NodeJS.ErrnoException | null, answer: string | LookupAddress[], family?: number) => {
        if (error) return callback(error, options.all ? [] : "");
        const list: LookupAddress[] =
          typeof answer === "string" ? [{ address: answer, family: family ?? isIP(answer) }] : answer;
        if (list.length === 0)
          return callback(
            Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", hostname }),
            options.all ? [] : "",
          );
        const refused = list.find((a) => isNonPublic(a.address));
        if (refused) {
          onRefused?.(hostname, refused.address);
          return callback(new PrivateAddressError(hostname, refused.address), options.all ? [] : "");
        }
        if (options.all) callback(null, list);
        else callback(null, list[0]!.address, list[0]!.family);
      },
    );
  };
  return vetted as unknown as LookupFunction;
}

/** IPv4 ranges no public server answers on, as [first octets as a number, prefix length]. */
const V4_BLOCKED: readonly [string, number][] = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT (and some clouds' metadata, 100.100.100.200)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local: 169.254.169.254 is the cloud metadata service
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // protocol assignments
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and broadcast
];

export function isNonPublic(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return v4Blocked(v4Number(address));
  if (family === 6) return v6Blocked(v6Hextets(address));
  return false;
}

function v4Number(a: string): number {
  return a.split(".").reduce((n, octet) => n * 256 + Number(octet), 0);
}

function v4Blocked(n: number): boolean {
  return V4_BLOCKED.some(
    ([base, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(v4Number(base) / 2 ** (32 - bits)),
  );
}

function v6Blocked(h: number[]): boolean {
  const zeros = (from: number, to: number) => h.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return true; // ::
  if (zeros(0, 7) && h[7] === 1) return true; // ::1
  if ((h[0]! & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local (fd00:ec2::254 is a metadata service)
  if ((h[0]! & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((h[0]! & 0xffc0) === 0xfec0) return true; // fec0::/10, the deprecated site-local: still private where it is used
  if ((h[0]! & 0xff00) === 0xff00) return true; // multicast
  const embedded = (hi: number, lo: number) => v4Blocked(hi * 65536 + lo);
  if (zeros(0, 5) && h[5] === 0xffff) return embedded(h[6]!, h[7]!); // ::ffff:a.b.c.d, mapped
  if (zeros(0, 4) && h[4] === 0xffff && h[5] === 0) return embedded(h[6]!, h[7]!); // ::ffff:0:a.b.c.d, translated (RFC 2765)
  if (zeros(0, 6)) return embedded(h[6]!, h[7]!); // ::a.b.c.d, the old compatible form
  if (h[0] === 0x64 && h[1] === 0xff9b && zeros(2, 6)) return embedded(h[6]!, h[7]!); // NAT64
  if (h[0] === 0x2002) return embedded(h[1]!, h[2]!); // 6to4
  return false;
}

/** The eight 16-bit groups of an IPv6 address, with `::` and a dotted IPv4 tail expanded. */
function v6Hextets(address: string): number[] {
  let a = address.replace(/%.*$/, "");
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (dotted) {
    const n = v4Number(dotted[1]!);
    a = `${a.slice(0, dotted.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = a.includes("::") ? a.split("::") : [a, undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const middle = tail === undefined ? [] : Array(8 - left.length - right.length).fill("0");
  return [...left, ...middle, ...right].map((x) => parseInt(x, 16));
}

/**
 * What keeps a census of untrusted targets off its own network: a guard that says why a URL the
 * sign-in walk comes across must not be called (checked before the request, so a refused URL is
 * recorded as not called), and a `lookup` that refuses a private address at the moment of
 * connecting, for a name that answered otherwise when it was checked. `refused` is the first
 * address the lookup refused.
 */
export interface UntrustedNetwork {
  guard: (url: string) => Promise<string | undefined>;
  lookup: LookupFunction;
  readonly refused: { hostname: string; address: string } | undefined;
}

/** How names are resolved: `resolve` to check them, `lookup` to connect (and to check, without `resolve`). */
export interface NetworkOptions {
  resolve?: Resolver;
  lookup?: LookupFunction;
}

export function untrustedNetwork(options: NetworkOptions): UntrustedNetwork {
  const resolve = resolverFor(options);
  let refused: UntrustedNetwork["refused"];
  return {
    guard: async (url) => {
      const verdict = await vetUrl(url, resolve);
      if (verdict.kind === "private")
        return `${new URL(url).hostname} resolves to ${verdict.address} (loopback, private, link-local or cloud metadata), and the URL came from an untrusted registry entry`;
      if (verdict.kind === "unresolved") return `${hostnameOf(url)} does not resolve (${verdict.reason})`;
      return undefined;
    },
    lookup: vettedLookup(options.lookup, (hostname, address) => void (refused ??= { hostname, address })),
    get refused() {
      return refused;
    },
  };
}

/** The resolver that checks names: `resolve`, else `lookup`, else the system's. */
export function resolverFor(options: NetworkOptions): Resolver {
  return options.resolve ?? (options.lookup ? resolverOf(options.lookup) : systemResolver);
}

function hostnameOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}
