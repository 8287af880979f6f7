// Where a commit's candidate writer (candidate-writer.ts) puts the rows it writes: one commit alone creates each in a
// statement of its own (`liveRows`); the commits of a group's turns, written in one transaction, keep them in a
// `RowBuffer` and create each kind in one statement once every turn has written. A row's id and time are given where
// it is made, as Prisma gives them, so what the buffer writes is what the statements would have.
import { randomUUID } from "node:crypto";
import type { Prisma, Tx } from "@recall/db";

type Row<T> = Omit<T, "id">;

export interface CommitRows {
  assertion(data: Row<Prisma.AssertionUncheckedCreateInput>): Promise<string>;
  attribute(data: Row<Prisma.AttributeUncheckedCreateInput>): Promise<string>;
  relation(data: Row<Prisma.RelationUncheckedCreateInput>): Promise<string>;
  instruction(data: Row<Prisma.InstructionUncheckedCreateInput>): Promise<string>;
  uncertainty(data: Row<Prisma.UncertaintyUncheckedCreateInput>): Promise<string>;
}

const ID = { id: true } as const;

/** Each row in a statement of its own, in the commit's transaction; answers its id. */
export function liveRows(tx: Tx): CommitRows {
  return {
    assertion: async (data) => (await tx.assertion.create({ data, select: ID })).id,
    attribute: async (data) => (await tx.attribute.create({ data, select: ID })).id,
    relation: async (data) => (await tx.relation.create({ data, select: ID })).id,
    instruction: async (data) => (await tx.instruction.create({ data, select: ID })).id,
    uncertainty: async (data) => (await tx.uncertainty.create({ data, select: ID })).id,
  };
}

/** A group's rows, kept until `flush` writes each kind in one statement (assertions before the facts naming them). */
export class RowBuffer implements CommitRows {
  private assertions: Prisma.AssertionCreateManyInput[] = [];
  private attributes: Prisma.AttributeCreateManyInput[] = [];
  private relations: Prisma.RelationCreateManyInput[] = [];
  private instructions: Prisma.InstructionCreateManyInput[] = [];
  private uncertainties: Prisma.UncertaintyCreateManyInput[] = [];

  async assertion(data: Row<Prisma.AssertionUncheckedCreateInput>): Promise<string> {
    return keep(this.assertions, { recordedAt: new Date(), ...data });
  }

  async attribute(data: Row<Prisma.AttributeUncheckedCreateInput>): Promise<string> {
    return keep(this.attributes, { recordedAt: new Date(), ...data });
  }

  async relation(data: Row<Prisma.RelationUncheckedCreateInput>): Promise<string> {
    return keep(this.relations, { recordedAt: new Date(), ...data });
  }

  async instruction(data: Row<Prisma.InstructionUncheckedCreateInput>): Promise<string> {
    return keep(this.instructions, { createdAt: new Date(), ...data });
  }

  async uncertainty(data: Row<Prisma.UncertaintyUncheckedCreateInput>): Promise<string> {
    return keep(this.uncertainties, { createdAt: new Date(), ...data });
  }

  async flush(tx: Tx): Promise<void> {
    if (this.assertions.length > 0) await tx.assertion.createMany({ data: this.assertions });
    if (this.attributes.length > 0) await tx.attribute.createMany({ data: this.attributes });
    if (this.relations.length > 0) await tx.relation.createMany({ data: this.relations });
    if (this.instructions.length > 0) await tx.instruction.createMany({ data: this.instructions });
    if (this.uncertainties.length > 0) await tx.uncertainty.createMany({ data: this.uncertainties });
    this.assertions = [];
    this.attributes = [];
    this.relations = [];
    this.instructions = [];
    this.uncertainties = [];
  }
}

function keep<T extends { id?: string }>(rows: T[], data: T): string {
  const id = randomUUID();
  rows.push({ ...data, id });
  return id;
}
