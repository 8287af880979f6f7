// Where a webhook may point: http(s) only, no credentials in the URL, and no private, loopback,
// link-local or otherwise internal address unless WEBHOOK_ALLOWED_NETWORKS names its network. The
// host is checked when the webhook is registered and again at every delivery, through the lookup
// the request connects with (guardedLookup), so a name re-pointed at an internal address after
// registration (DNS rebinding) is refused too.
import { lookup } from "node:dns";
import { lookup as lookupAll } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";
import { DomainError } from "@recall/contracts";

/** A webhook URL the policy refuses: a 400 when registering (the service names the field), a failed delivery later. */
export class WebhookUrlError extends DomainError {
  override name = "WebhookUrlError";
  constructor(message: string) {
    super("invalid", message);
  }
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** IPv6 ranges that carry an IPv4 address inside: reachable only where every IPv4 inside is public. */
const CARRIES_IPV4 = new Set(["6to4", "teredo", "rfc6052", "rfc6145", "ipv4Compatible"]);

/** The IPv4 addresses an IPv6 address stands for (mapped, IPv4-compatible, NAT64, 6to4, Teredo's server and client). */
function embeddedIPv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4[] {
  const parts = address.parts;
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  if (range === "6to4") return [v4(parts[1]!, parts[2]!)];
  // Teredo: the server in bits 32–63, the client obfuscated (every bit flipped) in the last 32.
  if (range === "teredo") return [v4(parts[2]!, parts[3]!), v4(~parts[6]! & 0xffff, ~parts[7]! & 0xffff)];
  return [v4(parts[6]!, parts[7]!)];
}

const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96") as [ipaddr.IPv6, number];

/** The range name ipaddr.js gives, with the deprecated IPv4-compatible form (::a.b.c.d) told apart. */
function rangeOf(address: Address): string {
  const range = address.range();
  if (address.kind() === "ipv6" && range === "unicast" && (address as ipaddr.IPv6).match(IPV4_COMPATIBLE)) return "ipv4Compatible";
  return range;
}
/** Why a public-looking address is still internal, or undefined when every address it stands for is public. */
function internalRange(address: Address): string | undefined {
  const range = rangeOf(address);
  if (range === "unicast") return undefined;
  if (address.kind() === "ipv6" && CARRIES_IPV4.has(range)) {
    const inner = embeddedIPv4(address as ipaddr.IPv6, range)
      .map((a) => internalRange(a))
      .find(Boolean);
    return inner && `${range} address of a ${inner}`;
  }
  return range;
}

/** The networks WEBHOOK_ALLOWED_NETWORKS lets through ("address/bits" each). Addresses are classified by ipaddr.js. */
export class AddressPolicy {
  private readonly allowed: [Address, number][];

  constructor(allowedNetworks: readonly string[]) {
    this.allowed = allowedNetworks.map((cidr) => ipaddr.parseCIDR(cidr));
  }

  /** Why the address may not be reached, or undefined when it may. */
  refusal(text: string): string | undefined {
    if (!ipaddr.isValid(text)) return `${text} is not an IP address`;
    const parsed = ipaddr.parse(text);
    // An IPv4-mapped IPv6 address is that IPv4 address on a dual-stack socket: judged as it.
    const address =
      parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
    if (this.allowed.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits))) return undefined;
    const range = internalRange(address);
    // Names the setting: a receiver on loopback or a private network (a test's, a sidecar) is allowed there.
    return (
      range &&
      `${text} is not a public address (${range}): private, loopback, link-local and reserved addresses are refused unless WEBHOOK_ALLOWED_NETWORKS includes them (e.g. WEBHOOK_ALLOWED_NETWORKS=127.0.0.0/8)`
    );
  }
}

/** The URL as it will be requested; throws WebhookUrlError saying what is wrong with it. */
export function parseWebhookUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookUrlError("is not an absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new WebhookUrlError("must be an http or https URL");
  if (url.username || url.password) throw new WebhookUrlError("must not carry a user name or password");
  return url;
}

function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/** A registration waits this long for the host's addresses, not for the resolver's own retries. */
const RESOLVE_TIMEOUT_MS = 5_000;

async function resolveWithin(host: string, ms: number): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WebhookUrlError(`host ${host} did not resolve within ${ms / 1_000} s`)), ms);
  });
  try {
    return (await Promise.race([lookupAll(host, { all: true }), late])).map((a) => a.address);
  } catch (err) {
    throw err instanceof WebhookUrlError ? err : new WebhookUrlError(`host ${host} does not resolve`);
  } finally {
    clearTimeout(timer);
  }
}

/** Registration: the URL's form, and every address its host resolves to now. */
export async function checkWebhookUrl(text: string, policy: AddressPolicy): Promise<URL> {
  const url = parseWebhookUrl(text);
  const host = bareHost(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    addresses = await resolveWithin(host, RESOLVE_TIMEOUT_MS);
  }
  for (const address of addresses) {
    const refused = policy.refusal(address);
    if (refused) throw new WebhookUrlError(`may not point at ${refused}`);
  }
  return url;
}

/** Delivery: an IP-literal host is checked here (no lookup happens for it); a name through guardedLookup. */
export function checkLiteralHost(url: URL, policy: AddressPolicy): void {
  const host = bareHost(url);
  const refused = isIP(host) ? policy.refusal(host) : undefined;
  if (refused) throw new WebhookUrlError(`refused: ${refused}`);
}

/** A `lookup` for http.request that fails when the name resolves to any refused address. */
export function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { all: true, family: options.family ?? 0 }, (err, addresses) => {
      if (err) return callback(err, []);
      const refused = addresses.map((a) => policy.refusal(a.address)).find(Boolean);
      if (refused) return callback(new WebhookUrlError(`refused: ${refused}`), []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}
