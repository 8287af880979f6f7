// Who "me" is in a message read for a scope: the person the scope's own user turns speak as. "What do you know about
// me?" names nobody, so without this the reader's own facts are not drawn in. The person is the one the turns name
// as their speaker (`name` on the turn), else the person those turns taught the most about (a self-introduction,
// "I'm Alice, CTO at Acme", makes Alice the subject of what follows). Only turns written in exactly the reader's
// scope count: an org-wide turn is not the reader speaking. An empty scope has no person.
import { Prisma, type DbOrTx } from "@recall/db";
import { normaliseScope } from "../core/scope";
import type { ReaderScope } from "./read-types";

/** "I", "me", "my", "mine", "myself" as words: the message speaks of its reader. */
const FIRST_PERSON = /(?<![\p{L}\p{N}'’])(i|me|my|mine|myself)(?![\p{L}\p{N}])/iu;

export function speaksOfSelf(message: string): boolean {
  return FIRST_PERSON.test(message);
}

/** The reader's person entity, when the message speaks of its reader and the scope's turns show who that is. */
export async function scopePerson(db: DbOrTx, reader: ReaderScope, message: string): Promise<string | undefined> {
  const scope = normaliseScope(reader.scope);
  if (scope.length === 0 || !speaksOfSelf(message)) return undefined;
  const rows = await db.$queryRaw<{ id: string }[]>(Prisma.sql`
    SELECT e.id
    FROM turns t
    JOIN assertions a ON a.turn_id = t.id AND a.context_id = t.context_id AND a.retracted_at IS NULL
    JOIN entities e ON e.id = a.subject_entity_id AND e.retracted_at IS NULL AND lower(e.type) = 'person'
    WHERE t.context_id = ${reader.contextId}::uuid AND t.role = 'user'
      AND t.scope_set_id IN (SELECT s.id FROM scope_sets s WHERE s.context_id = ${reader.contextId}::uuid
        AND s.entries @> ${scope}::text[] AND s.entries <@ ${scope}::text[])
      AND (t.speaker IS NULL OR lower(t.speaker) = lower(e.name) OR lower(t.speaker) = ANY(SELECT lower(x) FROM unnest(e.aliases) x))
    GROUP BY e.id
    ORDER BY count(*) FILTER (WHERE t.speaker IS NOT NULL) DESC, count(*) DESC, min(t.created_at), e.id
    LIMIT 1`);
  return rows[0]?.id;
}
