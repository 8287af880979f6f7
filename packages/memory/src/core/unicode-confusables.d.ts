// unicode-confusables ships no usable types (its declaration file is misnamed `index.ts.d`):
// the one function memory uses, as its README documents it.
declare module "unicode-confusables" {
  /** Each code point of the string, with the UTS #39 confusables.txt prototype it looks like, when it has one. */
  export function confusables(text: string): { point: string; similarTo?: string }[];
}
