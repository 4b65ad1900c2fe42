/** Internal: one entry is refused with `reason`; readArchive records it and moves on. */
export class EntryRejected extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "EntryRejected";
  }
}
