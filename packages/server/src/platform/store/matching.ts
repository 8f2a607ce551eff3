// The repositories' simplest statements, by the columns a row must equal: find one, delete, and set
// a one-time mark (used, revoked, delivered) only where it is still null; and the housekeeping
// delete of rows older than a time. Each equality is a plain `where column = value`, in the order
// `match` names them, as the repositories wrote it by hand.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from './schema.js';

type Table = keyof Database & string;
/** A column of any table: what the builders of a table given as a parameter take. */
type Column = { [T in Table]: keyof Database[T] & string }[Table];

/** Column values a row must equal, every one. */
export type Match<T extends Table> = Partial<Selectable<Database[T]>>;

/** The columns of `T` that hold a time or nothing. */
type MarkColumn<T extends Table> = {
  [C in keyof Database[T] & string]: null extends Database[T][C] ? C : never;
}[keyof Database[T] & string];

// Kysely types a column by a table it knows; here the table is a parameter, so its builder's
// `where` is called untyped, on columns that Match<T> has checked.
type Filterable = { where(column: string, op: string, value: unknown): Filterable };

function where<Q>(query: Q, column: string, op: '=' | '<', value: unknown): Q {
  return (query as Filterable).where(column, op, value) as Q;
}

function whereAll<Q>(query: Q, match: object): Q {
  let q = query;
  for (const [column, value] of Object.entries(match)) q = where(q, column, '=', value);
  return q;
}

/** The one row matching, if any. */
export function findMatching<T extends Table>(
  db: Kysely<Database>,
  table: T,
  match: Match<T>,
): Promise<Selectable<Database[T]> | undefined> {
  return whereAll(db.selectFrom(table as Table).selectAll(), match).executeTakeFirst() as Promise<
    Selectable<Database[T]> | undefined
  >;
}

/** Deletes the matching rows; whether there was one. */
export async function deleteMatching<T extends Table>(
  db: Kysely<Database>,
  table: T,
  match: Match<T>,
): Promise<boolean> {
  const res = await whereAll(db.deleteFrom(table as Table), match).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/**
 * Sets `column` to `at` on the matching rows where it is still null, so of two at once only one
 * sets it; how many rows it set.
 */
export async function markOnce<T extends Table>(
  db: Kysely<Database>,
  table: T,
  match: Match<T>,
  column: MarkColumn<T>,
  at: string,
): Promise<number> {
  const res = await whereAll(db.updateTable(table as Table).set({ [column]: at }), match)
    .where(column as Column, 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** Deletes the rows whose `column` (a time) is before `before`: what retention no longer keeps; how many. */
export async function deleteBefore<T extends Table, C extends keyof Selectable<Database[T]> & string>(
  db: Kysely<Database>,
  table: T,
  column: C,
  before: Selectable<Database[T]>[C],
): Promise<number> {
  const res = await where(db.deleteFrom(table as Table), column, '<', before).executeTakeFirst();
  return Number(res.numDeletedRows);
}
