// Where a webhook may point: http(s) only, no credentials in the URL, and no private, loopback,
// link-local or otherwise internal address unless WEBHOOK_ALLOWED_NETWORKS names its network. The
// host is checked when the webhook is registered and again at every delivery, through the lookup
// the request connects with (guardedLookup), so a name re-pointed at an internal address after
// registration (DNS rebinding) is refused too.
import { lookup } from "node:dns";
import { lookup as lookupAll } from "node:dns/promises";
import { BlockList, isIP, type LookupFunction } from "node:net";

export class WebhookUrlError extends Error {
  override name = "WebhookUrlError";
}

const INTERNAL: [string, number, "ipv4" | "ipv6"][] = [
  ["0.0.0.0", 8, "ipv4"],
  ["10.0.0.0", 8, "ipv4"],
  ["100.64.0.0", 10, "ipv4"],
  ["127.0.0.0", 8, "ipv4"],
  ["169.254.0.0", 16, "ipv4"],
  ["172.16.0.0", 12, "ipv4"],
  ["192.0.0.0", 24, "ipv4"],
  ["192.0.2.0", 24, "ipv4"],
  ["192.168.0.0", 16, "ipv4"],
  ["198.18.0.0", 15, "ipv4"],
  ["198.51.100.0", 24, "ipv4"],
  ["203.0.113.0", 24, "ipv4"],
  ["224.0.0.0", 4, "ipv4"],
  ["240.0.0.0", 4, "ipv4"],
  ["::", 128, "ipv6"],
  ["::1", 128, "ipv6"],
  ["64:ff9b::", 96, "ipv6"],
  ["100::", 64, "ipv6"],
  ["2001:db8::", 32, "ipv6"],
  ["fc00::", 7, "ipv6"],
  ["fe80::", 10, "ipv6"],
  ["ff00::", 8, "ipv6"],
];

const internal = new BlockList();
for (const [address, bits, family] of INTERNAL) internal.addSubnet(address, bits, family);

/** The networks WEBHOOK_ALLOWED_NETWORKS lets through ("address/bits" each). */
export class AddressPolicy {
  private readonly allowed = new BlockList();

  constructor(allowedNetworks: readonly string[]) {
    for (const cidr of allowedNetworks) {
      const [address = "", bits = ""] = cidr.split("/");
      this.allowed.addSubnet(address, Number(bits), isIP(address) === 6 ? "ipv6" : "ipv4");
    }
  }

  /** Why the address may not be reached, or undefined when it may. */
  refusal(address: string): string | undefined {
    const family = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (!internal.check(address, family) || this.allowed.check(address, family)) return undefined;
    return `${address} is a private, loopback or link-local address`;
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
