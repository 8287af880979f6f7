// The ids an import derives: a version 8 uuid, the same on every run of one import (so a re-run creates nothing
// twice), and different for another source, another target or another import record (so none can be predicted).
import { remapper, type ImportKey } from "./import-ids";

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const A = "0b5b8f3e-6c1d-4b8e-9a51-3f0e2d7c9a10";
const B = "7d2e4c61-1f3a-4e5b-8c9d-0a1b2c3d4e5f";
const ROW = "c3a1f0e2-5b6d-4c7e-8f90-a1b2c3d4e5f6";
const SECRET = "5e0c2b1a-9d8f-4e7c-b6a5-4f3e2d1c0b9a";
const key: ImportKey = { sourceContextId: A, targetContextId: B, secret: SECRET };

test("a version 8 uuid, the same every run of the import", () => {
  const id = remapper(key)(ROW);
  expect(id).toMatch(UUID_V8);
  expect(id).not.toBe(ROW);
  expect(remapper({ ...key })(ROW)).toBe(id);
});

test("another source, target or import record derives another id: nobody can compute another import's ids", () => {
  const id = remapper(key)(ROW);
  expect(remapper({ ...key, sourceContextId: ROW })(ROW)).not.toBe(id);
  expect(remapper({ ...key, targetContextId: A })(ROW)).not.toBe(id);
  expect(remapper({ ...key, secret: A })(ROW)).not.toBe(id);
});

test("different ids never meet", () => {
  const ids = Array.from({ length: 200 }, (_, i) => `${ROW.slice(0, -3)}${i.toString(16).padStart(3, "0")}`);
  expect(new Set(ids.map(remapper(key))).size).toBe(ids.length);
});
