-- Cosine similarity of two embeddings stored as double precision[] (table "embeddings"),
-- so POST /query ranks in Postgres rather than shipping vectors to the API.
-- Hand-written: Prisma cannot express functions, and `prisma migrate diff` ignores them
-- (no drift). pgvector's `vector` type and `<=>` would replace this where it can be
-- installed; see README.md.
--
-- IMMUTABLE and PARALLEL SAFE: the result depends only on the arguments, so the planner
-- may evaluate it in parallel workers. STRICT: a NULL argument gives NULL without a call.
-- Vectors of different lengths, or a zero vector, have no defined similarity: NULL.
-- One aggregate level: Postgres computes each repeated sum() once; a nested subquery
-- measured a quarter slower. Cost: about 0.3 ms per 1,536-dimension pair, 0.07 ms at 256.
CREATE FUNCTION recall_cosine(a float8[], b float8[]) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
  SELECT CASE WHEN sum(x * x) = 0 OR sum(y * y) = 0 THEN NULL ELSE sum(x * y) / sqrt(sum(x * x) * sum(y * y)) END
  FROM unnest(a, b) AS t(x, y)
  WHERE cardinality(a) = cardinality(b)
$$;
