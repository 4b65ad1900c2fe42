/** Whether two id lists hold the same members, in any order (tag lists are sets). */
export function sameMembers(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.slice().sort().join() === b.slice().sort().join();
}
