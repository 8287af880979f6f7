-- CreateTable
CREATE TABLE "search_term_stats" (
    "context_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "lexeme" TEXT NOT NULL,
    "docs" INTEGER NOT NULL,

    CONSTRAINT "search_term_stats_pkey" PRIMARY KEY ("context_id","kind","lexeme")
);

-- CreateTable
CREATE TABLE "search_doc_stats" (
    "context_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "docs" INTEGER NOT NULL,
    "total_length" BIGINT NOT NULL,

    CONSTRAINT "search_doc_stats_pkey" PRIMARY KEY ("context_id","kind")
);

