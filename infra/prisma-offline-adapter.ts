// A pg driver adapter for the Prisma CLI's WebAssembly schema engine, mending
// two faults of the stock adapter (@prisma/adapter-pg 6.19) seen on Postgres 15:
// - introspection returns `name` (oid 19) and `"char"` (oid 18) columns the
//   adapter cannot map; they are read as text;
// - its shadow database is dropped while its pool is still open, and a
//   `database` override is ignored when a connection string is used.
import { PrismaPg } from "@prisma/adapter-pg";
import { Client } from "pg";

type Queryable = { performIO(query: unknown): Promise<{ fields: { dataTypeID: number }[] }> };
type Adapter = Awaited<ReturnType<PrismaPg["connect"]>>;

const NAME_OID = 19;
const CHAR_OID = 18;
const TEXT_OID = 25;

/** The adapter's (private) method every query goes through; its result carries the columns' type ids. */
function performIOOf(queryable: object): Queryable["performIO"] {
  const performIO: unknown = Reflect.get(queryable, "performIO");
  if (typeof performIO !== "function")
    throw new Error("@prisma/adapter-pg no longer has performIO; prisma-offline-adapter.ts needs updating");
  return (query) => Reflect.apply(performIO, queryable, [query]);
}

function readSystemColumnsAsText<T extends object>(queryable: T): T {
  const performIO = performIOOf(queryable);
  const patched: Queryable["performIO"] = async (query) => {
    const result = await performIO(query);
    for (const field of result?.fields ?? []) {
      if (field.dataTypeID === NAME_OID || field.dataTypeID === CHAR_OID) field.dataTypeID = TEXT_OID;
    }
    return result;
  };
  Reflect.set(queryable, "performIO", patched);
  return queryable;
}

function patchAdapter(adapter: Adapter): Adapter {
  readSystemColumnsAsText(adapter);
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (isolationLevel) => readSystemColumnsAsText(await startTransaction(isolationLevel));
  return adapter;
}

export class OfflineMigrationAdapter extends PrismaPg {
  constructor(private readonly url: string) {
    super({ connectionString: url });
  }

  override async connect(): Promise<Adapter> {
    return patchAdapter(await super.connect());
  }

  override async connectToShadowDb(): Promise<Adapter> {
    const database = `prisma_shadow_${crypto.randomUUID().replaceAll("-", "")}`;
    await withAdminClient(this.url, (client) => client.query(`CREATE DATABASE "${database}"`));
    const shadowUrl = new URL(this.url);
    shadowUrl.pathname = `/${database}`;
    const shadow = patchAdapter(await new PrismaPg({ connectionString: shadowUrl.toString() }).connect());
    const dispose = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await dispose();
      await withAdminClient(this.url, (client) => client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
    };
    return shadow;
  }
}

async function withAdminClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
