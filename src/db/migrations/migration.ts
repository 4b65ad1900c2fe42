/** One schema step: applied once, in version order, inside a transaction. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
